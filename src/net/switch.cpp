#include "net/switch.h"

#include <algorithm>
#include <bit>

#include "net/fabric.h"

namespace rocesim {

void Switch::Init(uint32_t node, PortId first_port, const SwitchConfig& cfg,
                  const std::vector<int64_t>& headroom_per_port, const std::vector<RedParams>& red,
                  int max_frame_bytes, uint64_t seed) {
  node_ = node;
  first_port_ = first_port;
  cfg_ = &cfg;
  if (cfg.pfc.enabled)
    for (int p : cfg.pfc.priorities) lossless_[p] = true;
  for (int p : cfg.strict_priorities) {
    strict_[p] = true;
    strict_mask_ |= 1u << p;
  }
  for (int q = 0; q < kNumPriorities; ++q) quantum_[q] = cfg.dwrr_weights[q] * max_frame_bytes;
  mmu_.Init(cfg, headroom_per_port, lossless_);
  refresh_due_.assign(headroom_per_port.size() * kNumPriorities, 0);
  red_ = red;
  rng_ = Rng(seed, 0x5157000000ULL + node);
}

[[gnu::always_inline]] inline void Switch::Forward(Fabric& f, PortId in, PktId id, Packet& pkt,
                                                   int prio, PortId out, uint16_t uncharged) {
  const int local_in = static_cast<int>(in - first_port_);
  Port& egress = f.ports[out];
  const PacketFifo& q = egress.queue[prio];
  if (egress.drop_mask) [[unlikely]] {
    if (egress.drop_mask >> prio & 1) {  // link down, or PFC watchdog with action drop
      f.CountDrop(id, egress.link_down ? DropCause::kLinkDown : DropCause::kWatchdog, in);
      return;
    }
  }

  if (cfg_->ecn.wred_drop_bytes > 0 && pkt.type == PktType::kData && pkt.ecn == kNotEct &&
      q.bytes > cfg_->ecn.wred_drop_bytes) {
    f.CountDrop(id, DropCause::kWred, in);
    return;
  }
  // buf_max (seed 001 §2.1): the egress queue's hard cap, whatever the class.
  if (cfg_->ecn.buf_max_bytes > 0 && q.bytes + pkt.size > cfg_->ecn.buf_max_bytes) {
    f.CountDrop(id, DropCause::kBufferFull, in);
    return;
  }
  const Admission a = mmu_.Admit(local_in, prio, pkt.size - uncharged);
  if (a != Admission::kAdmitted) {
    // A lossless PG that overflows (e.g. configured with no headroom) must
    // still pause its upstream.
    if (lossless_[prio] && !mmu_.Xoff(local_in, prio)) {
      mmu_.Xoff(local_in, prio) = 1;
      SendXoff(f, in, prio);
    }
    f.CountDrop(
        id, a == Admission::kDropHeadroom ? DropCause::kHeadroomOverflow : DropCause::kBufferFull,
        in);
    return;
  }
  pkt.in_port = static_cast<uint16_t>(local_in);
  pkt.priority = static_cast<uint8_t>(prio);
  egress.Enqueue(f.pool, prio, id);

  if (lossless_[prio] && !mmu_.Xoff(local_in, prio) && mmu_.ShouldPause(local_in, prio)) {
    mmu_.Xoff(local_in, prio) = 1;
    SendXoff(f, in, prio);
  }
  f.KickPort(out);
}

void Switch::Receive(Fabric& f, PortId in, PktId id) {
  Packet& pkt = f.pool[id];
  if (pkt.type == PktType::kPause) {
    f.OnPauseFrame(in, id);
    return;
  }
  const int prio = cfg_->dscp_to_priority[pkt.dscp];
  // The IP TTL and the MAC table (SIGCOMM'16 §4.2) matter only on rare paths,
  // so one compare covers both: slow_ttl_ is 0 (an expired TTL) unless some
  // MAC entry is missing here, then 255 (every packet; src/net/switch_flood.cpp).
  if (--pkt.ttl <= slow_ttl_) [[unlikely]] {
    ReceiveUnusual(f, in, id, prio);
    return;
  }
  Forward(f, in, id, pkt, prio, f.routing.SelectPort(f, node_, pkt), 0);
}

void Switch::ForwardTo(Fabric& f, PortId in, PktId id, int prio, PortId out, uint16_t uncharged) {
  Packet& pkt = f.pool[id];
  pkt.uncharged = uncharged;  // Dequeue resets it: a frame on a wire carries 0
  Forward(f, in, id, pkt, prio, out, uncharged);
}

void Switch::SendXoff(Fabric& f, PortId port, int prio) {
  f.SendPause(port, prio, cfg_->pfc.quanta);
  // Renew the pause at half its length, before the upstream's quanta run out.
  const Time refresh =
      SerializationTime(int64_t{cfg_->pfc.quanta} * 64, f.ports[port].rate_bps) / 2;
  const size_t pg = (port - first_port_) * kNumPriorities + static_cast<size_t>(prio);
  refresh_due_[pg] = f.now + refresh;
  f.Schedule(refresh_due_[pg], EventKind::kPfcRefresh, port, static_cast<uint32_t>(prio));
}

void Switch::OnPfcRefresh(Fabric& f, PortId port, int prio) {
  const int local = static_cast<int>(port - first_port_);
  const size_t pg = static_cast<size_t>(local) * kNumPriorities + static_cast<size_t>(prio);
  // Stale when the PG resumed, or resumed and paused again since (a newer due time).
  if (!mmu_.Xoff(local, prio) || f.now < refresh_due_[pg]) return;
  SendXoff(f, port, prio);
}

void Switch::CheckResume(Fabric& f, int local_port, int prio) {
  if (mmu_.Xoff(local_port, prio) && mmu_.ShouldResume(local_port, prio)) {
    mmu_.Xoff(local_port, prio) = 0;
    f.SendPause(first_port_ + local_port, prio, 0);
  }
}

void Switch::DrainQueue(Fabric& f, PortId out, int prio, DropCause cause) {
  Port& p = f.ports[out];
  while (!p.queue[prio].Empty()) {
    const PktId id = p.DequeueFrom(f.pool, prio);
    const Packet& pkt = f.pool[id];
    const int in = pkt.in_port;
    mmu_.Release(in, prio, pkt.size - pkt.uncharged);
    f.CountDrop(id, cause, first_port_ + static_cast<PortId>(in));
    if (lossless_[prio]) CheckResume(f, in, prio);
  }
  p.deficit[prio] = 0;
}

void Switch::BreakHead(Fabric& f, PortId out, int prio) {
  Port& p = f.ports[out];
  if (p.queue[prio].Empty()) return;
  const int in = f.pool[p.queue[prio].head].in_port;
  while (!p.queue[prio].Empty() && mmu_.Xoff(in, prio)) {
    const PktId id = p.DequeueFrom(f.pool, prio);
    const Packet& pkt = f.pool[id];
    const int from = pkt.in_port;
    mmu_.Release(from, prio, pkt.size - pkt.uncharged);
    f.CountDrop(id, DropCause::kDeadlockBreak, first_port_ + static_cast<PortId>(from));
    if (lossless_[prio]) CheckResume(f, from, prio);
  }
}

int Switch::PickQueue(Fabric& f, Port& p) {
  unsigned eligible = p.nonempty;
  for (unsigned m = eligible; m != 0; m &= m - 1) {
    const int q = std::countr_zero(m);
    if (p.Paused(q, f.now)) eligible &= ~(1u << q);
  }
  if (eligible == 0) return -1;
  if (const unsigned strict = eligible & strict_mask_)
    return 31 - std::countl_zero(strict);  // the highest strict priority
  const unsigned dwrr = eligible & ~strict_mask_;
  if (std::has_single_bit(dwrr)) {
    // One contender: the round robin would walk past the others (empty, so
    // their deficit is already 0, or paused, so untouched) to it.
    const int q = std::countr_zero(dwrr);
    if (p.dwrr_next != q || !p.dwrr_turn_started ||
        static_cast<int64_t>(f.pool[p.queue[q].head].size) > p.deficit[q]) {
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
      if (static_cast<int64_t>(f.pool[p.queue[q].head].size) <= p.deficit[q]) return q;
    } else if (p.queue[q].Empty()) {
      p.deficit[q] = 0;
    }
    p.dwrr_next = static_cast<uint8_t>((q + 1) % kNumPriorities);
    p.dwrr_turn_started = false;
  }
  return -1;
}

PktId Switch::Dequeue(Fabric& f, PortId out) {
  Port& p = f.ports[out];
  if (p.queued_frames == 0) return kNoPkt;
  const int q = PickQueue(f, p);
  if (q < 0) {
    // Everything queued is paused: wake when the first pause runs out.
    Time wake = kTimeMax;
    for (int i = 0; i < kNumPriorities; ++i)
      if (!p.queue[i].Empty() && p.paused_until[i] > f.now)
        wake = std::min(wake, p.paused_until[i]);
    if (wake != kTimeMax) f.ArmWake(out, wake);
    return kNoPkt;
  }
  const PktId id = p.DequeueFrom(f.pool, q);
  Packet& pkt = f.pool[id];
  if (!strict_[q]) {
    p.deficit[q] -= static_cast<int32_t>(pkt.size);
    if (p.queue[q].Empty()) {
      p.deficit[q] = 0;
      p.dwrr_next = static_cast<uint8_t>((q + 1) % kNumPriorities);
      p.dwrr_turn_started = false;
    }
  }
  mmu_.Release(pkt.in_port, q, pkt.size - pkt.uncharged);
  // A flooded copy's share (switch_flood.cpp): the next switch charges it in full.
  pkt.uncharged = 0;
  if (lossless_[q]) CheckResume(f, pkt.in_port, q);

  if (f.int_enabled && pkt.type == PktType::kData) {
    // HPCC INT, stamped as the packet leaves: time, bytes sent, queue, link rate.
    IntStack& st = f.IntOf(id);
    if (st.count < IntStack::kMaxHops)
      st.hops[st.count++] =
          IntHop{f.now, p.counters.tx_bytes, static_cast<uint32_t>(p.queue[q].bytes), p.rate_bps};
  }
  // ECN on the instantaneous egress queue this packet leaves behind.
  if (cfg_->ecn.enabled && (pkt.ecn == kEct0 || pkt.ecn == kEct1)) {
    const double prob = RedMarkProbability(red_[out - first_port_], p.queue[q].bytes);
    if (prob >= 1.0 || (prob > 0.0 && rng_.Uniform() < prob)) {
      pkt.ecn = kCe;
      p.counters.ecn_marks++;
      f.counters.ecn_marks++;
    }
  }
  return id;
}

}  // namespace rocesim
