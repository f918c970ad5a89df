// Regional congestion mitigation (seed 002 §3) inside one CIOQ switch: the
// glue between the switch (net/cioq_switch.h) and the unit-tested building
// blocks of src/rcm. Only allocated when `switch.rcm.enabled`; the switch
// calls it behind `if (rcm_)`, so a switch without RCM runs exactly as before.
//
// State, per (local port, priority) — the seed keeps one per port; we keep one
// per class as well because PFC, the queues and DCQCN are per class:
//  - an input-queue detector and an output-queue detector (§3.2, Fig. 4, eq. 1);
//  - the port state (local/remote flags, role, eq. 2 regional degree), local
//    mirroring the output-queue detector, remote set by notifications that
//    arrive on the port from the downstream neighbour;
//  - the output queue's flow CAM (§3.3) and RCC window (§3.4).
//
// Where each piece runs, and the decisions the seed leaves open:
//  - Input queue enqueue (seed 002 §3.2: "once a congestion state is firstly
//    detected in an input queue, the port ... send[s] a feedback message
//    containing quantified F_b to the neighbor switch"): every congested
//    sample of the input detector sends a notification out of that input port
//    to its upstream neighbour, only if that neighbour is a switch (hosts keep
//    DCQCN; §3.1 "sends out its local congestion notification only to
//    neighbors" means switches). Its degree is eq. 2 with F_b = the input
//    sample and F_br = the remote degree of the output this input's backlog is
//    waiting for. That output is the one with the most VOQ bytes from this
//    input (ours): the guidance said "the output the sampled packet is heading
//    to", but a sampled victim frame would then name the victim's idle output
//    and its CAM, i.e. declare the victim harmful; the largest VOQ is what
//    fills the input queue. The IDs are that output's harmful set for its role
//    (sampled at a root, the root's forwarded IDs at edge and inner points,
//    §3.2 "replaced by the ones getting from root congestion point"); an
//    output with no role yet contributes its sampled IDs.
//  - Output queue enqueue (the crossbar moved a frame): output detector, CAM
//    sampling, SetLocal; a congested sample feeds the RCC window (§3.4 "when
//    one port detects output congestion state or receives a congestion
//    notification message").
//  - Notification received on port P: remote flag and F_br of P, P's remote
//    harmful set, P's RCC window (§3.4).
//  - Crossbar arbitration for output P (§3.4 RCC): the window is quit once P's
//    role is none; while the window forbids harmful traffic the first
//    non-harmful VOQ head in round-robin order goes first; with none the
//    round-robin choice goes anyway (work-conserving, rcm_rcc_window.h §3).
//    Harmful = in P's CAM for P's role.
//  - Route (§3.4 SAR): see Route().
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/packet.h"
#include "rcm/rcm_congestion_detector.h"
#include "rcm/rcm_flow_cam.h"
#include "rcm/rcm_port_state.h"
#include "rcm/rcm_rcc_window.h"
#include "rcm/rcm_sar.h"
#include "scenario/scenario.h"

namespace rocesim {

struct Fabric;
class CioqSwitch;

class CioqRcm {
 public:
  CioqRcm(const RcmConfig& cfg, const CioqSwitch& sw, uint64_t seed);

  // SAR (seed 002 §3.4). `ecmp` is the local port plain ECMP picks. A flow is
  // pinned to the port chosen at its first frame here, and the pin is renewed
  // by every frame; only a new flow, or one idle here for sar_idle, gets a new
  // decision (RcmConfig::sar_idle: no overtaking of its own frames). Inside a
  // congestion region (its ECMP port's regional degree >= 1) a decision picks
  // the candidate with the least regional degree unless the flow is harmful
  // there (RcmSarChoose); outside it, ECMP. Returns the local output port.
  int Route(Fabric& f, const Packet& pkt, int prio, int ecmp);

  // A frame of `bytes` joined VOQ (in, out, prio); the input queue now holds
  // `input_bytes`. Runs the input detector; may send a notification.
  void OnVoqPush(Fabric& f, int in, int out, int prio, int64_t bytes, int64_t input_bytes);
  void OnVoqPop(int in, int out, int prio, int64_t bytes) {
    voq_bytes_[Voq(in, out, prio)] -= bytes;
  }
  // The crossbar moved `pkt` into output queue (out, prio), now `queue_bytes`.
  void OnOutputEnqueue(Fabric& f, int out, int prio, const Packet& pkt, int64_t queue_bytes);
  // A frame left output queue (out, prio), leaving `queue_bytes`.
  void OnOutputDequeue(int out, int prio, int64_t queue_bytes) {
    const size_t i = Pq(out, prio);
    if (out_det_[i].OnDequeue(queue_bytes)) state_[i].SetLocal(false, 0);
  }
  // A notification frame arrived on local port `port`.
  void OnNotification(Fabric& f, int port, PktId id);

  // RCC at the crossbar: the input whose VOQ head for (out, prio) moves next,
  // or -1. Call OnGranted for the frame that then moves.
  int PickInput(Fabric& f, int out, int prio);
  void OnGranted(Fabric& f, int out, int prio, const Packet& pkt);

  // Inspection (tests).
  const RcmPortState& state(int port, int prio) const { return state_[Pq(port, prio)]; }
  const RcmRccWindow& window(int port, int prio) const { return win_[Pq(port, prio)]; }
  const RcmFlowCam& cam(int port, int prio) const { return cam_[Pq(port, prio)]; }

 private:
  size_t Pq(int port, int prio) const {
    return static_cast<size_t>(port) * kNumPriorities + static_cast<size_t>(prio);
  }
  size_t Voq(int in, int out, int prio) const {
    return Pq(out, prio) * static_cast<size_t>(num_ports_) + static_cast<size_t>(in);
  }
  bool Harmful(Fabric& f, int out, int prio, uint64_t key) const;
  // Bytes of harmful flows queued for (out, prio): its VOQs and output queue
  // (the backlog an RCC window measures W against, rcm_rcc_window.h §1).
  int64_t HarmfulBacklog(Fabric& f, int out, int prio) const;
  void Signal(Fabric& f, int out, int prio, uint8_t fb_q);

  struct Pin {
    uint16_t port;
    Time last;  // the flow's latest frame here
  };

  const RcmConfig& cfg_;
  const CioqSwitch& sw_;
  int num_ports_;
  std::vector<RcmCongestionDetector> in_det_;   // per (port, prio): input queue
  std::vector<RcmCongestionDetector> out_det_;  // per (port, prio): output queue
  std::vector<RcmPortState> state_;             // per (port, prio)
  std::vector<RcmFlowCam> cam_;                 // per (port, prio)
  std::vector<RcmRccWindow> win_;               // per (port, prio)
  std::vector<int64_t> voq_bytes_;              // per (output, prio, input)
  std::unordered_map<uint64_t, Pin> pins_;      // flow key -> SAR choice
  std::vector<RcmSarCandidate> cand_;           // scratch for SAR
};

}  // namespace rocesim
