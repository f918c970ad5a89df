// TIMELY: RTT-gradient rate control for RDMA (seed 004, which carries the
// authors' reference getNewRate() and its recommended parameters; Mittal et
// al., "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM 2015,
// §3-4 and Algorithm 1), plus, as an option, "patched TIMELY" from Zhu et al.,
// "ECN or Delay: Lessons Learnt from Analysis of DCQCN and TIMELY", CoNEXT 2016,
// §4.3 (their Algorithm "Patched TIMELY rate calculation").
//
// By default one rate update per completed segment (paper §3.1 Fig. 7: a
// segment of 16-64 KB is one completion event with one RTT sample); the
// update cadence (per ACK, segment or RTT), the pacing (per packet or
// segment burst) and the variant (seed 004's code or Algorithm 1 as
// printed) are chosen apart in TimelyParams. The RTT is the NIC
// timestamp sample minus the segment's serialization at line rate
// (RTT = t_completion - t_send - Seg/NICLineRate, paper §3.1), so that the
// signal is propagation + queueing only. The update itself is the seed's
// getNewRate() line for line:
//   rtt_diff = rtt - prev_rtt                   (prev_rtt := rtt on the first sample)
//   neg_count = rtt_diff < 0 ? neg_count + 1 : 0
//   avg_diff = (1 - alpha) avg_diff + alpha rtt_diff
//   g = avg_diff / min_rtt;  df = min((now - last_update) / min_rtt, 1)
//   rtt < T_low      -> rate + delta * df
//   rtt > T_high     -> rate * (1 - df * beta * (1 - T_high / rtt))
//   g <= 0           -> rate + N * delta * df  (N = 5 once neg_count >= HAI_thresh)
//   g > 0            -> rate * (1 - beta * g)
//   then new >= 0.5 * rate, new <= max_rate, new >= min_rate.
// Patched TIMELY (CoNEXT'16) replaces only the T_low..T_high band (the last
// two branches) by a continuous weight on the gradient and a decrease driven
// by the absolute RTT, which gives a unique, fair fixed point:
//   w(g) = 0 (g <= -1/4), 2g + 1/2 (-1/4 < g < 1/4), 1 (g >= 1/4)
//   error = (rtt - RTT_ref) / RTT_ref
//   rate <- delta (1 - w) + rate (1 - beta' w error)       (beta' = 0.008)
// At a steady queue g -> 0, w = 1/2, so every flow settles at
// rate* = delta / (beta' error), the same for all flows sharing the queue.
//
// The class is a pure state machine behind CongestionControl: it never touches
// the simulator. Arithmetic is in double (times as picoseconds), in a fixed
// order, so runs are bit-for-bit reproducible.
#pragma once

#include <cstdint>

#include "cc/congestion_control.h"
#include "core/time.h"

namespace rocesim {

struct TimelyParams {
  // --- Which TIMELY. ---
  // kSeed: seed 004's getNewRate(), whose additive steps (and the T_high
  // decrease) are scaled by delta_factor = min(elapsed / minRTT, 1) and whose
  // decrease is capped at half the rate. kPaper: SIGCOMM'15 Algorithm 1 as
  // printed: one full step per completion event (delta_factor = 1), no cap
  // on the decrease (the min_rate floor still holds).
  enum class Variant { kSeed, kPaper };
  Variant variant = Variant::kSeed;
  // --- When the rate is updated, and how packets are paced: independent. ---
  // kAuto: per segment if segment_bytes exceeds the MTU, else per ACK (and
  // pacing follows). kAck: every ACK with a sample; kSegment: the ACK that
  // completes segment_bytes; kRtt: the first ACK beyond what was sent at the
  // last update, once per RTT (the HPCC simulator's TIMELY).
  enum class Update { kAuto, kAck, kSegment, kRtt };
  Update update = Update::kAuto;
  // kAuto: segment bursts when updating per segment, else per packet.
  // kPacket: every packet at the rate; kSegment: segment_bytes bursts at
  // line rate spaced at the rate (seed 004). The CoNEXT'16 analysis paces
  // per packet and updates per segment.
  enum class Pacing { kAuto, kPacket, kSegment };
  Pacing pacing = Pacing::kAuto;
  // --- Rate-update granularity (paper §3.1, §5: 16-64 KB segments). ---
  // The rate is updated once per `segment_bytes` of newly acknowledged payload,
  // with the RTT sample of the ACK that completes the segment. If
  // segment_bytes <= the QP's MTU payload, every ACK is its own completion
  // event ("per-packet" TIMELY; then use t_low = 0, see PerPacket()).
  uint32_t segment_bytes = 64 * 1024;

  // What is subtracted from the NIC RTT sample before the update (paper §3.1).
  enum class Serialization {
    kSegment,  // segment_bytes (one MTU in per-ACK mode) at line rate: the
               // paper's definition, exact when the NIC's sample runs from the
               // send of the segment's first packet
    kPacket,   // one MTU payload: when the sample runs from the send of the
               // single packet whose arrival triggered the ACK
    kNone,
  };
  Serialization serialization = Serialization::kSegment;

  // --- getNewRate() knobs; defaults are seed 004's "recommended values". ---
  double ewma_alpha = 0.02;        // seed code (paper §5 / CoNEXT'16 quote 0.875)
  Time t_low = 50 * kMicrosecond;  // seed: 50 us for 64 KB pacing, 0 per-packet
  Time t_high = 1 * kMillisecond;  // seed: 1 ms (the paper's evaluation uses 500 us)
  int hai_thresh = 5;              // consecutive negative RTT diffs before HAI
  int hai_multiplier = 5;          // N in rate + N * delta (paper §4.3, seed)
  double beta = 0.8;               // decreaseFactor
  double max_decrease = 0.5;       // new rate >= max_decrease * old (seed code only)
  // Additive increment: seed "10 Mbps for 10 Gbps line rate". Absolute if
  // nonzero; otherwise ai_per_line_rate * line rate (10 Mb/s at 10G, 100 Mb/s
  // at 100G) so that ramp-up time in units of line rate is the same at every
  // speed.
  int64_t additive_increment_bps = 0;
  double ai_per_line_rate = 1e-3;
  // Clamps: 0 = derived. max -> line rate (seed); min -> line rate / 1000
  // (seed leaves it optional; a floor keeps a QP from stalling at rate 0).
  int64_t min_rate_bps = 0;
  int64_t max_rate_bps = 0;
  int64_t initial_rate_bps = 0;  // 0 -> max rate (CongestionControl default)
  // minRTT_ of the seed, normalising the gradient and delta_factor: the QP's
  // unloaded RTT (CcState::base_rtt) unless set; 20 us (the paper's D_minRTT)
  // if neither is known.
  Time min_rtt = 0;

  // --- Patched TIMELY (Zhu et al., CoNEXT 2016 §4.3). ---
  bool patched = false;
  double patched_beta = 0.008;  // CoNEXT'16: "we set beta = 0.008 and Seg = 16KB"
  // RTT_ref (reference queue q' = C * T_low): 0 -> t_low, or min_rtt if t_low
  // is 0 (the error must not divide by zero).
  Time patched_rtt_ref = 0;

  // The seed's per-packet pacing recommendation: update per ACK, T_low = 0.
  static TimelyParams PerPacket() {
    TimelyParams p;
    p.segment_bytes = 0;
    p.t_low = 0;
    return p;
  }
  // CoNEXT'16 patched TIMELY with the paper's 16 KB segments.
  static TimelyParams Patched() {
    TimelyParams p;
    p.patched = true;
    p.segment_bytes = 16 * 1024;
    return p;
  }
};

class Timely : public CongestionControl {
 public:
  explicit Timely(const TimelyParams& params = TimelyParams{}) : p_(params) {}

  // Resolves the derived parameters from the QP (line rate, base RTT, MTU)
  // and sets the initial rate.
  void OnStart(Time now, CcState& s) override;
  // Accumulates newly acknowledged bytes; on the ACK that completes a segment
  // (and carries an RTT sample) runs one GetNewRate() and publishes the rate.
  void OnAck(const AckInfo& ack, CcState& s) override;

  // The seed's getNewRate(rtt, rate) with curTime() = now: one update from one
  // RTT sample (picoseconds, serialization already removed). Updates the
  // gradient state and returns the new rate in b/s. Needs OnStart first.
  double GetNewRate(double rtt, double rate, Time now);

  // CoNEXT'16 weight of the rate decrease as a function of the gradient.
  static double PatchedWeight(double normalized_gradient);

  // Inspection (tests, tracing).
  double rate() const { return rate_; }
  double avg_rtt_diff() const { return avg_rtt_diff_; }
  double prev_rtt() const { return prev_rtt_; }
  int neg_gradient_count() const { return neg_gradient_count_; }
  Time last_rtt_sample() const { return last_rtt_sample_; }
  uint64_t updates() const { return updates_; }
  uint64_t pending_bytes() const { return acked_bytes_; }
  Time min_rtt() const { return min_rtt_; }
  Time rtt_ref() const { return rtt_ref_; }
  double additive_increment() const { return ai_bps_; }
  double min_rate() const { return min_rate_; }
  double max_rate() const { return max_rate_; }
  bool segment_mode() const { return update_ == TimelyParams::Update::kSegment; }
  Time serialization() const { return serialization_; }
  const TimelyParams& params() const { return p_; }

 private:
  TimelyParams p_;
  // Resolved at OnStart.
  Time min_rtt_ = 20 * kMicrosecond;
  Time rtt_ref_ = 50 * kMicrosecond;
  double ai_bps_ = 0;
  double min_rate_ = 0;
  double max_rate_ = 0;
  TimelyParams::Update update_ = TimelyParams::Update::kSegment;  // never kAuto
  bool bursts_ = true;                                            // paced in segment_bytes bursts
  Time serialization_ = 0;  // subtracted from every RTT sample
  // Seed instance variables (all initialised to 0 as the seed says).
  double prev_rtt_ = 0;
  int neg_gradient_count_ = 0;
  double avg_rtt_diff_ = 0;
  double last_update_time_ = 0;
  // Segment accounting and output.
  uint64_t acked_bytes_ = 0;
  double rate_ = 0;
  Time last_rtt_sample_ = 0;
  uint32_t last_update_psn_ = 0;  // kRtt: the sender's next PSN at the last update
  uint64_t updates_ = 0;
};

}  // namespace rocesim
