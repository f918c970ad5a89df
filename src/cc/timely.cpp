// TIMELY rate computation (see timely.h for sources and the formulas).
#include "cc/timely.h"

#include <algorithm>
#include <cmath>

namespace rocesim {

void Timely::OnStart(Time now, CcState& s) {
  (void)now;
  s.wants_sent = false;  // OnSent is the no-op default: not called
  // Seed: "maxRate = line rate".
  max_rate_ = static_cast<double>(p_.max_rate_bps > 0 ? p_.max_rate_bps : s.line_rate_bps);
  min_rate_ = p_.min_rate_bps > 0 ? static_cast<double>(p_.min_rate_bps)
                                  : static_cast<double>(s.line_rate_bps) / 1000.0;
  ai_bps_ = p_.additive_increment_bps > 0
                ? static_cast<double>(p_.additive_increment_bps)
                : p_.ai_per_line_rate * static_cast<double>(s.line_rate_bps);
  min_rtt_ = p_.min_rtt > 0 ? p_.min_rtt : (s.base_rtt > 0 ? s.base_rtt : 20 * kMicrosecond);
  rtt_ref_ = p_.patched_rtt_ref > 0 ? p_.patched_rtt_ref : (p_.t_low > 0 ? p_.t_low : min_rtt_);

  // Segments only make sense longer than one packet; a shorter "segment" is
  // each ACK (seed: per-packet pacing), whether it updates or paces.
  const bool segments = p_.segment_bytes > static_cast<uint32_t>(std::max(s.mtu_bytes, 0));
  using Update = TimelyParams::Update;
  update_ = p_.update != Update::kAuto ? p_.update : segments ? Update::kSegment : Update::kAck;
  if (update_ == Update::kSegment && !segments) update_ = Update::kAck;
  bursts_ = segments && (p_.pacing == TimelyParams::Pacing::kSegment ||
                         (p_.pacing == TimelyParams::Pacing::kAuto && update_ == Update::kSegment));
  serialization_ = 0;
  if (s.line_rate_bps > 0) {
    // A sample runs from the send of a burst's first packet, or of the one
    // packet it answers.
    const int64_t seg_bytes = bursts_ ? p_.segment_bytes : s.mtu_bytes;
    switch (p_.serialization) {
      case TimelyParams::Serialization::kSegment:
        serialization_ = SerializationTime(seg_bytes, s.line_rate_bps);
        break;
      case TimelyParams::Serialization::kPacket:
        serialization_ = SerializationTime(s.mtu_bytes, s.line_rate_bps);
        break;
      case TimelyParams::Serialization::kNone:
        break;
    }
  }

  prev_rtt_ = 0;
  neg_gradient_count_ = 0;
  avg_rtt_diff_ = 0;
  last_update_time_ = 0;  // seed: "last_update_time_: initialized to 0"
  acked_bytes_ = 0;
  last_rtt_sample_ = 0;
  last_update_psn_ = 0;
  updates_ = 0;

  // The scenario's start rate wins over timely.initial_rate (line rate by default).
  rate_ = s.start_rate_bps > 0      ? static_cast<double>(s.start_rate_bps)
          : p_.initial_rate_bps > 0 ? static_cast<double>(p_.initial_rate_bps)
                                    : max_rate_;
  rate_ = std::max(std::min(rate_, max_rate_), min_rate_);
  s.rate_bps = std::llround(rate_);
  s.window_bytes = 0;  // TIMELY is purely rate based
  // Per-segment pacing (seed 004): the NIC sends each segment as a line-rate
  // burst and spaces segments at the rate.
  s.burst_bytes = bursts_ ? p_.segment_bytes : 0;
}

void Timely::OnAck(const AckInfo& ack, CcState& s) {
  // A completion event is data newly delivered; duplicate ACKs complete nothing.
  if (ack.newly_acked_bytes == 0) return;
  acked_bytes_ += ack.newly_acked_bytes;
  const bool segment = update_ == TimelyParams::Update::kSegment;
  if (segment && acked_bytes_ < p_.segment_bytes) return;
  // Once per RTT: only an ACK beyond what was sent at the last update.
  if (update_ == TimelyParams::Update::kRtt && updates_ > 0 && ack.acked_psn <= last_update_psn_)
    return;
  // The completing ACK must carry a sample; otherwise the next one that does
  // closes the segment (the bytes stay counted).
  if (ack.rtt <= 0) return;
  // One RTT sample -> one update, even if this ACK covers several segments.
  acked_bytes_ = segment ? acked_bytes_ % p_.segment_bytes : 0;
  last_update_psn_ = ack.next_psn;

  // Paper §3.1: RTT = t_completion - t_send - Seg / NICLineRate.
  last_rtt_sample_ = std::max<Time>(ack.rtt - serialization_, 0);
  rate_ = GetNewRate(static_cast<double>(last_rtt_sample_), rate_, ack.now);
  ++updates_;
  s.rate_bps = std::llround(rate_);
}

double Timely::PatchedWeight(double g) {
  if (g <= -0.25) return 0.0;
  if (g >= 0.25) return 1.0;
  return 2.0 * g + 0.5;
}

double Timely::GetNewRate(double rtt, double rate, Time now) {
  // Transcribed from seed 004's getNewRate(); same operations, same order.
  const double min_rtt = static_cast<double>(min_rtt_);
  const double cur_time = static_cast<double>(now);
  const double t_low = static_cast<double>(p_.t_low);
  const double t_high = static_cast<double>(p_.t_high);

  if (prev_rtt_ == 0) prev_rtt_ = rtt;
  const double rtt_diff = rtt - prev_rtt_;
  // HAI counts consecutive RTT decreases, whatever branch they land in.
  if (rtt_diff < 0) {
    neg_gradient_count_++;
  } else {
    neg_gradient_count_ = 0;
  }
  avg_rtt_diff_ = ((1 - p_.ewma_alpha) * avg_rtt_diff_) + (p_.ewma_alpha * rtt_diff);
  const double normalized_gradient = avg_rtt_diff_ / min_rtt;
  // Scale additive steps by elapsed time so that frequent updates (small
  // segments, fast links) do not increase faster than once per min RTT.
  // (Algorithm 1 as printed takes the full step every time.)
  const bool paper = p_.variant == TimelyParams::Variant::kPaper;
  double delta_factor = paper ? 1.0 : (cur_time - last_update_time_) / min_rtt;
  delta_factor = std::min(delta_factor, 1.0);
  prev_rtt_ = rtt;
  last_update_time_ = cur_time;

  double new_rate;
  if (rtt < t_low) {
    // Below T_low: no queue to speak of, probe additively.
    new_rate = rate + (ai_bps_ * delta_factor);
  } else if (rtt > t_high) {
    // Above T_high: the absolute RTT is too high whatever the gradient; cut
    // in proportion to the excess, with the instantaneous RTT.
    new_rate = rate * (1 - (delta_factor * p_.beta * (1 - (t_high / rtt))));
  } else if (p_.patched) {
    // CoNEXT'16: continuous weight between increase and decrease, decrease
    // driven by the absolute RTT against RTT_ref -> unique fixed point.
    const double weight = PatchedWeight(normalized_gradient);
    const double ref = static_cast<double>(rtt_ref_);
    const double error = (rtt - ref) / ref;
    new_rate =
        (ai_bps_ * delta_factor) * (1 - weight) + rate * (1 - (p_.patched_beta * weight * error));
  } else if (normalized_gradient <= 0) {
    // Queue draining or flat: additive increase, hyperactive (N x delta)
    // after HAI_thresh consecutive RTT decreases.
    int n = 1;
    if (neg_gradient_count_ >= p_.hai_thresh) n = p_.hai_multiplier;
    new_rate = rate + (n * ai_bps_ * delta_factor);
  } else {
    // Queue building: decrease in proportion to the normalised gradient.
    new_rate = rate * (1.0 - (p_.beta * normalized_gradient));
  }
  // Seed: "decrease in rate capped by 0.5 times the old rate" (not in the
  // paper's Algorithm 1; also keeps 1 - beta * g < 0 from going negative).
  if (!paper) new_rate = std::max(new_rate, rate * p_.max_decrease);
  new_rate = std::min(new_rate, max_rate_);
  new_rate = std::max(new_rate, min_rate_);
  return new_rate;
}

}  // namespace rocesim
