#include "net/cioq_switch.h"

#include <fmt/format.h>

#include "net/egress_inl.h"
#include "net/fabric.h"
#include "net/rr_arbiter.h"
#include "ops/watchdog.h"

namespace rocesim {

void CioqSwitch::Init(uint32_t node, PortId first_port, const SwitchConfig& cfg,
                      const std::vector<int64_t>& headroom_per_port,
                      const std::vector<RedParams>& red, int max_frame_bytes, uint64_t seed) {
  node_ = node;
  first_port_ = first_port;
  num_ports_ = static_cast<int>(headroom_per_port.size());
  cfg_ = &cfg;
  input_queue_bytes_ = cfg.cioq.input_queue_bytes;
  output_queue_bytes_ = cfg.cioq.output_queue_bytes;
  if (cfg.pfc.enabled)
    for (int p : cfg.pfc.priorities) lossless_[p] = true;
  pfc_.Init(first_port, headroom_per_port.size(), cfg.pfc.quanta);
  // The same ECN stream per switch node as the shared-buffer switch.
  egress_.Init(cfg, red, max_frame_bytes, Rng(seed, 0x5157000000ULL + node));
  xoff_at_.resize(headroom_per_port.size());
  for (size_t i = 0; i < headroom_per_port.size(); ++i)
    xoff_at_[i] = input_queue_bytes_ - headroom_per_port[i];
  const size_t ports = headroom_per_port.size();
  in_bytes_.assign(ports * kNumPriorities, 0);
  xoff_.assign(ports * kNumPriorities, 0);
  voq_.assign(ports * kNumPriorities * ports, VoqFifo{});
  words_ = (ports + 63) / 64;
  requests_.assign(ports * kNumPriorities * words_, 0);
  rr_next_.assign(ports * kNumPriorities, 0);
  if (cfg.rcm.enabled) rcm_ = std::make_unique<CioqRcm>(cfg.rcm, *this, seed);
}

PortId CioqSwitch::Route(Fabric& f, const Packet& pkt, int prio) {
  const PortId ecmp = f.routing.SelectPort(f, node_, pkt);
  if (!rcm_) return ecmp;
  // Seed 002 §3.4 SAR: data and control of a flow alike (a flow key is one
  // direction of one QP).
  return first_port_ +
         static_cast<PortId>(rcm_->Route(f, pkt, prio, static_cast<int>(ecmp - first_port_)));
}

void CioqSwitch::Receive(Fabric& f, PortId in, PktId id) {
  Packet& pkt = f.pool[id];
  if (pkt.type == PktType::kPause) {
    f.OnPauseFrame(in, id);
    return;
  }
  if (pkt.type == PktType::kRcmNotify) [[unlikely]] {
    if (rcm_) rcm_->OnNotification(f, static_cast<int>(in - first_port_), id);
    f.FreeControlFrame(id);
    return;
  }
  const int prio = cfg_->dscp_to_priority[pkt.dscp];
  const int local_in = static_cast<int>(in - first_port_);
  const PortId out = Route(f, pkt, prio);
  const Port& egress = f.ports[out];
  if (egress.drop_mask) [[unlikely]] {
    if (egress.drop_mask >> prio & 1) {  // link down, or PFC watchdog with action drop
      f.CountDrop(id, egress.link_down ? DropCause::kLinkDown : DropCause::kWatchdog, in);
      return;
    }
  }
  const size_t pg = Pg(local_in, prio);
  if (in_bytes_[pg] + pkt.size > input_queue_bytes_) {
    if (lossless_[prio]) {
      // Only when the headroom was too small for what the link still
      // delivered after XOFF; pause all the same.
      if (!xoff_[pg]) {
        xoff_[pg] = 1;
        pfc_.SendXoff(f, in, prio);
      }
      f.CountDrop(id, DropCause::kHeadroomOverflow, in);
    } else {
      f.CountDrop(id, DropCause::kBufferFull, in);
    }
    return;
  }
  pkt.in_port = static_cast<uint16_t>(local_in);
  pkt.priority = static_cast<uint8_t>(prio);
  const int local_out = static_cast<int>(out - first_port_);
  VoqFifo& v = voq_[Voq(local_in, local_out, prio)];
  pkt.next = kNoPkt;
  if (v.tail == kNoPkt) {
    v.head = id;
    SetRequest(local_in, local_out, prio, true);
  } else {
    f.pool[v.tail].next = id;
  }
  v.tail = id;
  in_bytes_[pg] += pkt.size;
  if (rcm_) [[unlikely]]
    rcm_->OnVoqPush(f, local_in, local_out, prio, pkt.size, in_bytes_[pg]);

  const bool moved = Transfer(f, local_out, prio);
  // The input queue's level once the crossbar has taken what it can (a frame
  // for an output queue with room never counts towards a pause).
  if (lossless_[prio] && !xoff_[pg] && in_bytes_[pg] >= xoff_at_[static_cast<size_t>(local_in)]) {
    xoff_[pg] = 1;
    pfc_.SendXoff(f, in, prio);
  }
  if (moved) f.KickPort(out);
}

int CioqSwitch::PickInput(int out, int prio) const {
  return NextRequester(Requests(out, prio), num_ports_, rr_next_[Oq(out, prio)]);
}

void CioqSwitch::OnGranted(int out, int prio, int in) {
  rr_next_[Oq(out, prio)] = static_cast<uint16_t>((in + 1) % num_ports_);
}

void CioqSwitch::SetRequest(int in, int out, int prio, bool on) {
  uint64_t& word = requests_[Oq(out, prio) * words_ + static_cast<size_t>(in / 64)];
  const uint64_t bit = uint64_t{1} << (in % 64);
  word = on ? word | bit : word & ~bit;
}

PktId CioqSwitch::PopVoq(Fabric& f, int in, int out, int prio) {
  VoqFifo& v = voq_[Voq(in, out, prio)];
  const PktId id = v.head;
  v.head = f.pool[id].next;
  if (v.head == kNoPkt) {
    v.tail = kNoPkt;
    SetRequest(in, out, prio, false);
  }
  in_bytes_[Pg(in, prio)] -= f.pool[id].size;
  if (rcm_) [[unlikely]]
    rcm_->OnVoqPop(in, out, prio, f.pool[id].size);
  return id;
}

bool CioqSwitch::Transfer(Fabric& f, int out, int prio) {
  Port& p = f.ports[first_port_ + static_cast<PortId>(out)];
  bool moved = false;
  for (;;) {
    const int in = rcm_ ? rcm_->PickInput(f, out, prio) : PickInput(out, prio);
    if (in < 0) break;
    const PktId id = voq_[Voq(in, out, prio)].head;
    const Packet& pkt = f.pool[id];
    // The granted head waits for room; the arbiter does not skip past it.
    if (p.queue[prio].bytes + pkt.size > output_queue_bytes_) break;
    PopVoq(f, in, out, prio);
    OnGranted(out, prio, in);
    if (rcm_) [[unlikely]]
      rcm_->OnGranted(f, out, prio, pkt);
    // WRED drop of non-ECT data (seed 001 §2.1) on the output queue it enters.
    if (cfg_->ecn.wred_drop_bytes > 0 && pkt.type == PktType::kData && pkt.ecn == kNotEct &&
        p.queue[prio].bytes > cfg_->ecn.wred_drop_bytes) {
      f.CountDrop(id, DropCause::kWred, first_port_ + static_cast<PortId>(in));
    } else {
      egress_.Arrive(f, p, out, f.pool[id], prio);
      const bool fills_paused = f.switch_watchdog && ((p.pause_mask & ~p.nonempty) >> prio & 1);
      p.Enqueue(f.pool, prio, id);
      if (fills_paused) [[unlikely]]
        ops::OnPausedQueueFilled(f, first_port_ + static_cast<PortId>(out), prio);
      moved = true;
      if (rcm_) [[unlikely]]
        rcm_->OnOutputEnqueue(f, out, prio, pkt, p.queue[prio].bytes);
    }
    // May start transmissions elsewhere (XON); the loop re-reads all state.
    if (lossless_[prio]) CheckResume(f, in, prio);
  }
  return moved;
}

void CioqSwitch::CheckResume(Fabric& f, int in, int prio) {
  const size_t pg = Pg(in, prio);
  if (!xoff_[pg]) return;
  const int64_t bytes = in_bytes_[pg];
  if (bytes == 0 || bytes + cfg_->pfc.xon_offset_bytes <= xoff_at_[static_cast<size_t>(in)]) {
    xoff_[pg] = 0;
    f.SendPause(first_port_ + static_cast<PortId>(in), prio, 0);
  }
}

void CioqSwitch::OnPfcRefresh(Fabric& f, PortId port, int prio) {
  const int local = static_cast<int>(port - first_port_);
  // Stale when the input queue resumed, or resumed and paused again since.
  if (!xoff_[Pg(local, prio)] || !pfc_.RefreshDue(f, port, prio)) return;
  pfc_.SendXoff(f, port, prio);
}

PktId CioqSwitch::Dequeue(Fabric& f, PortId out) {
  int q = 0;
  const PktId id = egress_.Next(f, out, &q);
  if (id == kNoPkt) return kNoPkt;
  Port& p = f.ports[out];
  const int local = static_cast<int>(out - first_port_);
  // INT and ECN see the output queue this frame leaves behind, before the
  // crossbar refills it.
  egress_.Depart(f, p, local, id, q);
  if (rcm_) [[unlikely]]
    rcm_->OnOutputDequeue(local, q, p.queue[q].bytes);
  Transfer(f, local, q);
  return id;
}

void CioqSwitch::DrainQueue(Fabric& f, PortId out, int prio, DropCause cause) {
  const int local = static_cast<int>(out - first_port_);
  // VOQs first, so that nothing can move into the output queue meanwhile;
  // inputs resume only once both are empty.
  for (int in = 0; in < num_ports_; ++in)
    while (VoqNonEmpty(in, local, prio))
      f.CountDrop(PopVoq(f, in, local, prio), cause, first_port_ + static_cast<PortId>(in));
  Port& p = f.ports[out];
  while (!p.queue[prio].Empty()) {
    const PktId id = p.DequeueFrom(f.pool, prio);
    f.CountDrop(id, cause, first_port_ + f.pool[id].in_port);
  }
  p.deficit[prio] = 0;
  if (lossless_[prio])
    for (int in = 0; in < num_ports_; ++in) CheckResume(f, in, prio);
}

void CioqSwitch::BreakHead(Fabric& f, PortId out, int prio) {
  Port& p = f.ports[out];
  if (p.queue[prio].Empty()) return;
  const int in = f.pool[p.queue[prio].head].in_port;
  const int local = static_cast<int>(out - first_port_);
  while (!p.queue[prio].Empty() && xoff_[Pg(in, prio)]) {
    const PktId id = p.DequeueFrom(f.pool, prio);
    f.CountDrop(id, DropCause::kDeadlockBreak, first_port_ + f.pool[id].in_port);
    Transfer(f, local, prio);  // the crossbar refills from the VOQs
  }
  if (p.queue[prio].Empty()) p.deficit[prio] = 0;
}

std::string CioqSwitch::CheckCounts(const PacketPool& pool) const {
  std::vector<int64_t> in_voqs(in_bytes_.size(), 0);
  for (int out = 0; out < num_ports_; ++out)
    for (int prio = 0; prio < kNumPriorities; ++prio)
      for (int in = 0; in < num_ports_; ++in)
        for (PktId id = voq_[Voq(in, out, prio)].head; id != kNoPkt; id = pool[id].next)
          in_voqs[Pg(in, prio)] += pool[id].size;
  for (int in = 0; in < num_ports_; ++in)
    for (int prio = 0; prio < kNumPriorities; ++prio) {
      const size_t pg = Pg(in, prio);
      if (in_bytes_[pg] != in_voqs[pg])
        return fmt::format("input {} priority {}: {} B counted, its VOQs hold {} B", in, prio,
                           in_bytes_[pg], in_voqs[pg]);
    }
  return {};
}

std::string CioqSwitch::CheckXoffs() const {
  for (size_t pg = 0; pg < xoff_.size(); ++pg)
    if (xoff_[pg] && in_bytes_[pg] == 0)
      return fmt::format("input {} priority {}: XOFF outstanding on an empty input queue",
                         pg / kNumPriorities, pg % kNumPriorities);
  return {};
}

}  // namespace rocesim
