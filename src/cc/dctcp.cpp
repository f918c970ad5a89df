// DCTCP sender state machine; see dctcp.h for the rules and their sources.
#include "cc/dctcp.h"

#include <algorithm>
#include <cmath>

namespace rocesim {

void Dctcp::OnStart(Time now, CcState& s) {
  (void)now;
  s.wants_sent = false;  // OnSent is the no-op default: not called
  line_rate_ = static_cast<double>(s.line_rate_bps);
  base_rtt_ = s.base_rtt > 0 ? static_cast<double>(s.base_rtt) : 0.0;
  mtu_ = static_cast<double>(std::max(1, s.mtu_bytes));
  min_window_ = std::max(1, p_.min_window_packets) * mtu_;
  max_window_ = p_.max_window_bytes > 0
                    ? std::max(min_window_, static_cast<double>(p_.max_window_bytes))
                    : 0.0;
  // rate_ai_bps == 0: one MTU per RTT expressed as a rate (run.py's 615 Mb/s
  // for 1 KB / 13 us).
  rate_ai_ = p_.rate_ai_bps > 0 ? static_cast<double>(p_.rate_ai_bps)
             : base_rtt_ > 0    ? mtu_ * 8 * kPsPerSecond / base_rtt_
                                : 0.0;

  alpha_ = p_.initial_alpha;
  // RDMA starts at line rate: one BDP in flight, no slow start; or at the
  // scenario's start rate, with the window that rate fills in one RTT.
  rate_ = s.start_rate_bps > 0 ? static_cast<double>(s.start_rate_bps) : line_rate_;
  cwnd_ = std::max(min_window_, rate_ * base_rtt_ / (8 * kPsPerSecond));
  if (max_window_ > 0) cwnd_ = std::min(cwnd_, max_window_);
  ca_acked_bytes_ = 0;
  window_open_ = false;
  window_end_psn_ = 0;
  window_bytes_ = 0;
  window_marked_ = 0;
  in_cwr_ = false;
  cwr_end_psn_ = 0;
  alpha_updates_ = 0;
  cuts_ = 0;
  Publish(s);
}

bool Dctcp::AlphaWindow(const AckInfo& ack) {
  const uint64_t bytes = ack.newly_acked_bytes;
  if (!window_open_) {
    // The first ACK opens the first observation window (and is part of it):
    // alpha needs a whole window of data, not one ACK.
    window_open_ = true;
    window_end_psn_ = ack.next_psn;
    window_bytes_ = bytes;
    window_marked_ = ack.ecn_echo ? bytes : 0;
    return false;
  }
  window_bytes_ += bytes;
  if (ack.ecn_echo) window_marked_ += bytes;
  // The window closes on the first ACK that covers data sent after it opened.
  if (ack.acked_psn <= window_end_psn_) return false;
  if (window_bytes_ > 0) {
    const double f = static_cast<double>(window_marked_) / static_cast<double>(window_bytes_);
    alpha_ = (1 - p_.g) * alpha_ + p_.g * f;
    alpha_updates_++;
  }
  window_end_psn_ = ack.next_psn;
  window_bytes_ = 0;
  window_marked_ = 0;
  return true;
}

void Dctcp::OnAck(const AckInfo& ack, CcState& s) {
  // alpha first, so that a cut on this ACK uses the freshest estimate.
  const bool window_closed = AlphaWindow(ack);

  // CWR ends once an ACK covers data sent after the cut.
  if (in_cwr_ && ack.acked_psn > cwr_end_psn_) in_cwr_ = false;

  if (ack.ecn_echo && !in_cwr_) {
    const double factor = 1 - alpha_ / 2;
    if (p_.mode == DctcpMode::kWindow) {
      cwnd_ = std::max(min_window_, cwnd_ * factor);
      ca_acked_bytes_ = 0;
    } else {
      rate_ = std::max(static_cast<double>(p_.min_rate_bps), rate_ * factor);
    }
    in_cwr_ = true;
    cwr_end_psn_ = ack.next_psn;
    cuts_++;
  } else if (!in_cwr_) {
    if (p_.mode == DctcpMode::kWindow) {
      // Congestion avoidance: +1 MTU per cwnd of acknowledged bytes.
      ca_acked_bytes_ += ack.newly_acked_bytes;
      while (ca_acked_bytes_ >= cwnd_) {
        ca_acked_bytes_ -= cwnd_;
        cwnd_ += mtu_;
      }
      if (max_window_ > 0) cwnd_ = std::min(cwnd_, max_window_);
    } else if (window_closed) {
      rate_ = std::min(line_rate_, rate_ + rate_ai_);
    }
  }
  Publish(s);
}

void Dctcp::Publish(CcState& s) {
  if (p_.mode == DctcpMode::kWindow) {
    s.window_bytes = std::max<int64_t>(1, static_cast<int64_t>(std::floor(cwnd_)));
    rate_ = line_rate_;
    if (p_.pace && base_rtt_ > 0) {
      const double floor_rate = std::min(static_cast<double>(p_.min_rate_bps), line_rate_);
      rate_ = std::clamp(cwnd_ * 8 * kPsPerSecond / base_rtt_, floor_rate, line_rate_);
    }
  } else {
    // The simulator's VAR_WIN: window = BDP * rate / line rate = rate * T / 8.
    s.window_bytes =
        p_.rate_window && base_rtt_ > 0
            ? std::max<int64_t>(
                  1, static_cast<int64_t>(std::floor(rate_ * base_rtt_ / (8 * kPsPerSecond))))
            : 0;
  }
  s.rate_bps = std::llround(rate_);
}

}  // namespace rocesim
