// DCQCN reaction point: see dcqcn.h for the model, sources and the two styles.
#include "cc/dcqcn.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace rocesim {

namespace {

// HPCC schedules the first decrease check 1 ns later than a multiple of the
// interval after the first CNP ("add 1 ns to make sure rate decrease is after
// alpha update"), and every later check a whole interval after the previous.
constexpr Time kHpccCheckOffset = kNanosecond;

// RT + step, saturating at the line rate (step may be i * R_HAI with a large i).
int64_t AddCapped(int64_t rt, int64_t step, int64_t line) {
  if (rt >= line || step >= line - rt) return line;
  return rt + step;
}

}  // namespace

DcqcnParams DcqcnPaperPreset() {
  DcqcnParams p;
  // DCQCN paper §3.1 and its parameter table (40 Gb/s NICs):
  p.g = 1.0 / 256;                       // g = 1/256
  p.alpha_interval = 55 * kMicrosecond;  // K = 55 us ("K must be larger than the CNP timer")
  p.increase_timer = 55 * kMicrosecond;  // timer T = 55 us
  p.byte_counter = 10'000'000;           // byte counter B = 10 MB
  p.fast_recovery_stages = 5;            // F = 5
  p.rate_ai_bps = 40'000'000;            // R_AI = 40 Mb/s
  // The paper gives no number for R_HAI; the authors' simulator configuration
  // (bobzhuyb/ns3-rdma mix/config.txt, which also sets the paper's g, K, F and
  // R_AI) uses RATE_HAI 200Mb/s.
  p.rate_hai_bps = 200'000'000;
  // The paper's RP cuts on every CNP and relies on the NP sending at most one
  // CNP per flow per N = 50 us; there is no RP-side decrease interval. We put
  // that spacing at the RP (50 us), which leaves paced CNPs unchanged and
  // bounds the cut rate when the signal is not paced (ACK ECN-echo).
  p.decrease_interval = 50 * kMicrosecond;
  // No minimum rate in the paper; 100 Mb/s is the MinRate default of the
  // authors' simulator (qbb-net-device.cc).
  p.min_rate_bps = 100'000'000;
  p.clamp_target_rate = true;  // eq. 1: RT = RC on every cut
  p.mode = DcqcnMode::kCnp;
  p.style = DcqcnStyle::kPaper;
  return p;
}

DcqcnParams DcqcnHpccSimPreset() {
  DcqcnParams p;
  // /work/shared/bench/hpcc_config_k8_dcqcn_ws30.txt (CC_MODE 1):
  p.alpha_interval = 1 * kMicrosecond;     // ALPHA_RESUME_INTERVAL 1
  p.decrease_interval = 4 * kMicrosecond;  // RATE_DECREASE_INTERVAL 4
  p.increase_timer = 300 * kMicrosecond;   // RP_TIMER 300
  p.g = 0.00390625;                        // EWMA_GAIN 0.00390625 (1/256)
  p.fast_recovery_stages = 1;              // FAST_RECOVERY_TIMES 1
  p.rate_ai_bps = 20'000'000;              // RATE_AI 20Mb/s
  p.rate_hai_bps = 200'000'000;            // RATE_HAI 200Mb/s
  p.min_rate_bps = 1'000'000'000;          // MIN_RATE 1000Mb/s
  p.clamp_target_rate = false;             // CLAMP_TARGET_RATE 0
  p.byte_counter = 0;                      // HPCC's model has no byte counter
  p.mode = DcqcnMode::kAckEcnEcho;         // CNP flag on ACKs of CE-marked data
  p.style = DcqcnStyle::kHpccSim;
  return p;
}

void ValidateDcqcnParams(const DcqcnParams& p) {
  auto fail = [](const std::string& what) { throw std::invalid_argument("dcqcn: " + what); };
  if (!(p.g > 0.0 && p.g <= 1.0)) fail("g must be in (0, 1]");
  if (p.alpha_interval <= 0) fail("alpha_interval must be > 0");
  if (p.decrease_interval <= 0) fail("decrease_interval must be > 0");
  if (p.increase_timer <= 0) fail("increase_timer must be > 0");
  if (p.byte_counter < 0) fail("byte_counter must be >= 0 (0 = off)");
  if (p.fast_recovery_stages < 0) fail("fast_recovery_stages must be >= 0");
  if (p.rate_ai_bps < 0) fail("rate_ai_bps must be >= 0");
  if (p.rate_hai_bps < 0) fail("rate_hai_bps must be >= 0");
  if (p.min_rate_bps < 0) fail("min_rate_bps must be >= 0");
}

Dcqcn::Dcqcn(const DcqcnParams& params) : p_(params) {
  ValidateDcqcnParams(p_);
  keep_ = 1.0 - p_.g;
}

void Dcqcn::OnStart(Time now, CcState& s) {
  (void)now;
  // Start at line rate with RC = RT = line and alpha = 1 (no slow start: the
  // paper's flows begin at full rate; alpha = 1 so the first cut halves), or
  // with RC = RT = the scenario's start rate.
  line_ = s.line_rate_bps;
  min_rate_ = std::min(p_.min_rate_bps, line_);
  rc_ = rt_ = s.start_rate_bps > 0 ? std::max(s.start_rate_bps, min_rate_) : line_;
  alpha_ = AlphaClock{};
  congested_ = false;
  first_cnp_ = 0;
  decrease_pending_ = false;
  next_decrease_ok_ = 0;
  recovering_ = false;
  t_stage_ = bc_stage_ = 0;
  bytes_ = 0;
  s.ClearTimers();
  // Without a byte counter OnSent does nothing (HPCC's model): not called.
  s.wants_sent = p_.byte_counter > 0;
  // OnAck reacts to ecn_echo in kAckEcnEcho mode only: other ACKs not passed.
  s.ack_calls =
      p_.mode == DcqcnMode::kAckEcnEcho ? CcState::AckCalls::kEcnEcho : CcState::AckCalls::kNone;
  s.window_bytes = 0;  // rate-based only
  Publish(s);
}

void Dcqcn::OnAck(const AckInfo& ack, CcState& s) {
  if (p_.mode == DcqcnMode::kAckEcnEcho && ack.ecn_echo) OnCongestion(ack.now, s);
}

void Dcqcn::OnCnp(Time now, CcState& s) {
  if (p_.mode == DcqcnMode::kCnp) OnCongestion(now, s);
}

void Dcqcn::CatchUp(AlphaClock& a, Time now, Time interval, double keep, double g) {
  while (a.next_tick <= now) {
    if (a.cnp_in_slot) {
      a.alpha = keep * a.alpha + g;  // a CNP arrived in this slot
      a.cnp_in_slot = false;
    } else {
      const double decayed = keep * a.alpha;  // no CNP in this slot
      if (decayed == a.alpha) {
        // Fixed point (0 or the smallest subnormal): every further quiet slot
        // leaves alpha unchanged, so skip straight past `now`.
        a.next_tick += ((now - a.next_tick) / interval + 1) * interval;
        return;
      }
      a.alpha = decayed;
    }
    a.next_tick += interval;
  }
}

double Dcqcn::AlphaAt(Time now) const {
  AlphaClock a = alpha_;
  CatchUp(a, now, p_.alpha_interval, keep_, p_.g);
  return a.alpha;
}

Time Dcqcn::NextHpccCheckAfter(Time now) const {
  // Checks at first_cnp_ + offset + k * interval, k >= 1; the first one > now.
  const Time origin = first_cnp_ + kHpccCheckOffset;
  if (now < origin + p_.decrease_interval) return origin + p_.decrease_interval;
  return origin + ((now - origin) / p_.decrease_interval + 1) * p_.decrease_interval;
}

void Dcqcn::OnCongestion(Time now, CcState& s) {
  if (!congested_) {
    // The first CNP starts the alpha slots (nothing to measure before it).
    congested_ = true;
    first_cnp_ = now;
    alpha_.alpha = 1.0;
    alpha_.next_tick = now + p_.alpha_interval;
    alpha_.cnp_in_slot = (p_.style == DcqcnStyle::kPaper);
  } else {
    CatchUp(alpha_, now, p_.alpha_interval, keep_, p_.g);
    alpha_.cnp_in_slot = true;
  }

  if (p_.style == DcqcnStyle::kHpccSim) {
    // Periodic check: decrease at the next check instant, once however many
    // CNPs arrive before it.
    if (!decrease_pending_) {
      decrease_pending_ = true;
      s.SetTimer(kDecreaseTimer, NextHpccCheckAfter(now));
    }
    return;
  }
  // Paper: react to the CNP itself, at most once per decrease interval; a CNP
  // inside the interval is remembered and applied when the interval ends.
  if (now >= next_decrease_ok_) {
    Decrease(now, s);
  } else if (!decrease_pending_) {
    decrease_pending_ = true;
    s.SetTimer(kDecreaseTimer, next_decrease_ok_);
  }
}

void Dcqcn::Decrease(Time now, CcState& s) {
  CatchUp(alpha_, now, p_.alpha_interval, keep_, p_.g);
  // Remember where congestion began as the target for recovery (see
  // DcqcnParams::clamp_target_rate for when an older target is kept).
  if (p_.clamp_target_rate || t_stage_ > 0 || bc_stage_ > 0) rt_ = rc_;
  const double cut = static_cast<double>(rc_) * (1.0 - alpha_.alpha / 2.0);
  rc_ = std::max(min_rate_, static_cast<int64_t>(cut));
  // A decrease restarts the increase machinery: stages, byte count and timer
  // (seed 000 §7.3: back to fast recovery).
  t_stage_ = bc_stage_ = 0;
  bytes_ = 0;
  recovering_ = true;
  s.SetTimer(kIncreaseTimer, now + p_.increase_timer);
  decrease_pending_ = false;
  s.SetTimer(kDecreaseTimer, kTimeMax);
  next_decrease_ok_ = now + p_.decrease_interval;
  Publish(s);
}

void Dcqcn::IncreaseEvent(bool from_timer, CcState& s) {
  const int f = p_.fast_recovery_stages;
  enum { kFast, kAdditive, kHyper } phase;
  int64_t hai_steps = 1;
  if (p_.style == DcqcnStyle::kPaper) {
    const int hi = std::max(t_stage_, bc_stage_);
    const int lo = std::min(t_stage_, bc_stage_);
    if (hi < f) {
      phase = kFast;
    } else if (lo < f) {
      phase = kAdditive;
    } else {
      phase = kHyper;
      hai_steps = static_cast<int64_t>(lo) - f + 1;
    }
  } else {
    const int stage = std::max(t_stage_, bc_stage_);
    phase = stage < f ? kFast : (stage == f ? kAdditive : kHyper);
  }

  if (phase == kAdditive) {
    rt_ = AddCapped(rt_, p_.rate_ai_bps, line_);
  } else if (phase == kHyper) {
    const int64_t max_steps = p_.rate_hai_bps > 0 ? line_ / p_.rate_hai_bps + 1 : 0;
    rt_ = AddCapped(rt_, std::min(hai_steps, max_steps) * p_.rate_hai_bps, line_);
  }
  // Every phase moves RC half way to RT; rounded up so RC reaches RT exactly
  // (RC <= RT always holds, so the result never exceeds RT or the line rate).
  rc_ = rc_ + (rt_ - rc_ + 1) / 2;

  if (from_timer) {
    ++t_stage_;
  } else {
    ++bc_stage_;
  }
  // Fully recovered: further events could only count stages, which the next
  // decrease resets, so stop the timer and byte counter (saves events).
  if (rc_ == line_ && rt_ == line_) {
    recovering_ = false;
    s.SetTimer(kIncreaseTimer, kTimeMax);
  }
  Publish(s);
}

void Dcqcn::OnSent(Time now, uint32_t bytes, CcState& s) {
  (void)now;
  if (!recovering_ || p_.byte_counter == 0) return;
  bytes_ += bytes;
  while (recovering_ && bytes_ >= p_.byte_counter) {
    bytes_ -= p_.byte_counter;
    IncreaseEvent(/*from_timer=*/false, s);
  }
}

void Dcqcn::OnTimer(Time now, int timer, CcState& s) {
  if (timer < 0 || timer >= CcState::kMaxTimers) return;
  // Ignore a call for a timer that was cancelled or moved later.
  if (now < s.timer_at[timer]) return;
  if (timer == kIncreaseTimer) {
    if (!recovering_) {
      s.SetTimer(timer, kTimeMax);
      return;
    }
    s.SetTimer(timer, now + p_.increase_timer);
    IncreaseEvent(/*from_timer=*/true, s);
  } else if (timer == kDecreaseTimer) {
    s.SetTimer(timer, kTimeMax);
    if (decrease_pending_) Decrease(now, s);
  } else {
    s.SetTimer(timer, kTimeMax);
  }
}

}  // namespace rocesim
