#include "net/switch.h"

#include "net/egress_inl.h"
#include "net/fabric.h"
#include "net/switch_forward.h"

namespace rocesim {

void Switch::Init(uint32_t node, PortId first_port, const SwitchConfig& cfg,
                  const std::vector<int64_t>& headroom_per_port, const std::vector<RedParams>& red,
                  const std::vector<int64_t>& port_rates_bps, int max_frame_bytes, uint64_t seed,
                  uint32_t route_index, uint64_t route_salt) {
  node_ = node;
  first_port_ = first_port;
  route_index_ = route_index;
  num_ports_ = static_cast<uint32_t>(headroom_per_port.size());
  route_salt_ = route_salt;
  cfg_ = &cfg;
  dscp_to_priority_ = cfg.dscp_to_priority.data();
  queue_limits_ = cfg.ecn.wred_drop_bytes > 0 || cfg.ecn.buf_max_bytes > 0;
  lossless_ = SwitchMmu::Lossless(cfg);
  mmu_.Init(cfg, headroom_per_port, lossless_, port_rates_bps);
  pfc_.Init(first_port, headroom_per_port.size(), cfg.pfc.quanta);
  egress_.Init(cfg, red, max_frame_bytes, Rng(seed, 0x5157000000ULL + node));
  cut_through_ = egress_.CanPassThrough(false);
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
