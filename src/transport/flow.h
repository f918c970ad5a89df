// A flow is one RDMA message carried by its own RoCEv2 RC queue pair. The
// requester side (sender) and the responder side (receiver) of that QP live
// here; the NIC (net/nic.cpp) runs the protocol on them.
//
// PSNs count packets from 0. ACK and NAK carry the responder's next expected
// PSN (cumulative), as RC's AETH does. Loss recovery is go-back-N from a NAK
// or a retransmission timeout.
#pragma once

#include <cstdint>

#include "cc/congestion_control.h"
#include "core/time.h"

namespace rocesim {

// The UDP source port of flow `id`'s QP: each QP gets its own, as RoCEv2
// NICs do for ECMP entropy.
inline uint16_t QpSourcePort(uint32_t id) {
  return static_cast<uint16_t>(49152 + id % 16384);
}

struct Flow {
  // What to send.
  uint32_t id = 0;
  uint32_t src = 0;
  uint32_t dst = 0;
  int64_t size_bytes = 0;
  Time start = 0;
  uint8_t priority = 3;
  uint16_t sport = 0;       // UDP source port: the QP's ECMP entropy
  uint16_t int_bytes = 0;   // INT header bytes on each data frame (hpcc.int_bytes)
  uint16_t hpcc_dport = 0;  // FlowSpec::hpcc_dport, set with the flow (fct.txt only)
  uint64_t data_key = 0;    // ECMP five-tuple key of data packets (src -> dst)
  uint64_t reply_key = 0;   // ... and of ACK / NAK / CNP (dst -> src)
  uint32_t packets = 0;     // ceil(size / mtu)
  uint32_t last_payload = 0;
  // The scenario's start rate (0: the algorithm's own; kFairStartRate) and
  // open-loop cap (0: the line rate) for this QP (scenario.h FlowSpec);
  // StartFlow resolves the cap to at most the line rate, which RunCc clamps
  // every rate to.
  int64_t start_rate_bps = 0;
  int64_t max_rate_bps = 0;
  int64_t window_cap = 0;  // host.window: bdp: one BDP of the path in bytes (0: none)

  // Requester (sender) state.
  uint32_t snd_nxt = 0;      // next PSN to transmit
  uint32_t snd_una = 0;      // oldest unacknowledged PSN
  uint32_t max_sent = 0;     // one past the highest PSN ever sent (retransmit accounting)
  int64_t rate_bps = 0;      // per-QP rate limiter (set by congestion control)
  Time ps_per_byte = 0;      // 8e12 / rate_bps when exact, else 0 (NIC pacing shortcut)
  int64_t window_bytes = 0;  // in-flight cap; 0 = none (set by congestion control)
  Time next_avail = 0;       // rate limiter: earliest time of the next packet
  // Rate limiter reference: the next packet (or burst) may start one
  // pace_wire-bytes time at the QP's rate after pace_from.
  Time pace_from = 0;
  uint32_t pace_wire = 0;
  Time burst_start = 0;        // segment pacing: when the current burst began
  uint32_t burst_payload = 0;  // payload bytes sent in it so far (0 = between bursts)
  uint32_t burst_wire = 0;     // its bytes on the wire so far
  CcState cc;                  // what congestion control reads and sets
  Time rto_deadline = 0;
  Time sent = -1;       // when its last packet first left (-1: not yet)
  bool active = false;  // in the NIC's round-robin list

  // Responder (receiver) state.
  uint32_t rcv_next = 0;   // next expected PSN
  uint32_t since_ack = 0;  // in-order packets not yet acknowledged (coalescing)
  bool nak_outstanding = false;
  bool ce_since_ack = false;
  Time ack_due = 0;        // coalescing: ACK the pending packets by then
  Time last_rx_sent = 0;   // send time of the newest in-order packet (echoed)
  Time last_cnp = -1;      // NP: time the last CNP went out for this QP
  Time received = -1;      // when the last byte first arrived (-1: not yet)
  bool sends_cnps = true;  // NP on: this flow's algorithm is signalled by CNPs

  // Outcome.
  Time finish = -1;  // requester saw the final ACK
  Time ideal_fct = 0;
  uint32_t cnps_received = 0;
  uint32_t ecn_marked = 0;  // CE-marked data packets seen by the responder

  bool Finished() const { return finish >= 0; }
};

// Copies the responder (receiver) side of `from` into `to`: a partitioned
// run (sim/partitioned_run.h) merges each flow from the partition of its
// sender and the partition of its receiver.
inline void CopyResponder(const Flow& from, Flow& to) {
  to.rcv_next = from.rcv_next;
  to.since_ack = from.since_ack;
  to.nak_outstanding = from.nak_outstanding;
  to.ce_since_ack = from.ce_since_ack;
  to.ack_due = from.ack_due;
  to.last_rx_sent = from.last_rx_sent;
  to.last_cnp = from.last_cnp;
  to.received = from.received;
  to.ecn_marked = from.ecn_marked;
}

}  // namespace rocesim
