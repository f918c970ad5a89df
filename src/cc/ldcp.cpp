// LDCP sender state machine; see ldcp.h for the rules and their sources
// (seed 001 §2.2, §2.3, §3.1, §3.2).
#include "cc/ldcp.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rocesim {

void ValidateLdcpParams(const LdcpParams& p) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("ldcp: " + what); };
  // §2.2: "0 < alpha, beta <= 1".
  if (!(p.alpha > 0.0 && p.alpha <= 1.0)) fail("alpha must be in (0, 1]");
  if (!(p.beta > 0.0 && p.beta <= 1.0)) fail("beta must be in (0, 1]");
  // gamma is the minimum window below one packet; eta a multiplicative cut.
  if (!(p.gamma > 0.0 && p.gamma < 1.0)) fail("gamma must be in (0, 1)");
  if (!(p.eta > 0.0 && p.eta < 1.0)) fail("eta must be in (0, 1)");
  if (p.initial_window_bytes < 0) fail("initial_window must be >= 0 (0 = BDP)");
  if (p.max_window_bytes < 0) fail("max_window must be >= 0 (0 = none)");
  if (p.probe_interval < 0) fail("probe_interval must be >= 0 (0 = base RTT)");
}

Ldcp::Ldcp(const LdcpParams& params) : p_(params) {
  ValidateLdcpParams(p_);
}

void Ldcp::OnStart(Time now, CcState& s) {
  line_ = s.line_rate_bps;
  mtu_ = static_cast<double>(std::max(1, s.mtu_bytes));
  base_rtt_ = std::max<Time>(0, s.base_rtt);
  rtt_ = base_rtt_;
  bdp_ = std::max(
      1.0, static_cast<double>(line_) * static_cast<double>(base_rtt_) / (8 * kPsPerSecond) / mtu_);
  // What the first RTT carries: the BDP, or what the scenario's start rate
  // sends in one base RTT (packets).
  const double start_pkts =
      s.start_rate_bps > 0 && line_ > 0
          ? std::max(1.0, bdp_ * static_cast<double>(s.start_rate_bps) / static_cast<double>(line_))
          : bdp_;
  // IW = that many whole packets, rounded up so that the first RTT is filled.
  const double iw_bytes = p_.initial_window_bytes > 0 ? static_cast<double>(p_.initial_window_bytes)
                                                      : std::ceil(start_pkts - 1e-9) * mtu_;
  iw_ = static_cast<uint32_t>(std::max(1.0, std::ceil(iw_bytes / mtu_ - 1e-9)));
  msg_pkts_ = s.message_bytes > 0
                  ? static_cast<uint64_t>((s.message_bytes + static_cast<int64_t>(mtu_) - 1) /
                                          static_cast<int64_t>(mtu_))
                  : 0;
  max_cw_ = p_.max_window_bytes > 0
                ? std::max(1.0, std::floor(static_cast<double>(p_.max_window_bytes) / mtu_))
                : 0.0;
  sent_ = 0;
  fs_acked_ = 0;
  if (p_.variant == LdcpVariant::kEventApi) {
    // §3.2 starts at line rate (standard RoCE has no fast start) and issues
    // the first RTT probe at once.
    fast_start_ = false;
    cw_ = start_pkts;
    s.ect = true;
    const Time probe = p_.probe_interval > 0 ? p_.probe_interval : std::max<Time>(1, base_rtt_);
    s.SetTimer(kProbeTimer, now + probe);
  } else {
    fast_start_ = p_.fast_start;
    cw_ = static_cast<double>(iw_);
    if (max_cw_ > 0) cw_ = std::min(cw_, max_cw_);
    // Packet 0 is ECN-capable only if it is already the last fast-start one.
    s.ect = !fast_start_ || iw_ <= 1 || msg_pkts_ == 1;
  }
  Publish(s);
}

void Ldcp::OnSent(Time now, uint32_t bytes, CcState& s) {
  (void)now, (void)bytes;
  ++sent_;
  if (!fast_start_) {
    s.ect = true;
    return;
  }
  // The next packet has index sent_: ECN-capable if it is the IW-th packet or
  // the message's last (§3.1), and so is everything after it (§3.1: "set the
  // packets to ECN-capable ever since").
  s.ect = sent_ + 1 >= iw_ || (msg_pkts_ > 0 && sent_ + 1 >= msg_pkts_);
}

void Ldcp::Increase(double n) {
  if (cw_ >= 1.0) {
    cw_ += n * p_.alpha / cw_;  // eq. (1) / (2)
  } else {
    cw_ += p_.gamma;  // §2.2 sub-packet rule, per ACK
  }
  if (max_cw_ > 0) cw_ = std::min(cw_, max_cw_);
}

void Ldcp::Decrease(double n) {
  if (cw_ > 1.0) {
    cw_ = std::max(1.0, cw_ - n * p_.beta);  // eq. (1) / (2), cw >= 1
  } else {
    // At the eq. (1) floor (or below): §2.2 "cw = max{gamma, eta * cw}".
    cw_ = std::max(p_.gamma, p_.eta * cw_);
  }
}

void Ldcp::OnAck(const AckInfo& ack, CcState& s) {
  if (ack.rtt > 0) rtt_ = std::max(base_rtt_, ack.rtt);
  if (p_.variant == LdcpVariant::kEventApi) {
    // §3.2: standard RoCE has no per-packet ACK for SEND/WRITE; AI comes from
    // RTT probes, MD from CNPs.
    Publish(s);
    return;
  }
  // n: packets this ACK newly covers (the last packet may be short).
  const double n = std::ceil(static_cast<double>(ack.newly_acked_bytes) / mtu_ - 1e-9);
  if (fast_start_) {
    fs_acked_ += static_cast<uint64_t>(n);
    if (fs_acked_ >= iw_) {
      // §3.1 transition 2: the whole IW is confirmed; "cw is set to BDP"
      // (IW = BDP unless initial_window says otherwise).
      fast_start_ = false;
      cw_ = static_cast<double>(iw_);
      if (max_cw_ > 0) cw_ = std::min(cw_, max_cw_);
      s.ect = true;
    }
  } else if (n > 0) {  // a duplicate ACK (n = 0) confirms nothing new
    if (ack.ecn_echo) {
      Decrease(n);
    } else {
      Increase(n);
    }
  }
  Publish(s);
}

void Ldcp::OnNack(Time now, CcState& s) {
  (void)now;
  if (p_.variant == LdcpVariant::kWindow && fast_start_) {
    // §3.1 transition 1: loss in fast start; cw = packets acknowledged in order
    // before the loss (the NIC retransmits by go-back-N).
    fast_start_ = false;
    cw_ = std::max(1.0, static_cast<double>(fs_acked_));
    if (max_cw_ > 0) cw_ = std::min(cw_, max_cw_);
    s.ect = true;
  }
  Publish(s);
}

void Ldcp::OnCnp(Time now, CcState& s) {
  (void)now;
  if (p_.variant != LdcpVariant::kEventApi) return;  // kWindow reads ECE on ACKs
  Decrease(1);
  Publish(s);
}

void Ldcp::OnTimer(Time now, int timer, CcState& s) {
  if (p_.variant != LdcpVariant::kEventApi || timer != kProbeTimer) return;
  // An RTT-probe response: one RTT has elapsed, W += alpha (gamma below one
  // packet); then the next probe goes out.
  if (cw_ >= 1.0) {
    cw_ += p_.alpha;
  } else {
    cw_ += p_.gamma;
  }
  cw_ = std::min(cw_, bdp_);
  if (max_cw_ > 0) cw_ = std::min(cw_, max_cw_);
  const Time probe = p_.probe_interval > 0 ? p_.probe_interval : std::max<Time>(1, base_rtt_);
  s.SetTimer(kProbeTimer, now + probe);
  Publish(s);
}

void Ldcp::Publish(CcState& s) const {
  if (p_.variant == LdcpVariant::kEventApi) {
    s.window_bytes = 0;
    const double rate = base_rtt_ > 0
                            ? cw_ * mtu_ * 8 * kPsPerSecond / static_cast<double>(base_rtt_)
                            : static_cast<double>(line_);
    s.rate_bps = std::clamp<int64_t>(std::llround(rate), 1, line_);
    return;
  }
  if (fast_start_) {
    s.window_bytes = static_cast<int64_t>(iw_) * static_cast<int64_t>(mtu_);
    s.rate_bps = line_;
  } else if (cw_ >= 1.0) {
    s.window_bytes = static_cast<int64_t>(std::floor(cw_)) * static_cast<int64_t>(mtu_);
    s.rate_bps = line_;
  } else {
    // One packet per RTT/cw: window of one packet, paced at cw packets per RTT.
    s.window_bytes = static_cast<int64_t>(mtu_);
    const double rate = rtt_ > 0 ? cw_ * mtu_ * 8 * kPsPerSecond / static_cast<double>(rtt_)
                                 : static_cast<double>(line_);
    s.rate_bps = std::clamp<int64_t>(std::llround(rate), 1, line_);
  }
}

}  // namespace rocesim
