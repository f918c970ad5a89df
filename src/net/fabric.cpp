#include "net/fabric.h"

#include "ops/watchdog.h"
#include "stats/port_capture.h"

namespace rocesim {

[[gnu::always_inline]] inline bool Fabric::HasBacklog(const Port& p) const {
  if (p.control_pending || p.queued_frames > 0) return true;
  return static_cast<NodeKind>(p.TxKind()) == NodeKind::kHost && nics[p.TxIndex()].HasDataToSend();
}

[[gnu::always_inline]] inline PktId Fabric::NextFrame(PortId port) {
  Port& p = ports[port];
  if (p.control_pending) return p.PopControl(pool);
  switch (static_cast<NodeKind>(p.TxKind())) {
    case NodeKind::kSharedBuffer:
      return switches[p.TxIndex()].Dequeue(*this, port);
    case NodeKind::kCioq:
      return cioq_switches[p.TxIndex()].Dequeue(*this, port);
    case NodeKind::kHost:
      break;
  }
  return nics[p.TxIndex()].Dequeue(*this);
}

void Fabric::Transmit(PortId port) {
  Port& p = ports[port];
  if (p.tx_hold) [[unlikely]]
    return;  // src/ops/: the transmitter holds until the link is up or the server back
  // Choosing the frame can re-enter KickPort for this port (a congestion-control
  // callback, a pause frame); marking the transmitter busy meanwhile keeps
  // those nested kicks from starting a second frame at the same instant.
  const Time idle_since = p.busy_until;
  p.busy_until = kTimeMax;
  const PktId id = NextFrame(port);
  if (id == kNoPkt) {
    p.busy_until = idle_since;
    return;  // nothing eligible; NextFrame armed any wake it needs
  }
  Launch(port, p, id, pool[id].size);
  if (HasBacklog(p)) ArmWake(port, p.busy_until);
}

void Fabric::SendPause(PortId port, int prio, int quanta) {
  const PktId id = pool.Alloc();
  Packet& pkt = pool[id];
  pkt.type = PktType::kPause;
  pkt.size = 64;  // minimum Ethernet frame
  pkt.priority = static_cast<uint8_t>(prio);
  pkt.psn = static_cast<uint32_t>(quanta);
  Port& p = ports[port];
  p.PushControl(pool, id);
  p.counters.pause_sent++;
  counters.pause_sent++;
  KickPort(port);
}

uint32_t Fabric::StoreRcmNote(const RcmNotification& n) {
  if (rcm_free_notes_.empty()) {
    rcm_notes_.push_back(n);
    return static_cast<uint32_t>(rcm_notes_.size() - 1);
  }
  const uint32_t slot = rcm_free_notes_.back();
  rcm_free_notes_.pop_back();
  rcm_notes_[slot] = n;
  return slot;
}

void Fabric::SendRcmNotification(PortId port, int prio, const RcmNotification& n) {
  const uint32_t slot = StoreRcmNote(n);
  const PktId id = pool.Alloc();
  Packet& pkt = pool[id];
  pkt.type = PktType::kRcmNotify;
  pkt.size = static_cast<uint32_t>(n.WireBytes());
  pkt.priority = static_cast<uint8_t>(prio);
  pkt.psn = slot;
  Port& p = ports[port];
  p.PushControl(pool, id);
  counters.rcm_notifications_sent++;
  counters.rcm_notification_bytes += pkt.size;
  KickPort(port);
}

void Fabric::FreeControlFrame(PktId id) {
  if (pool[id].type == PktType::kRcmNotify) rcm_free_notes_.push_back(pool[id].psn);
  pool.Free(id);
}

void Fabric::OnPauseFrame(PortId port, PktId id) {
  Port& p = ports[port];
  const Packet& pkt = pool[id];
  const int prio = pkt.priority;
  const int quanta = static_cast<int>(pkt.psn);
  p.counters.pause_received++;
  counters.pause_received++;
  if (pfc_trace_enabled) [[unlikely]]
    pfc_trace.push_back(
        {now, p.node, p.local, static_cast<uint8_t>(prio), static_cast<uint8_t>(quanta != 0)});
  if (p.wd_ignore >> prio & 1) {  // a triggered watchdog no longer honours them
    pool.Free(id);
    return;
  }
  const bool was_paused = p.paused_until[prio] > now;
  // Paused time is accounted up to the moment the pause is replaced.
  if (p.paused_until[prio] > now) p.counters.paused_time -= p.paused_until[prio] - now;
  if (quanta == 0) {
    p.SetPausedUntil(prio, now, now);
  } else {
    // One quantum is 512 bit times at the port's speed.
    p.SetPausedUntil(prio, now + SerializationTime(int64_t{quanta} * 64, p.rate_bps), now);
    p.counters.paused_time += p.paused_until[prio] - now;
  }
  pool.Free(id);
  if (quanta == 0) KickPort(port);
  if (switch_watchdog && quanta != 0 && !was_paused && nodes[p.node].is_switch)
    ops::OnPauseStarted(*this, port, prio);
}

void Fabric::CountDrop(PktId id, DropCause cause, PortId ingress) {
  const Packet& pkt = pool[id];
  counters.drops[static_cast<size_t>(cause)]++;
  counters.dropped_frames++;
  if (pkt.type == PktType::kData) counters.dropped_payload_bytes += pkt.payload;
  ports[ingress].counters.drops++;
  port_drops.Add(ingress, cause);
  pool.Free(id);
}

void Fabric::OnPfcRefresh(PortId port, int prio) {
  const Node& n = nodes[ports[port].node];
  if (n.kind == NodeKind::kCioq) {
    cioq_switches[n.index].OnPfcRefresh(*this, port, prio);
  } else {
    switches[n.index].OnPfcRefresh(*this, port, prio);
  }
}

void Fabric::DrainSwitchQueue(PortId port, int prio, DropCause cause) {
  const Node& n = nodes[ports[port].node];
  if (n.kind == NodeKind::kCioq) {
    cioq_switches[n.index].DrainQueue(*this, port, prio, cause);
  } else {
    switches[n.index].DrainQueue(*this, port, prio, cause);
  }
}

void Fabric::BreakSwitchHead(PortId port, int prio) {
  const Node& n = nodes[ports[port].node];
  if (n.kind == NodeKind::kCioq) {
    cioq_switches[n.index].BreakHead(*this, port, prio);
  } else {
    switches[n.index].BreakHead(*this, port, prio);
  }
}

uint64_t Fabric::FramesInNetwork(uint64_t* payload_bytes) const {
  uint64_t frames = 0, bytes = 0;
  auto count = [&](PktId id) {
    const Packet& pkt = pool[id];
    // Link-local control frames are not host traffic.
    if (pkt.type == PktType::kPause || pkt.type == PktType::kRcmNotify) return;
    ++frames;
    if (pkt.type == PktType::kData) bytes += pkt.payload;
  };
  auto walk = [&](const PacketFifo& fifo) {
    for (PktId id = fifo.head; id != kNoPkt; id = pool[id].next) count(id);
  };
  for (const Port& p : ports) {
    p.wire.ForEach(pool, [&](PktId id, Time) { count(id); });
    // Frames still in a NIC's own queue have not been injected yet.
    if (nodes[p.node].is_switch)
      for (const PacketFifo& q : p.queue) walk(q);
  }
  // Frames in a CIOQ switch's VOQs, not yet in an output queue.
  for (const CioqSwitch& s : cioq_switches)
    s.ForEachQueued(pool, [&](PktId id) {
      ++frames;
      if (pool[id].type == PktType::kData) bytes += pool[id].payload;
    });
  // Frames waiting in a slow receiver's buffer (src/ops/slow_receiver.h).
  for (const Nic& n : nics) walk(n.fault.rx_queue);
  if (payload_bytes) *payload_bytes = bytes;
  return frames;
}

void Fabric::CaptureFrame(PortId port, PktId id, bool received) {
  captures->Record(*this, port, id, received);
}

}  // namespace rocesim
