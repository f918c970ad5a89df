#include "net/switch.h"

#include "net/egress_inl.h"
#include "net/fabric.h"

namespace rocesim {

void Switch::Init(uint32_t node, PortId first_port, const SwitchConfig& cfg,
                  const std::vector<int64_t>& headroom_per_port, const std::vector<RedParams>& red,
                  int max_frame_bytes, uint64_t seed, uint32_t route_index, uint64_t route_salt) {
  node_ = node;
  first_port_ = first_port;
  route_index_ = route_index;
  num_ports_ = static_cast<uint32_t>(headroom_per_port.size());
  route_salt_ = route_salt;
  cfg_ = &cfg;
  dscp_to_priority_ = cfg.dscp_to_priority.data();
  queue_limits_ = cfg.ecn.wred_drop_bytes > 0 || cfg.ecn.buf_max_bytes > 0;
  if (cfg.pfc.enabled)
    for (int p : cfg.pfc.priorities) lossless_[p] = true;
  mmu_.Init(cfg, headroom_per_port, lossless_);
  pfc_.Init(first_port, headroom_per_port.size(), cfg.pfc.quanta);
  egress_.Init(cfg, red, max_frame_bytes, Rng(seed, 0x5157000000ULL + node));
  cut_through_ = egress_.CanPassThrough(false);
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

  if (queue_limits_) [[unlikely]] {  // neither configured by default: one test per frame
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
  }
  // The common case (70% of hops on the k8 benchmark): the egress port is idle
  // with nothing queued, so the frame would be enqueued, dequeued at once and
  // put on the wire, its buffer taken and given back. Doing only the last
  // step gives the same state, counters and events.
  if (cut_through_ && f.CanCutThrough(egress) && !egress.Paused(prio, f.now) && !f.int_enabled &&
      mmu_.PassesThrough(local_in, prio, pkt.size - uncharged)) [[likely]] {
    pkt.in_port = static_cast<uint16_t>(local_in);
    pkt.priority = static_cast<uint8_t>(prio);
    pkt.uncharged = 0;
    egress_.PassThrough(egress, prio);
    f.Launch(out, egress, id, pkt.size);
    return;
  }
  const Admission a = mmu_.Admit(local_in, prio, pkt.size - uncharged);
  if (a != Admission::kAdmitted) {
    // A lossless PG that overflows (e.g. configured with no headroom) must
    // still pause its upstream.
    if (lossless_[prio] && !mmu_.Xoff(local_in, prio)) {
      mmu_.Xoff(local_in, prio) = 1;
      pfc_.SendXoff(f, in, prio);
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
    pfc_.SendXoff(f, in, prio);
  }
  f.KickPort(out);
}

void Switch::Receive(Fabric& f, PortId in, PktId id) {
  Packet& pkt = f.pool[id];
  if (pkt.type == PktType::kPause) {
    f.OnPauseFrame(in, id);
    return;
  }
  const int prio = dscp_to_priority_[pkt.dscp];
  // The IP TTL and the MAC table (SIGCOMM'16 §4.2) matter only on rare paths,
  // so one compare covers both: slow_ttl_ is 0 (an expired TTL) unless some
  // MAC entry is missing here, then 255 (every packet; src/net/switch_flood.cpp).
  if (--pkt.ttl <= slow_ttl_) [[unlikely]] {
    ReceiveUnusual(f, in, id, prio);
    return;
  }
  // The flow's cached route (net/flow_routes.h) says where a frame of a known
  // flow goes: its hop index is the hops its TTL lost before this one.
  PortId out;
  if (!f.routes.Lookup(pkt.route, kDefaultTtl - 1u - pkt.ttl, first_port_, num_ports_, &out))
      [[unlikely]]
    out = first_port_ + f.routing.SelectByKey(route_index_, route_salt_, pkt.dst, pkt.flow_key);
  Forward(f, in, id, pkt, prio, out, 0);
}

void Switch::ForwardTo(Fabric& f, PortId in, PktId id, int prio, PortId out, uint16_t uncharged) {
  Packet& pkt = f.pool[id];
  pkt.uncharged = uncharged;  // Dequeue resets it: a frame on a wire carries 0
  Forward(f, in, id, pkt, prio, out, uncharged);
}

void Switch::OnPfcRefresh(Fabric& f, PortId port, int prio) {
  const int local = static_cast<int>(port - first_port_);
  // Stale when the PG resumed, or resumed and paused again since (a newer due time).
  if (!mmu_.Xoff(local, prio) || !pfc_.RefreshDue(f, port, prio)) return;
  pfc_.SendXoff(f, port, prio);
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

PktId Switch::Dequeue(Fabric& f, PortId out) {
  int q = 0;
  const PktId id = egress_.Next(f, out, &q);
  if (id == kNoPkt) return kNoPkt;
  Port& p = f.ports[out];
  Packet& pkt = f.pool[id];
  mmu_.Release(pkt.in_port, q, pkt.size - pkt.uncharged);
  // A flooded copy's share (switch_flood.cpp): the next switch charges it in full.
  pkt.uncharged = 0;
  // Only a lossless PG is ever paused (Forward), so its XOFF bit alone says
  // whether to look for XON, without a call per frame.
  if (mmu_.Xoff(pkt.in_port, q)) [[unlikely]]
    CheckResume(f, pkt.in_port, q);
  egress_.Depart(f, p, static_cast<int>(out - first_port_), id, q);
  return id;
}

}  // namespace rocesim
