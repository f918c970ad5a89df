// The members of EgressPolicy (net/egress.h) that touch the Fabric: INT
// stamping, ECN marking and the wake-up of an all-paused port. Included only
// by the switches' .cpp files (after the Fabric is complete), so that both
// architectures inline the same per-packet code.
#pragma once

#include <algorithm>

#include "net/egress.h"
#include "net/fabric.h"

namespace rocesim {

inline void EgressPolicy::WakeWhenUnpaused(Fabric& f, PortId out) {
  const Port& p = f.ports[out];
  Time wake = kTimeMax;
  for (int i = 0; i < kNumPriorities; ++i)
    if (!p.queue[i].Empty() && p.paused_until[i] > f.now) wake = std::min(wake, p.paused_until[i]);
  if (wake != kTimeMax) f.ArmWake(out, wake);
}

inline PktId EgressPolicy::Next(Fabric& f, PortId out, int* q) {
  Port& p = f.ports[out];
  if (p.queued_frames == 0) return kNoPkt;
  *q = PickQueue(p, f.now, f.pool);
  if (*q < 0) {
    // Everything queued is paused: wake when the first pause runs out.
    WakeWhenUnpaused(f, out);
    return kNoPkt;
  }
  const PktId id = TakeFrom(p, f.pool, *q);
  // The head of a non-empty queue: telling the compiler spares the caller's
  // kNoPkt test on this path.
  if (id == kNoPkt) __builtin_unreachable();
  return id;
}

inline void EgressPolicy::Depart(Fabric& f, Port& p, int local, PktId id, int q) {
  Packet& pkt = f.pool[id];
  if (f.int_enabled && pkt.type == PktType::kData) {
    // HPCC INT, stamped as the packet leaves: time, bytes sent, queue, link rate.
    IntStack& st = f.IntOf(id);
    if (st.count < IntStack::kMaxHops)
      st.hops[st.count++] =
          IntHop{f.now, p.tx_bytes, static_cast<uint32_t>(p.queue[q].bytes), p.rate_bps};
  }
  // ECN on the instantaneous egress queue this packet leaves behind.
  if (mark_on_dequeue_) MaybeMark(f, p, local, pkt, p.queue[q].bytes);
}

inline void EgressPolicy::Arrive(Fabric& f, Port& p, int local, Packet& pkt, int q) {
  if (mark_on_enqueue_) MaybeMark(f, p, local, pkt, p.queue[q].bytes);
}

inline void EgressPolicy::MaybeMark(Fabric& f, Port& p, int local, Packet& pkt,
                                    int64_t queue_bytes) {
  if (pkt.ecn != kEct0 && pkt.ecn != kEct1) return;
  const double prob = RedMarkProbability(red_[local], queue_bytes);
  if (prob >= 1.0 || (prob > 0.0 && rng_.Uniform() < prob)) {
    pkt.ecn = kCe;
    p.counters.ecn_marks++;
    f.counters.ecn_marks++;
  }
}

}  // namespace rocesim
