// The NVLink-like domain inside a GPU server (topology.gpus_per_server > 1;
// issue "AI training on RoCE fabrics"): a flow between two GPUs of one
// server never touches its NICs or the RoCE fabric. It is a fixed-bandwidth,
// fixed-latency transfer — no PFC, no ECN, no congestion control — through
// each GPU's NVLink port, one transfer at a time per direction: it starts
// once the source GPU's transmit side and the destination GPU's receive side
// are free, takes size x 8 / nvlink.rate, and completes at both ends
// nvlink.latency after its last byte.
//
// Simplification (README "Model notes"): transfers sharing a GPU's port go
// one after another in start order rather than sharing its bandwidth; an
// NVSwitch's internal contention is not modelled. A parallel run keeps a
// server's GPUs in one partition (sim/partition.h), so a transfer is local.
#pragma once

#include <cstdint>
#include <vector>

#include "core/time.h"

namespace rocesim {

struct Fabric;

class NvlinkDomain {
 public:
  void Init(uint32_t hosts, int gpus_per_server, int64_t rate_bps, Time latency);
  // Whether hosts a and b are GPUs of one server (their flows go over NVLink).
  bool SameServer(uint32_t a, uint32_t b) const {
    return gpus_ > 1 && a / static_cast<uint32_t>(gpus_) == b / static_cast<uint32_t>(gpus_);
  }
  // How long a transfer of `bytes` holds its two ports, and how long it
  // takes from start to completion on an idle domain (that plus latency).
  Time TransferTime(int64_t bytes) const;
  Time IdealTime(int64_t bytes) const { return TransferTime(bytes) + latency_; }
  // Starts flow `id` now: schedules its completion (EventKind::kNvlinkDone).
  void Start(Fabric& f, uint32_t id);
  // Its completion event: the flow is received and finished.
  static void Complete(Fabric& f, uint32_t id);

 private:
  int gpus_ = 1;
  int64_t rate_bps_ = 0;
  Time latency_ = 0;
  std::vector<Time> tx_free_, rx_free_;  // per host: when its NVLink port frees up
};

}  // namespace rocesim
