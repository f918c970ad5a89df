// Seed 002 §3.4 RCC window, eqs. 3-6; the interpretations are in the header.
#include "rcm/rcm_rcc_window.h"

#include <algorithm>

namespace rocesim {

void RcmRccWindow::OnCongestion(uint8_t fb_q, int64_t harmful_backlog_bytes) {
  pending_fb_ = std::max(pending_fb_, fb_q);
  if (phase_ != RccPhase::kInactive) return;  // folded into the next cut
  sent_c_ = 0;
  sent_nc_ = 0;
  periods_ = 0;
  if (!p_.measure_window) {
    StartWindow(p_.fixed_window_bytes, p_.fixed_window_bytes);
    return;
  }
  backlog_ = harmful_backlog_bytes;
  phase_ = RccPhase::kMeasuring;
  if (backlog_ <= 0) EndMeasurement();  // nothing to measure: W = min, W_c = W
}

void RcmRccWindow::Quit() {
  phase_ = RccPhase::kInactive;
  w_ = wc_ = sent_c_ = sent_nc_ = backlog_ = 0;
  pending_fb_ = 0;
}

void RcmRccWindow::EndMeasurement() {
  const int64_t measured = sent_c_ + sent_nc_;
  const int64_t w = std::clamp(measured, p_.min_window_bytes, p_.max_window_bytes);
  // Credit a shortfall below the minimum to W_c; never let W_c exceed W.
  const int64_t wc0 = std::min(sent_c_ + std::max<int64_t>(0, w - measured), w);
  StartWindow(w, wc0);
}

void RcmRccWindow::StartWindow(int64_t w, int64_t wc0) {
  phase_ = RccPhase::kActive;
  w_ = std::max<int64_t>(w, 1);
  wc_ = std::clamp(wc0, std::min(p_.min_wc_bytes, w_), w_);
  NextPeriod();  // applies eq. 5 with the degree signalled so far
}

void RcmRccWindow::NextPeriod() {
  if (pending_fb_ > 0) {
    wc_ = std::max(RcmCutWc(wc_, pending_fb_), std::min(p_.min_wc_bytes, w_));  // eqs. 5, 6
    pending_fb_ = 0;
  }
  sent_c_ = 0;
  sent_nc_ = 0;
  ++periods_;
}

}  // namespace rocesim
