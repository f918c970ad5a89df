#include "net/nic.h"

#include <algorithm>

#include "net/fabric.h"
#include "ops/slow_receiver.h"

namespace rocesim {

namespace {
constexpr int kAethBytes = 4;          // ACK extended transport header
constexpr int kCnpReservedBytes = 16;  // CNP: BTH followed by 16 reserved bytes

// Payload bytes of PSNs [from, to).
uint32_t PayloadBetween(const Flow& flow, uint32_t from, uint32_t to) {
  const uint32_t full = flow.packets > 0 ? flow.packets - 1 : 0;
  const uint64_t mtu = static_cast<uint64_t>(flow.cc.mtu_bytes);
  uint64_t bytes = uint64_t{std::min(to, full) - std::min(from, full)} * mtu;
  if (to == flow.packets && from < to) bytes += flow.last_payload;
  return static_cast<uint32_t>(bytes);
}
// SerializationTime(bytes, flow.rate_bps) without the 128-bit division that
// every data packet paid.
Time PacingTime(const Flow& flow, uint32_t bytes) {
  return SerializationTimeFast(bytes, flow.rate_bps, flow.ps_per_byte);
}
}  // namespace

void Nic::Init(uint32_t host, PortId port, const HostConfig& cfg) {
  host_ = host;
  port_ = port;
  cfg_ = &cfg;
  ctrl_prio_ = static_cast<uint8_t>(cfg.control_priority);
  ctrl_dscp_ = cfg.dscp_of_priority[cfg.control_priority];
  ack_bytes_ = static_cast<uint32_t>(cfg.header_bytes) + kAethBytes;
  cnp_bytes_ = static_cast<uint32_t>(cfg.header_bytes) + kCnpReservedBytes;
}

// Inlined into MakeDataPacket, its one caller (a call per data packet saved).
[[gnu::always_inline]] inline void Nic::Pace(Fabric& f, Flow& flow, uint32_t wire,
                                             uint32_t payload) {
  const uint32_t burst = flow.cc.burst_bytes;
  if (burst == 0) {
    flow.pace_from = f.now;
    flow.pace_wire = wire;
    flow.next_avail = f.now + PacingTime(flow, wire);
    return;
  }
  // Segment pacing: a burst's packets go back to back at line rate; the next
  // burst starts one burst-time at the QP's rate after this one began.
  if (flow.burst_payload == 0) flow.burst_start = f.now;
  flow.burst_payload += payload;
  flow.burst_wire += wire;
  if (flow.burst_payload < burst && flow.snd_nxt < flow.packets) {
    flow.next_avail = f.now + SerializationTime(wire, f.ports[port_].rate_bps);
    return;
  }
  flow.pace_from = flow.burst_start;
  flow.pace_wire = flow.burst_wire;
  flow.burst_payload = 0;
  flow.burst_wire = 0;
  flow.next_avail = flow.pace_from + PacingTime(flow, flow.pace_wire);
}

template <typename Call>
void Nic::RunCc(Fabric& f, Flow& flow, Call&& call) {
  CongestionControl* cc = f.cc[f.flows.PlaceOf(flow)].get();
  if (cc == nullptr) return;
  const auto timers_before = flow.cc.timer_at;
  const uint32_t sets_before = flow.cc.timer_sets;
  call(*cc, flow.cc);
  // At most the flow's cap (max_rate, else the line rate; set by StartFlow).
  const int64_t rate = std::clamp<int64_t>(flow.cc.rate_bps, 1, flow.max_rate_bps);
  if (rate != flow.rate_bps) {
    flow.rate_bps = rate;
    flow.ps_per_byte = ExactPsPerByte(rate);
    // The next packet (or burst) is re-paced at the new rate; a burst under way
    // finishes at line rate.
    if (flow.max_sent > 0 && flow.burst_payload == 0)
      flow.next_avail = flow.pace_from + PacingTime(flow, flow.pace_wire);
    if (flow.active && flow.next_avail <= f.now) f.KickPort(port_);
  }
  // The window congestion control sets, within host.window's cap.
  int64_t window = flow.cc.window_bytes;
  if (flow.window_cap > 0 && (window == 0 || window > flow.window_cap)) window = flow.window_cap;
  if (window != flow.window_bytes) {
    const bool opened = window == 0 || (flow.window_bytes != 0 && window > flow.window_bytes);
    flow.window_bytes = window;
    if (opened && flow.active) f.KickPort(port_);
  }
  // Most calls set no timer: skip the scan unless SetTimer ran since the
  // snapshot, in this call or in one nested in it (KickPort above can send a
  // packet of this flow, and OnSent may set timers).
  if (flow.cc.timer_sets == sets_before) return;
  for (int i = 0; i < CcState::kMaxTimers; ++i) {
    const Time at = flow.cc.timer_at[i];
    if (at != timers_before[i] && at != kTimeMax)
      f.Schedule(std::max(at, f.now), EventKind::kCcTimer, flow.id, static_cast<uint32_t>(i));
  }
}

void Nic::StartFlow(Fabric& f, uint32_t id) {
  Flow& flow = f.flows[id];
  f.routes.Compute(f, id);
  const int64_t line = f.ports[port_].rate_bps;
  // The scenario's start rate: a rate, or fair (line / (active QPs + 1),
  // counting this one), at most the line rate.
  int64_t start = 0;
  if (flow.start_rate_bps == kFairStartRate) {
    start = line / static_cast<int64_t>(active_.size() + 1);
  } else if (flow.start_rate_bps > 0) {
    start = std::min(flow.start_rate_bps, line);
  }
  // The open-loop cap (RunCc clamps every rate congestion control sets).
  if (flow.max_rate_bps <= 0 || flow.max_rate_bps > line) flow.max_rate_bps = line;
  flow.rate_bps = std::min(start > 0 ? start : line, flow.max_rate_bps);
  // host.window: bdp caps bytes in flight at one BDP of the path, at least
  // one packet (RunCc keeps every window congestion control sets within it).
  if (cfg_->window == WindowCap::kBdp) {
    flow.window_cap = std::max<int64_t>(
        cfg_->mtu_bytes,
        static_cast<int64_t>(static_cast<__int128>(line) * flow.cc.base_rtt / (8 * kSecond)));
    flow.window_bytes = flow.window_cap;
  }
  flow.ps_per_byte = ExactPsPerByte(flow.rate_bps);
  flow.next_avail = f.now;
  flow.cc.line_rate_bps = line;
  flow.cc.mtu_bytes = cfg_->mtu_bytes;
  flow.cc.message_bytes = flow.size_bytes;
  flow.cc.start_rate_bps = start;
  flow.cc.rate_bps = flow.rate_bps;
  RunCc(f, flow, [&](CongestionControl& cc, CcState& s) { cc.OnStart(f.now, s); });
  flow.rto_deadline = f.now + cfg_->rto;
  f.Schedule(flow.rto_deadline, EventKind::kQpTimeout, id);
  Activate(f, flow);
}

void Nic::Activate(Fabric& f, Flow& flow) {
  if (!flow.active) {
    flow.active = true;
    active_.push_back(flow.id);
  }
  f.KickPort(port_);
}

void Nic::Deactivate(Flow& flow) {
  if (!flow.active) return;
  flow.active = false;
  auto it = std::find(active_.begin(), active_.end(), flow.id);
  const size_t idx = static_cast<size_t>(it - active_.begin());
  active_.erase(it);
  if (rr_ > idx) --rr_;
  if (rr_ >= active_.size()) rr_ = 0;
}

PktId Nic::MakeDataPacket(Fabric& f, Flow& flow) {
  const PktId id = f.pool.Alloc();
  Packet& pkt = f.pool[id];
  const uint32_t psn = flow.snd_nxt++;
  pkt.type = PktType::kData;
  pkt.payload =
      psn + 1 == flow.packets ? flow.last_payload : static_cast<uint32_t>(cfg_->mtu_bytes);
  pkt.size = pkt.payload + static_cast<uint32_t>(cfg_->header_bytes) + flow.int_bytes;
  pkt.priority = flow.priority;
  pkt.dscp = cfg_->dscp_of_priority[flow.priority];
  pkt.ecn = cfg_->ecn_capable && flow.cc.ect ? kEct0 : kNotEct;
  pkt.flow = flow.id;
  pkt.src = flow.src;
  pkt.dst = flow.dst;
  pkt.sport = flow.sport;
  pkt.flow_key = flow.data_key;
  pkt.route = f.routes.DataRoute(flow.id);
  pkt.psn = psn;
  pkt.sent = f.now;
  if (f.int_enabled) f.IntOf(id).count = 0;
  if (psn < flow.max_sent) {
    f.counters.retransmitted_packets++;
  } else if ((flow.max_sent = psn + 1) == flow.packets) {
    // Its last packet is leaving: the next message of its connection may go.
    flow.sent = f.now;
    if (!f.deps.Empty()) f.deps.SenderSent(f, flow.id);
  }
  // Per-QP rate limiter (and segment pacing when congestion control asks for it).
  Pace(f, flow, pkt.size + static_cast<uint32_t>(f.ports[port_].ifg_bytes), pkt.payload);
  const uint32_t payload = pkt.payload;
  if (flow.cc.wants_sent)
    RunCc(f, flow, [&](CongestionControl& cc, CcState& s) { cc.OnSent(f.now, payload, s); });
  return id;
}

PktId Nic::Dequeue(Fabric& f) {
  // Control frames (most calls) take the short path; the QP scan, which
  // needs many registers around MakeDataPacket, is out of line in DequeueData.
  Port& p = f.ports[port_];
  const int ctrl = ctrl_prio_;
  if (p.queue[ctrl].Empty() || p.Paused(ctrl, f.now)) return DequeueData(f, p);
  f.counters.injected_frames++;
  return p.DequeueFrom(f.pool, ctrl);
}

PktId Nic::DequeueData(Fabric& f, Port& p) {
  const int ctrl = ctrl_prio_;
  PktId id = kNoPkt;
  Time wake = kTimeMax;
  if (!p.queue[ctrl].Empty()) wake = p.paused_until[ctrl];
  const size_t n = active_.size();
  // The QPs in turn from rr_, stepping without a division per QP: a
  // hardware divide was a sixth of this function's time (bench/NOTES.md,
  // fortieth session).
  size_t idx = rr_;
  for (size_t i = 0; i < n && id == kNoPkt; ++i, idx = idx + 1 == n ? 0 : idx + 1) {
    Flow& flow = f.flows[active_[idx]];
    if (p.Paused(flow.priority, f.now)) {
      wake = std::min(wake, p.paused_until[flow.priority]);
    } else if (flow.next_avail > f.now) {
      wake = std::min(wake, flow.next_avail);
    } else if (flow.window_bytes == 0 ||
               int64_t{flow.snd_nxt - flow.snd_una} * cfg_->mtu_bytes < flow.window_bytes) {
      id = MakeDataPacket(f, flow);
      rr_ = idx + 1 == n ? 0 : idx + 1;
      if (flow.snd_nxt >= flow.packets) Deactivate(flow);
    }
    // A window-limited QP waits for an ACK, which re-kicks the port.
  }
  if (id == kNoPkt) {
    if (wake != kTimeMax) f.ArmWake(port_, wake);
    return kNoPkt;
  }
  f.counters.injected_frames++;
  f.counters.injected_payload_bytes += f.pool[id].payload;
  return id;
}

void Nic::SendControl(Fabric& f, const Flow& flow, PktType type, uint32_t psn, bool ecn_echo,
                      Time echo_ts, PktId data) {
  const PktId id = f.pool.Alloc();
  if (f.int_enabled && type == PktType::kAck) {
    if (data != kNoPkt) {
      f.IntOf(id) = f.IntOf(data);
    } else {
      // The deadline's ACK: it covers the newest in-order packet, whose
      // stack OnData kept (the slot's own would be a stranger's).
      const auto kept = f.unacked_int.find(flow.id);
      f.IntOf(id) = kept != f.unacked_int.end() ? kept->second : IntStack{};
    }
  }
  Packet& pkt = f.pool[id];
  pkt.type = type;
  pkt.size = type == PktType::kCnp ? cnp_bytes_ : ack_bytes_;
  pkt.priority = ctrl_prio_;
  pkt.dscp = ctrl_dscp_;
  // A CNP carries ECN '01' (seed 000 §5); ACKs are not ECN-capable.
  pkt.ecn = type == PktType::kCnp ? kEct1 : kNotEct;
  pkt.ecn_echo = ecn_echo;
  pkt.flow = flow.id;
  pkt.src = host_;
  pkt.dst = flow.src;
  pkt.sport = flow.sport;
  pkt.flow_key = flow.reply_key;
  pkt.route = f.routes.ReplyRoute(flow.id);
  pkt.psn = psn;
  pkt.sent = echo_ts;
  Port& p = f.ports[port_];
  // An idle port sends it at once, as Transmit and Dequeue would.
  if (f.CanCutThrough(p) && !p.Paused(ctrl_prio_, f.now)) {
    f.counters.injected_frames++;
    f.Launch(port_, p, id, pkt.size);
    if (HasDataToSend()) f.ArmWake(port_, p.busy_until);
    return;
  }
  p.Enqueue(f.pool, ctrl_prio_, id);
  f.KickPort(port_);
}

void Nic::SendAck(Fabric& f, Flow& flow, PktId data) {
  f.counters.acks_sent++;
  SendControl(f, flow, PktType::kAck, flow.rcv_next, flow.ce_since_ack, flow.last_rx_sent, data);
  if (!f.unacked_int.empty()) f.unacked_int.erase(flow.id);
  flow.since_ack = 0;
  flow.ce_since_ack = false;
}

void Nic::OnAckTimer(Fabric& f, uint32_t id) {
  Flow& flow = f.flows[id];
  if (flow.since_ack > 0 && f.now >= flow.ack_due) SendAck(f, flow, kNoPkt);
}

// Deliver's body, inlined into Receive: one call less per received frame.
[[gnu::always_inline]] inline void Nic::DeliverFrame(Fabric& f, PktId id) {
  const Packet& pkt = f.pool[id];
  if (pkt.type == PktType::kPause) {
    f.OnPauseFrame(port_, id);
    return;
  }
  if (pkt.type == PktType::kRcmNotify) [[unlikely]] {
    // Never sent to a host (src/net/cioq_rcm.h); counted so tests can check.
    f.counters.rcm_notifications_at_hosts++;
    f.FreeControlFrame(id);
    return;
  }
  f.counters.delivered_frames++;
  switch (pkt.type) {
    case PktType::kData:
      OnData(f, id);
      break;
    case PktType::kAck:
      OnAck(f, id);
      break;
    case PktType::kNak:
      OnNak(f, id);
      break;
    case PktType::kCnp:
      OnCnp(f, id);
      break;
    case PktType::kPause:
    case PktType::kRcmNotify:
      break;
  }
  f.pool.Free(id);
}

void Nic::Receive(Fabric& f, PktId id) {
  // A fault on this NIC's receive side (src/ops/slow_receiver.h).
  if (fault.intercept) [[unlikely]] {
    if (ops::InterceptReceive(f, host_, id)) return;
  }
  DeliverFrame(f, id);
}

void Nic::Deliver(Fabric& f, PktId id) {
  DeliverFrame(f, id);
}

void Nic::OnData(Fabric& f, PktId id) {
  const Packet& pkt = f.pool[id];
  Flow& flow = f.flows[pkt.flow];
  f.counters.delivered_payload_bytes += pkt.payload;
  if (pkt.ecn == kCe) {
    flow.ecn_marked++;
    flow.ce_since_ack = true;
    // Notification point: one CNP per QP per interval (seed 000 §5 steps 6-7).
    if (flow.sends_cnps && (flow.last_cnp < 0 || f.now - flow.last_cnp >= cfg_->cnp_interval)) {
      flow.last_cnp = f.now;
      f.counters.cnps_sent++;
      f.ports[port_].counters.cnps_sent++;
      SendControl(f, flow, PktType::kCnp, pkt.psn, false, pkt.sent, id);
    }
  }
  if (cfg_->loss_recovery == LossRecovery::kGoBack0 && pkt.psn == 0 && flow.rcv_next > 0 &&
      flow.rcv_next < flow.packets) {
    // Go-back-0 (seed 003 §4.2): the requester restarted the message; the
    // partial message is discarded and received again from the start.
    flow.rcv_next = 0;
    flow.nak_outstanding = false;
  }
  if (pkt.psn == flow.rcv_next) {
    if (++flow.rcv_next == flow.packets && flow.received < 0) {
      // The whole message is here: flows waiting for it at this host may go.
      flow.received = f.now;
      if (!f.deps.Empty()) f.deps.ReceiverDone(f, flow.id);
    }
    flow.nak_outstanding = false;
    flow.last_rx_sent = pkt.sent;
    // A CE-marked packet is ACKed at once even when coalescing, so that the
    // sender learns of every mark precisely (seed 001 §2.2; DCTCP §3.1).
    if (++flow.since_ack >= static_cast<uint32_t>(cfg_->ack_every) ||
        flow.rcv_next == flow.packets || pkt.ecn == kCe) {
      SendAck(f, flow, id);
    } else {
      if (f.int_enabled) f.unacked_int[flow.id] = f.IntOf(id);
      if (flow.since_ack == 1) {
        // Coalescing: the first unacknowledged packet starts the ACK deadline,
        // so a sender that stops (window, pause) is not left waiting.
        flow.ack_due = f.now + cfg_->ack_delay;
        f.Schedule(flow.ack_due, EventKind::kAckTimer, flow.id);
      }
    }
  } else if (pkt.psn > flow.rcv_next) {
    // Sequence gap: the packet is discarded and one NAK asks for a go-back-N.
    if (!flow.nak_outstanding) {
      flow.nak_outstanding = true;
      f.counters.naks_sent++;
      SendControl(f, flow, PktType::kNak, flow.rcv_next, false, pkt.sent, id);
    }
  } else {
    f.counters.acks_sent++;
    SendControl(f, flow, PktType::kAck, flow.rcv_next, false, pkt.sent, id);
  }
}

void Nic::OnAck(Fabric& f, PktId id) {
  const Packet& pkt = f.pool[id];
  Flow& flow = f.flows[pkt.flow];
  if (flow.Finished()) return;
  // Go-back-0: an ACK from before the restart acknowledges nothing sent since.
  if (cfg_->loss_recovery == LossRecovery::kGoBack0 && pkt.psn > flow.snd_nxt) return;
  uint32_t newly_acked = 0;
  if (pkt.psn > flow.snd_una) {
    newly_acked = PayloadBetween(flow, flow.snd_una, pkt.psn);
    flow.snd_una = pkt.psn;
    flow.rto_deadline = f.now + cfg_->rto;
    // A timeout rewound snd_nxt while the first copies were still on their
    // way: what this ACK covers is delivered and is not sent again.
    if (flow.snd_nxt < flow.snd_una) flow.snd_nxt = flow.snd_una;
  }
  const CcState::AckCalls calls = flow.cc.ack_calls;
  if (calls == CcState::AckCalls::kAll || (calls == CcState::AckCalls::kEcnEcho && pkt.ecn_echo)) {
    AckInfo ack;
    ack.now = f.now;
    ack.newly_acked_bytes = newly_acked;
    ack.acked_psn = pkt.psn;
    ack.next_psn = flow.snd_nxt;
    ack.ecn_echo = pkt.ecn_echo;
    ack.rtt = f.now - pkt.sent;
    if (f.int_enabled) {
      const IntStack& st = f.IntOf(id);
      ack.hops = st.hops.data();
      ack.num_hops = st.count;
    }
    RunCc(f, flow, [&](CongestionControl& cc, CcState& s) { cc.OnAck(ack, s); });
  }
  if (flow.snd_una >= flow.packets) {
    Complete(f, flow);
  } else if (flow.active && flow.window_bytes > 0) {
    f.KickPort(port_);  // the window may have opened
  }
}

void Nic::OnNak(Fabric& f, PktId id) {
  const Packet& pkt = f.pool[id];
  Flow& flow = f.flows[pkt.flow];
  if (flow.Finished()) return;
  if (pkt.psn > flow.snd_una) flow.snd_una = pkt.psn;
  if (flow.snd_nxt < flow.snd_una) flow.snd_nxt = flow.snd_una;  // as in OnAck
  RunCc(f, flow, [&](CongestionControl& cc, CcState& s) { cc.OnNack(f.now, s); });
  if (cfg_->loss_recovery == LossRecovery::kGoBack0) {
    RestartMessage(f, flow);
  } else if (flow.snd_nxt > pkt.psn) {
    flow.snd_nxt = pkt.psn;  // go-back-N
    flow.rto_deadline = f.now + cfg_->rto;
    Activate(f, flow);
  }
}

void Nic::OnCnp(Fabric& f, PktId id) {
  Flow& flow = f.flows[f.pool[id].flow];
  flow.cnps_received++;
  f.counters.cnps_received++;
  f.ports[port_].counters.cnps_received++;
  if (!flow.Finished())
    RunCc(f, flow, [&](CongestionControl& cc, CcState& s) { cc.OnCnp(f.now, s); });
}

void Nic::OnCcTimer(Fabric& f, uint32_t id, int timer) {
  Flow& flow = f.flows[id];
  // Only the timer's current deadline fires; re-armed timers leave stale events.
  // The algorithm sees timer_at[timer] == now and re-arms it (or leaves it).
  if (flow.Finished() || flow.cc.timer_at[timer] != f.now) return;
  RunCc(f, flow, [&](CongestionControl& cc, CcState& s) { cc.OnTimer(f.now, timer, s); });
}

void Nic::OnTimeout(Fabric& f, uint32_t id) {
  Flow& flow = f.flows[id];
  if (flow.Finished()) return;
  if (f.now < flow.rto_deadline) {
    f.Schedule(flow.rto_deadline, EventKind::kQpTimeout, id);
    return;
  }
  if (flow.snd_una < flow.snd_nxt) {
    f.counters.timeouts++;
    if (cfg_->loss_recovery == LossRecovery::kGoBack0) {
      RestartMessage(f, flow);
    } else {
      flow.snd_nxt = flow.snd_una;
      Activate(f, flow);
    }
  }
  flow.rto_deadline = f.now + cfg_->rto;
  f.Schedule(flow.rto_deadline, EventKind::kQpTimeout, id);
}

void Nic::RestartMessage(Fabric& f, Flow& flow) {
  flow.snd_una = 0;
  flow.snd_nxt = 0;
  flow.rto_deadline = f.now + cfg_->rto;
  Activate(f, flow);
}

void Nic::Complete(Fabric& f, Flow& flow) {
  flow.finish = f.now;
  Deactivate(flow);
  f.flows_finished++;
  f.bytes_finished += flow.size_bytes;
  if (!f.deps.Empty()) f.deps.SenderDone(f, flow.id);
}

}  // namespace rocesim
