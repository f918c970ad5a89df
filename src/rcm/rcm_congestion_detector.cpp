// Seed 002 §3.2 eq. 1, QCN-style sampling; the rules are in the header.
#include "rcm/rcm_congestion_detector.h"

#include <cmath>

namespace rocesim {

RcmCongestionDetector::RcmCongestionDetector(const RcmDetectorParams& p, uint64_t seed)
    : p_(p), fb_max_(RcmFbMaxBytes(p.q_eq_bytes, p.w_q)), rng_(seed, 0x52434D44 /* "RCMD" */) {
  interval_ = NextInterval(0);
  to_sample_ = interval_;
}

int64_t RcmCongestionDetector::NextInterval(uint8_t fb_q) {
  int64_t n = RcmSamplingInterval(p_.sample_base_bytes, fb_q);
  if (p_.sample_jitter > 0) {
    // Uniform in [1 - j, 1 + j) of the table value, as CP hardware does.
    const double f = 1.0 + p_.sample_jitter * (2.0 * rng_.Uniform() - 1.0);
    n = std::llround(static_cast<double>(n) * f);
  }
  return n < 1 ? 1 : n;
}

RcmSample RcmCongestionDetector::Sample(int64_t queue_bytes) {
  RcmSample s;
  s.sampled = true;
  const int64_t q_off = queue_bytes - p_.q_eq_bytes;
  const int64_t q_delta = queue_bytes - q_old_;
  s.fb_bytes = q_off + p_.w_q * q_delta;  // eq. 1, > 0 means congestion
  s.fb_q = RcmQuantizeFb(s.fb_bytes, fb_max_);
  s.congested = s.fb_bytes > 0;
  q_old_ = queue_bytes;
  fb_bytes_ = s.fb_bytes;
  fb_q_ = s.fb_q;

  if (s.congested) {
    s.flag_raised = !flag_;
    flag_ = true;
  } else if (flag_ && queue_bytes <= p_.q_eq_bytes) {
    flag_ = false;
    s.flag_cleared = true;
  }
  interval_ = NextInterval(s.fb_q);
  to_sample_ = interval_;
  return s;
}

}  // namespace rocesim
