// Regional congestion control (RCC) window of seed 002 §3.4, eqs. 3-6: one per
// output port and class. Only harmful flows are slowed; the window decides
// whether a harmful flow's packet may be scheduled to the port now.
//
//   W = W_c + W_nc                              (eq. 3)
//   W_c <- W_c (1 - F_b G_d),  G_d = 1 / (2 F_bmax) = 1/126 on 6-bit degrees
//                                               (eq. 5; eq. 4's rate cut of at
//                                               most 50% at F_b = F_bmax)
//   W_nc <- W - W_c                             (eq. 6)
// "Once the amount of data that congestion flow has been sent reaches its window
// limit W_c, it cannot continue to send until the whole window W has been sent."
//
// Phases and the interpretations this file makes (the seed leaves them open):
//
// 1. Measuring (W and the initial W_c). The seed: "W_nc and W are estimated by
//    the corresponding data amount sent in a time period from a given start
//    when a congestion detected to the time when packets belong to all the
//    congestion flow has been sent." So the first congestion signal opens a
//    measurement that lasts until the harmful bytes that were queued for this
//    port at detection (`harmful_backlog_bytes`, given by the caller) have been
//    sent; per-flow FIFOs send those before any later harmful arrival, so
//    "harmful bytes sent >= backlog" is that instant. Bytes sent meanwhile by
//    harmful / non-harmful flows are the initial W_c / W_nc, and W is their sum.
//    Nothing is held back while measuring. Guards (ours): a measurement also
//    ends once max_window_bytes have been sent (a backlog that never drains);
//    a W under min_window_bytes is raised to it and the shortfall credited to
//    W_c (an unknown mix is assumed harmful, so eq. 5 then cuts the harmful
//    share by exactly eq. 4's factor); an empty backlog skips the measurement
//    (W = min_window_bytes, W_c = W). With measure_window = false the window
//    starts at once with W = fixed_window_bytes, W_c = W.
//    Eq. 5 is applied when the measurement ends, with the largest degree
//    signalled since detection.
//
// 2. Active periods. Each period admits harmful bytes while those sent in the
//    period are below W_c (so the packet that crosses W_c still goes: at most
//    one packet of overshoot, and any W_c >= 1 passes one harmful packet per
//    period). The period ends when harmful + non-harmful bytes sent in it reach
//    W; the next one starts from zero. Further congestion signals (each
//    congested local sample or received notification) are folded into one cut
//    per period: eq. 5 is applied at the next period start with the largest
//    degree signalled during the period, floored at min_wc_bytes. (Applying it
//    per signal would shrink W_c geometrically at the sampling rate, i.e. many
//    times per period, with no recovery until congestion clears; once per
//    window is how window-based control such as DCTCP bounds its cut rate.)
//    W itself is kept while the window is active.
//
// 3. No deadlock: the window is work-conserving. MayHarmfulSend() is the
//    window's verdict; AllowHarmful(non_harmful_eligible) lets a harmful packet
//    go anyway when no non-harmful packet could be scheduled to the port, and
//    its bytes count towards W as usual, so the period still ends and a new
//    one starts. RCC thus only reorders the port's traffic in favour of
//    non-harmful flows (the seed's "increases non-congested flows' priority to
//    bypass the congestion flow"); it never idles a port that has work, e.g. at
//    an incast root where every flow is harmful.
//
// 4. Quit: "Once the congestion state disappears, the window-based congestion
//    control will quit." The caller calls Quit() when the port's congestion
//    state is gone: local flag cleared and remote flag expired
//    (RcmPortState::Role(now) == kNone). The next signal starts afresh.
//
// Per-packet calls (MayHarmfulSend, OnSent) are inline and branch-light; the
// phase changes are out of line.
#pragma once

#include <cstdint>

#include "rcm/rcm_params.h"

namespace rocesim {

// W_c (1 - F_b G_d) with G_d = 1 / (2 * 63), in integer bytes (floored).
constexpr int64_t RcmCutWc(int64_t wc, uint8_t fb_q) {
  const int64_t fb = fb_q > kRcmFbMaxQ ? kRcmFbMaxQ : fb_q;
  return wc * (2 * kRcmFbMaxQ - fb) / (2 * kRcmFbMaxQ);
}

enum class RccPhase : uint8_t { kInactive, kMeasuring, kActive };

class RcmRccWindow {
 public:
  RcmRccWindow() : RcmRccWindow(RcmRccParams{}) {}
  explicit RcmRccWindow(const RcmRccParams& p) : p_(p) {}

  // A congestion signal of quantised degree fb_q for this port: a congested
  // sample of its output queue, or a notification received on it.
  // `harmful_backlog_bytes` (bytes of harmful flows queued for this port now)
  // is only read when the signal starts a window.
  void OnCongestion(uint8_t fb_q, int64_t harmful_backlog_bytes);
  // Congestion cleared: back to inactive (harmful flows unrestricted).
  void Quit();

  // May a harmful flow's packet be scheduled to this port now?
  bool MayHarmfulSend() const { return phase_ != RccPhase::kActive || sent_c_ < wc_; }
  // Work-conserving form for the arbiter: true if the window allows it, or if
  // no non-harmful packet is eligible for this port at this decision.
  bool AllowHarmful(bool non_harmful_eligible) const {
    return !non_harmful_eligible || MayHarmfulSend();
  }
  // A packet of `bytes` was scheduled to this port; `harmful` as judged by the
  // flow CAM for the port's role.
  void OnSent(int64_t bytes, bool harmful) {
    if (phase_ == RccPhase::kInactive) return;
    (harmful ? sent_c_ : sent_nc_) += bytes;
    if (phase_ == RccPhase::kMeasuring) {
      if (sent_c_ >= backlog_ || sent_c_ + sent_nc_ >= p_.max_window_bytes) EndMeasurement();
    } else if (sent_c_ + sent_nc_ >= w_) {
      NextPeriod();
    }
  }

  RccPhase phase() const { return phase_; }
  bool active() const { return phase_ == RccPhase::kActive; }
  int64_t w() const { return w_; }
  int64_t wc() const { return wc_; }
  int64_t wnc() const { return w_ - wc_; }
  // Bytes sent in the current period (or so far in the measurement).
  int64_t sent_c() const { return sent_c_; }
  int64_t sent_nc() const { return sent_nc_; }
  uint8_t pending_fb() const { return pending_fb_; }
  uint64_t periods() const { return periods_; }  // periods started since the window began
  const RcmRccParams& params() const { return p_; }

 private:
  void EndMeasurement();
  void StartWindow(int64_t w, int64_t wc0);
  void NextPeriod();

  RcmRccParams p_;
  RccPhase phase_ = RccPhase::kInactive;
  int64_t w_ = 0;
  int64_t wc_ = 0;
  int64_t sent_c_ = 0;
  int64_t sent_nc_ = 0;
  int64_t backlog_ = 0;     // measuring: harmful bytes queued at detection
  uint8_t pending_fb_ = 0;  // largest degree signalled since the last cut
  uint64_t periods_ = 0;
};

}  // namespace rocesim
