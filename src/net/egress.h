// How a switch serves the per-priority queues of one output port (DESIGN.md
// §3), shared by both switch architectures so that they schedule, mark and
// stamp identically: the shared-buffer switch (src/net/switch.h) serves its
// egress queues with it, the CIOQ switch (src/net/cioq_switch.h, seed 002
// §4.1) its output queues. Both keep their queues in Port::queue[prio].
//
//  - strict priority for the control classes (a higher priority first), DWRR
//    among the others (quantum = weight x maximum frame);
//  - RED/ECN on the instantaneous queue the departing frame leaves behind;
//  - HPCC INT stamped as the frame leaves.
//
// The scheduling half needs only the port and is defined here; the departure
// half touches the Fabric (INT side table, counters) and is defined in
// net/egress_inl.h, which only the switches' .cpp files include. Everything is
// inline: this is the per-packet path of every switch.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <vector>

#include "core/packet.h"
#include "core/rng.h"
#include "core/time.h"
#include "net/port.h"
#include "net/red.h"
#include "scenario/scenario.h"

namespace rocesim {

struct Fabric;

class EgressPolicy {
 public:
  // red: ECN parameters per local port; max_frame_bytes: the DWRR quantum unit.
  void Init(const SwitchConfig& cfg, const std::vector<RedParams>& red, int max_frame_bytes,
            Rng rng) {
    mark_on_dequeue_ = cfg.ecn.enabled && cfg.ecn.mark_on == EcnMarkPoint::kDequeue;
    mark_on_enqueue_ = cfg.ecn.enabled && cfg.ecn.mark_on == EcnMarkPoint::kEnqueue;
    for (int p : cfg.strict_priorities) {
      strict_[p] = true;
      strict_mask_ |= 1u << p;
    }
    for (int q = 0; q < kNumPriorities; ++q) quantum_[q] = cfg.dwrr_weights[q] * max_frame_bytes;
    red_ = red;
    rng_ = rng;
    marks_empty_queue_ = false;
    for (const RedParams& r : red) marks_empty_queue_ |= RedMarkProbability(r, 0) > 0.0;
  }

  // Whether a lone data-class frame of queue `q` may skip the queue (see
  // Switch::Forward): Depart would not stamp INT or draw a RED mark for the
  // empty queue it leaves behind.
  bool CanPassThrough(bool int_enabled) const { return !int_enabled && !marks_empty_queue_; }
  // The scheduling state after PickQueue and TakeFrom served the lone frame
  // of queue `q`: a strict queue keeps none; a DWRR queue that empties ends
  // its turn with no deficit, and the round robin moves past it.
  void PassThrough(Port& p, int q) const {
    if (strict_[q]) return;
    p.deficit[q] = 0;
    p.dwrr_next = static_cast<uint8_t>((q + 1) % kNumPriorities);
    p.dwrr_turn_started = false;
  }

  // The queue of `p` to serve next, or -1 when every non-empty queue is paused.
  int PickQueue(Port& p, Time now, const PacketPool& pool) {
    unsigned eligible = p.nonempty;
    for (unsigned m = eligible; m != 0; m &= m - 1) {
      const int q = std::countr_zero(m);
      if (p.Paused(q, now)) eligible &= ~(1u << q);
    }
    if (eligible == 0) return -1;
    if (const unsigned strict = eligible & strict_mask_)
      return 31 - std::countl_zero(strict);  // the highest strict priority
    const unsigned dwrr = eligible & ~strict_mask_;
    // dwrr != 0 here (eligible has no strict bit), so this tests for one bit
    // set: std::has_single_bit is a libgcc popcount call without -mpopcnt.
    if ((dwrr & (dwrr - 1)) == 0) {
      // One contender: the round robin would walk past the others (empty, so
      // their deficit is already 0, or paused, so untouched) to it.
      const int q = std::countr_zero(dwrr);
      if (p.dwrr_next != q || !p.dwrr_turn_started ||
          static_cast<int64_t>(pool[p.queue[q].head].size) > p.deficit[q]) {
        p.deficit[q] += quantum_[q];
        p.dwrr_next = static_cast<uint8_t>(q);
        p.dwrr_turn_started = true;
      }
      return q;
    }
    // DWRR over the remaining priorities; a queue's turn adds one quantum.
    for (int step = 0; step < 2 * kNumPriorities + 1; ++step) {
      const int q = p.dwrr_next;
      if (dwrr >> q & 1) {
        if (!p.dwrr_turn_started) {
          p.deficit[q] += quantum_[q];
          p.dwrr_turn_started = true;
        }
        if (static_cast<int64_t>(pool[p.queue[q].head].size) <= p.deficit[q]) return q;
      } else if (p.queue[q].Empty()) {
        p.deficit[q] = 0;
      }
      p.dwrr_next = static_cast<uint8_t>((q + 1) % kNumPriorities);
      p.dwrr_turn_started = false;
    }
    return -1;
  }

  // Takes the head of queue `q` (chosen by PickQueue) and charges DWRR for it.
  PktId TakeFrom(Port& p, PacketPool& pool, int q) {
    const PktId id = p.DequeueFrom(pool, q);
    if (!strict_[q]) {
      p.deficit[q] -= static_cast<int32_t>(pool[id].size);
      if (p.queue[q].Empty()) {
        p.deficit[q] = 0;
        p.dwrr_next = static_cast<uint8_t>((q + 1) % kNumPriorities);
        p.dwrr_turn_started = false;
      }
    }
    return id;
  }

  // PickQueue found only paused queues: wake `out` when the first pause runs
  // out (net/egress_inl.h).
  static void WakeWhenUnpaused(Fabric& f, PortId out);
  // A switch's dequeue step: the next frame of port `out` taken off its queue
  // (its queue in `*q`), or kNoPkt when nothing is queued or everything
  // queued is paused (then a wake is armed). net/egress_inl.h.
  PktId Next(Fabric& f, PortId out, int* q);
  // The frame `id` leaves queue `q` of local port `local` (port `p`): INT
  // stamp, then ECN on the queue it leaves behind (net/egress_inl.h).
  // Always inlined: a call here costs the shared-buffer switch ~1% of its
  // run time (cachegrind, examples/websearch-incast.yaml).
  [[gnu::always_inline]] inline void Depart(Fabric& f, Port& p, int local, PktId id, int q);
  // The frame `pkt` is about to join queue `q` of local port `local` (port
  // `p`): with ecn.mark_on enqueue, RED on the queue it finds.
  [[gnu::always_inline]] inline void Arrive(Fabric& f, Port& p, int local, Packet& pkt, int q);

 private:
  // RED's mark for `pkt` (if ECN-capable) at `queue_bytes` (net/egress_inl.h).
  inline void MaybeMark(Fabric& f, Port& p, int local, Packet& pkt, int64_t queue_bytes);

  // ecn.enabled and mark_on, members: Depart or Arrive reads one per frame.
  bool mark_on_dequeue_ = false;
  bool mark_on_enqueue_ = false;
  bool marks_empty_queue_ = false;  // some port's RED marks at 0 bytes (K_min < 0)
  std::array<bool, kNumPriorities> strict_{};
  unsigned strict_mask_ = 0;  // bit p: priority p is strict (a higher p goes first)
  std::array<int32_t, kNumPriorities> quantum_{};
  std::vector<RedParams> red_;  // per local port
  Rng rng_;
};

}  // namespace rocesim
