// Seed 002 §3 in a CIOQ switch; the decisions are in the header.
#include "net/cioq_rcm.h"

#include "net/cioq_switch.h"
#include "net/fabric.h"
#include "rcm/rcm_notification.h"

namespace rocesim {

CioqRcm::CioqRcm(const RcmConfig& cfg, const CioqSwitch& sw, uint64_t seed)
    : cfg_(cfg), sw_(sw), num_ports_(sw.num_ports()) {
  const size_t n = static_cast<size_t>(num_ports_) * kNumPriorities;
  in_det_.reserve(n);
  out_det_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    // Distinct streams per detector (only drawn with sample_jitter > 0).
    in_det_.emplace_back(cfg.params.detector, seed ^ (uint64_t{sw.node()} << 20) ^ (2 * i));
    out_det_.emplace_back(cfg.params.detector, seed ^ (uint64_t{sw.node()} << 20) ^ (2 * i + 1));
  }
  state_.assign(n, RcmPortState(cfg.params.port));
  cam_.assign(n, RcmFlowCam(cfg.params.cam));
  win_.assign(n, RcmRccWindow(cfg.params.rcc));
  voq_bytes_.assign(n * static_cast<size_t>(num_ports_), 0);
  cand_.reserve(static_cast<size_t>(num_ports_));
}

bool CioqRcm::Harmful(Fabric& f, int out, int prio, uint64_t key) const {
  const size_t i = Pq(out, prio);
  return cam_[i].IsHarmful(key, state_[i].Role(f.now));
}

int CioqRcm::Route(Fabric& f, const Packet& pkt, int prio, int ecmp) {
  if (!cfg_.sar) return ecmp;
  auto [it, fresh] = pins_.try_emplace(pkt.flow_key, Pin{static_cast<uint16_t>(ecmp), f.now});
  Pin& pin = it->second;
  if (!fresh && f.now - pin.last <= cfg_.sar_idle) {
    pin.last = f.now;
    return pin.port;
  }
  pin.last = f.now;
  pin.port = static_cast<uint16_t>(ecmp);
  const size_t e = Pq(ecmp, prio);
  const RcmPortState& st = state_[e];
  const bool in_region = RcmSarInRegion(st.RegionalDegree(f.now), cfg_.params.sar);
  const auto hops = f.routing.NextHops(f.nodes[sw_.node()].index, pkt.dst);
  if (!in_region || hops.size() < 2) return ecmp;
  const bool harmful = cam_[e].IsHarmful(pkt.flow_key, st.Role(f.now));
  cand_.clear();
  for (const uint16_t p : hops) {
    const size_t i = Pq(p, prio);
    int64_t load = f.ports[sw_.first_port() + p].queue[prio].bytes;
    for (int in = 0; in < num_ports_; ++in) load += voq_bytes_[Voq(in, p, prio)];
    cand_.push_back({p, state_[i].RegionalDegree(f.now), load});
  }
  const uint16_t choice = RcmSarChoose(cand_, static_cast<uint16_t>(ecmp), harmful, in_region);
  f.counters.rcm_sar_decisions++;
  if (harmful) f.counters.rcm_sar_harmful_kept++;
  if (choice != ecmp) {
    f.counters.rcm_sar_reroutes++;
    // Checked apart from the flag handed to RcmSarChoose: the flow's ECMP
    // port's CAM, read afresh, must not hold it (seed 002 §3.4 "the harmful
    // congestion flows should not be detoured").
    if (cam_[e].IsHarmful(pkt.flow_key, state_[e].Role(f.now)))
      f.counters.rcm_sar_harmful_rerouted++;
  }
  pin.port = choice;
  return choice;
}

void CioqRcm::OnVoqPush(Fabric& f, int in, int out, int prio, int64_t bytes, int64_t input_bytes) {
  voq_bytes_[Voq(in, out, prio)] += bytes;
  const RcmSample s = in_det_[Pq(in, prio)].OnEnqueue(bytes, input_bytes);
  if (!s.congested) return;
  const PortId port = sw_.first_port() + static_cast<PortId>(in);
  if (!f.nodes[f.ports[f.ports[port].peer].node].is_switch) return;  // hosts: DCQCN only
  // The output this input's backlog waits for: its largest VOQ.
  int target = out;
  for (int o = 0; o < num_ports_; ++o)
    if (voq_bytes_[Voq(in, o, prio)] > voq_bytes_[Voq(in, target, prio)]) target = o;
  const size_t t = Pq(target, prio);
  const RcmPortState& st = state_[t];
  const uint8_t fb = RcmRegionalDegree(s.fb_q, st.fbr(f.now), st.remote(f.now), st.params().w);
  RcmRole role = st.Role(f.now);
  if (role == RcmRole::kNone) role = RcmRole::kRoot;  // this input is the local congestion point
  const RcmNotification n = RcmMakeNotification(fb, cam_[t], role, cfg_.params.cam.notify_max_ids);
  f.SendRcmNotification(port, prio, n);
}

int64_t CioqRcm::HarmfulBacklog(Fabric& f, int out, int prio) const {
  int64_t bytes = 0;
  const size_t i = Pq(out, prio);
  const RcmRole role = state_[i].Role(f.now);
  auto add = [&](PktId id) {
    for (; id != kNoPkt; id = f.pool[id].next)
      if (cam_[i].IsHarmful(f.pool[id].flow_key, role)) bytes += f.pool[id].size;
  };
  for (int in = 0; in < num_ports_; ++in) add(sw_.VoqHead(in, out, prio));
  add(f.ports[sw_.first_port() + static_cast<PortId>(out)].queue[prio].head);
  return bytes;
}

void CioqRcm::Signal(Fabric& f, int out, int prio, uint8_t fb_q) {
  RcmRccWindow& w = win_[Pq(out, prio)];
  if (w.phase() == RccPhase::kInactive) {
    f.counters.rcm_windows_started++;
    w.OnCongestion(fb_q, HarmfulBacklog(f, out, prio));
  } else {
    w.OnCongestion(fb_q, 0);  // the backlog is only read when a window starts
  }
}

void CioqRcm::OnOutputEnqueue(Fabric& f, int out, int prio, const Packet& pkt,
                              int64_t queue_bytes) {
  const size_t i = Pq(out, prio);
  const RcmSample s = out_det_[i].OnEnqueue(pkt.size, queue_bytes);
  cam_[i].OnPacket(pkt.flow_key, pkt.size);
  if (!s.sampled) return;
  state_[i].SetLocal(out_det_[i].congested(), out_det_[i].fb_q());
  if (s.congested) Signal(f, out, prio, s.fb_q);
}

void CioqRcm::OnNotification(Fabric& f, int port, PktId id) {
  const RcmNotification& n = f.RcmNotificationOf(id);
  const int prio = f.pool[id].priority;
  const size_t i = Pq(port, prio);
  f.counters.rcm_notifications_received++;
  state_[i].OnNotification(f.now, n.fb_q);
  cam_[i].SetRemote(n.ids.data(), n.num_ids);
  Signal(f, port, prio, n.fb_q);
}

int CioqRcm::PickInput(Fabric& f, int out, int prio) {
  const size_t i = Pq(out, prio);
  RcmRccWindow& w = win_[i];
  const int rr = sw_.PickInput(out, prio);
  if (w.phase() == RccPhase::kInactive || rr < 0) return rr;
  const RcmRole role = state_[i].Role(f.now);
  if (role == RcmRole::kNone) {  // seed 002 §3.4: "the window-based congestion control will quit"
    w.Quit();
    return rr;
  }
  if (w.MayHarmfulSend()) return rr;
  auto harmful = [&](int in) {
    return cam_[i].IsHarmful(f.pool[sw_.VoqHead(in, out, prio)].flow_key, role);
  };
  if (!harmful(rr)) return rr;
  const int alt = sw_.PickInputIf(out, prio, [&](int in) { return !harmful(in); });
  if (alt < 0) return rr;  // work-conserving: no non-harmful head is eligible
  f.counters.rcm_harmful_deferred++;
  return alt;
}

void CioqRcm::OnGranted(Fabric& f, int out, int prio, const Packet& pkt) {
  RcmRccWindow& w = win_[Pq(out, prio)];
  if (w.phase() == RccPhase::kInactive) return;
  w.OnSent(pkt.size, Harmful(f, out, prio, pkt.flow_key));
}

}  // namespace rocesim
