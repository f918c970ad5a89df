// Congestion detector of seed 002 §3.2 (eq. 1): one per input queue and one per
// output queue ("the congestion detection is conducted on both input queue and
// output queue to improve the timeliness", Fig. 4), using QCN's congestion-point
// algorithm with the seed's sign.
//
// Sampling (QCN CP, see rcm_params.h): arrivals are counted in bytes; the
// arrival that uses up the current interval is sampled, and the next interval
// is chosen from that sample's quantised degree: sample_base_bytes / (1 + band),
// band = quantised F_b >> 3 (150, 75, 50, 37.5, 30, 25, 21.4, 18.75 KB for the
// default base), so a more congested queue is sampled more often. The counter
// restarts from the new interval at each sample (remainder dropped, as QCN).
//
// At a sample, with Q_len the queue length including the sampled packet and
// Q_len' the queue length at the previous sample:
//   Q_off = Q_len - Q_eq,  Q_delta = Q_len - Q_len',  F_b = Q_off + w_q Q_delta
// F_b > 0 ("the queue length is exceeding the equilibrium length or the packets
// are accumulating") is a congested sample; it is quantised to 1..63.
//
// Local congestion flag (the seed sets it on the first F_b > 0 and never says
// when it clears; ours):
//  - set by a congested sample;
//  - cleared by a sample with F_b <= 0 taken while Q_len <= Q_eq: not growing
//    and back at or under the equilibrium. A non-congested sample above Q_eq
//    (a long queue that is draining) keeps the flag, so a region does not
//    flap off while its queue is still long;
//  - cleared when the queue drains empty (OnDequeue), because sampling is
//    driven by arrivals: a queue whose senders stopped (paused upstream,
//    flows ended) would otherwise keep a stale flag forever.
//
// Per packet this is a subtraction and a compare (inline); the sample itself is
// out of line. No allocation, no virtual calls.
#pragma once

#include <cstdint>

#include "core/rng.h"
#include "rcm/rcm_fb.h"
#include "rcm/rcm_params.h"

namespace rocesim {

// Bytes to the next sample after a sample that quantised to fb_q (jitter 0).
constexpr int64_t RcmSamplingInterval(int64_t sample_base_bytes, uint8_t fb_q) {
  return sample_base_bytes / (1 + (fb_q >> 3));
}

// What one arrival did to the detector.
struct RcmSample {
  bool sampled = false;       // this arrival was sampled
  bool congested = false;     // sampled with F_b > 0: send a notification / cut W_c
  bool flag_raised = false;   // the local flag went 0 -> 1 at this sample
  bool flag_cleared = false;  // the local flag went 1 -> 0 at this sample
  uint8_t fb_q = 0;           // quantised F_b of the sample (0 if not congested)
  int64_t fb_bytes = 0;       // F_b of eq. 1 in bytes (may be negative)
};

class RcmCongestionDetector {
 public:
  RcmCongestionDetector() : RcmCongestionDetector(RcmDetectorParams{}) {}
  // `seed` only matters with sample_jitter > 0 (a per-detector random stream).
  explicit RcmCongestionDetector(const RcmDetectorParams& p, uint64_t seed = 1);

  // After a packet of `bytes` joined the queue; `queue_bytes` includes it.
  RcmSample OnEnqueue(int64_t bytes, int64_t queue_bytes) {
    to_sample_ -= bytes;
    if (to_sample_ > 0) return {};
    return Sample(queue_bytes);
  }

  // After a packet left the queue; `queue_bytes` is what is left. Returns true
  // when this cleared the local flag (the queue drained empty).
  bool OnDequeue(int64_t queue_bytes) {
    if (queue_bytes > 0 || !flag_) return false;
    flag_ = false;
    fb_q_ = 0;
    return true;
  }

  bool congested() const { return flag_; }        // the local congestion flag
  uint8_t fb_q() const { return fb_q_; }          // quantised F_b of the last sample
  int64_t fb_bytes() const { return fb_bytes_; }  // F_b of the last sample
  int64_t bytes_to_sample() const { return to_sample_; }
  int64_t interval() const { return interval_; }  // the interval now running
  int64_t fb_max_bytes() const { return fb_max_; }
  const RcmDetectorParams& params() const { return p_; }

 private:
  RcmSample Sample(int64_t queue_bytes);
  int64_t NextInterval(uint8_t fb_q);

  RcmDetectorParams p_;
  int64_t fb_max_;
  int64_t to_sample_;
  int64_t interval_;
  int64_t q_old_ = 0;  // Q_len' (queue length at the previous sample)
  int64_t fb_bytes_ = 0;
  uint8_t fb_q_ = 0;
  bool flag_ = false;
  Rng rng_;
};

}  // namespace rocesim
