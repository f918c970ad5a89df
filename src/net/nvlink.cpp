#include "net/nvlink.h"

#include <algorithm>

#include "net/fabric.h"

namespace rocesim {

void NvlinkDomain::Init(uint32_t hosts, int gpus_per_server, int64_t rate_bps, Time latency) {
  gpus_ = gpus_per_server;
  rate_bps_ = rate_bps;
  latency_ = latency;
  if (gpus_ > 1) {
    tx_free_.assign(hosts, 0);
    rx_free_.assign(hosts, 0);
  }
}

Time NvlinkDomain::TransferTime(int64_t bytes) const {
  return SerializationTime(bytes, rate_bps_);
}

void NvlinkDomain::Start(Fabric& f, uint32_t id) {
  Flow& fl = f.flows[id];
  const Time begin = std::max({f.now, tx_free_[fl.src], rx_free_[fl.dst]});
  const Time end = begin + TransferTime(fl.size_bytes);
  tx_free_[fl.src] = rx_free_[fl.dst] = end;
  f.counters.nvlink_bytes += static_cast<uint64_t>(fl.size_bytes);
  f.Schedule(end + latency_, EventKind::kNvlinkDone, id);
}

void NvlinkDomain::Complete(Fabric& f, uint32_t id) {
  Flow& fl = f.flows[id];
  fl.sent = fl.received = fl.finish = f.now;
  fl.rcv_next = fl.snd_una = fl.snd_nxt = fl.max_sent = fl.packets;
  f.flows_finished++;
  f.bytes_finished += fl.size_bytes;
  if (!f.deps.Empty()) {
    f.deps.SenderSent(f, id);
    f.deps.ReceiverDone(f, id);
    f.deps.SenderDone(f, id);
  }
}

}  // namespace rocesim
