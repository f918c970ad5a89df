// HPCC sender state machine; see hpcc.h for Algorithm 1 and its sources.
#include "cc/hpcc.h"

#include <algorithm>
#include <cmath>

namespace rocesim {

void Hpcc::OnStart(Time now, CcState& s) {
  (void)now;
  s.wants_sent = false;  // OnSent is the no-op default: not called
  line_rate_ = static_cast<double>(s.line_rate_bps);
  min_rate_ = std::min(static_cast<double>(p_.min_rate_bps), line_rate_);
  t_ = s.base_rtt > 0 ? static_cast<double>(s.base_rtt) : 0.0;
  const double r_ai = p_.rate_ai_bps > 0
                          ? static_cast<double>(p_.rate_ai_bps)
                          : std::round(line_rate_ * p_.ai_per_line_rate);  // 40 Mb/s at 100G
  // Bytes per second * T: rate (b/s) * T (ps) / (8 * 1e12).
  const double bytes_per_rate = t_ / (8 * kPsPerSecond);
  w_ai_ = r_ai * bytes_per_rate;
  w_max_ = line_rate_ * bytes_per_rate;  // BDP
  w_min_ = min_rate_ * bytes_per_rate;
  // Line rate and one BDP (the paper), or the scenario's start rate and the
  // window it fills in T.
  rate_ = s.start_rate_bps > 0 ? std::max(static_cast<double>(s.start_rate_bps), min_rate_)
                               : line_rate_;
  w_ = wc_ = rate_ * bytes_per_rate;
  u_ = p_.initial_u;
  inc_stage_ = 0;
  last_update_psn_ = 0;
  prev_n_ = 0;
  last_hop_ = -1;
  last_hop_u_ = 0;
  last_tau_ = 0;
  Publish(s);
}

bool Hpcc::MeasureInflight(const AckInfo& ack, int n) {
  int best = -1;
  double best_u = 0;
  Time best_tau = 0;
  const int common = std::min(n, prev_n_);
  for (int i = 0; i < common; i++) {
    const IntHop& cur = ack.hops[i];
    const IntHop& old = prev_[i];
    const Time dts = cur.ts - old.ts;
    // No time elapsed (same dequeue record) or a counter that went backwards
    // (not the same port): no rate can be measured on this hop.
    if (dts <= 0 || cur.tx_bytes < old.tx_bytes || cur.rate_bps <= 0) continue;
    const double b = static_cast<double>(cur.rate_bps);
    const double tx_rate = static_cast<double>(cur.tx_bytes - old.tx_bytes) * 8 * kPsPerSecond /
                           static_cast<double>(dts);
    const double qlen = static_cast<double>(std::min(cur.qlen_bytes, old.qlen_bytes));
    // qlen / (B T) with B in bytes/s and T in s: qlen * 8 * 1e12 / (B * T_ps).
    const double u = qlen * 8 * kPsPerSecond / (b * t_) + tx_rate / b;
    // The first usable hop always qualifies, so τ is defined even if u == 0.
    if (best < 0 || u > best_u) {
      best = i;
      best_u = u;
      best_tau = dts;
    }
  }
  if (best < 0) return false;
  last_hop_ = best;
  last_hop_u_ = best_u;
  last_tau_ = best_tau;
  const double tau = std::min(static_cast<double>(best_tau), t_);
  u_ = (1 - tau / t_) * u_ + (tau / t_) * best_u;
  return true;
}

void Hpcc::ComputeWind(bool update_wc) {
  double w;
  if (u_ >= p_.eta || inc_stage_ >= p_.max_stage) {
    // Wc / (U/η): scale the reference window to bring U to η. U == 0 can only
    // happen on an idle path after maxStage rounds: grow to the cap.
    w = u_ > 0 ? wc_ * p_.eta / u_ + w_ai_ : w_max_;
    if (update_wc) inc_stage_ = 0;
  } else {
    w = wc_ + w_ai_;
    if (update_wc) inc_stage_++;
  }
  w_ = std::clamp(w, w_min_, w_max_);
  if (update_wc) wc_ = w_;
}

void Hpcc::OnAck(const AckInfo& ack, CcState& s) {
  if (ack.hops == nullptr || ack.num_hops <= 0 || t_ <= 0) return;
  const int n = std::min(ack.num_hops, kMaxHops);
  const bool sampled = MeasureInflight(ack, n);
  // Full update once per RTT: this ACK covers data sent after the last one.
  const bool update_wc = ack.acked_psn > last_update_psn_;
  if (sampled) ComputeWind(update_wc);
  if (update_wc) last_update_psn_ = ack.next_psn;
  std::copy(ack.hops, ack.hops + n, prev_.begin());
  prev_n_ = n;
  Publish(s);
}

void Hpcc::Publish(CcState& s) {
  if (t_ <= 0) {
    // Without T there is no BDP to control: line rate, no window.
    rate_ = line_rate_;
    s.rate_bps = std::llround(rate_);
    s.window_bytes = 0;
    return;
  }
  rate_ = std::clamp(w_ * 8 * kPsPerSecond / t_, min_rate_, line_rate_);
  s.rate_bps = std::llround(rate_);
  s.window_bytes = std::max<int64_t>(1, std::llround(w_));
}

}  // namespace rocesim
