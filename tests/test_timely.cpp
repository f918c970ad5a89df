// Tests of TIMELY (cc/timely.h). The spec is seed 004's getNewRate(), which
// is transcribed below as an independent reference (SeedTimely); the
// implementation must reproduce its rate sequence exactly on hand-made RTT
// sequences. Hand-computed steps check the formulas themselves (Mittal et al.,
// SIGCOMM'15 Algorithm 1 + seed code), segment pacing, serialization
// subtraction, clamps, and the CoNEXT'16 patched variant (Zhu et al. §4.3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cc/timely.h"

namespace rocesim {
namespace test_timely {
namespace {

using std::max;
using std::min;

// ---------------------------------------------------------------------------
// Seed 004's getNewRate(), transcribed as given (the instance variables and
// parameters become members; curTime() returns the time we set).
struct SeedTimely {
  // Parameters.
  double ewma_alpha = 0.02;
  double t_low = 0;
  double t_high = 0;
  int HAI_thresh = 5;
  double additiveIncrement = 0;
  double decreaseFactor = 0.8;
  double maxRate = 0;
  double minRate = 0;
  double minRTT_ = 0;
  // Instance variables, initialised as the seed says.
  double prevRTT_ = 0;
  int negGradientCount_ = 0;
  double avgRTTDiff_ = 0;
  double last_update_time_ = 0;
  double now = 0;
  double curTime() const { return now; }

  double getNewRate(double rtt, double rate) {
    if (prevRTT_ == 0) prevRTT_ = rtt;
    double rtt_diff = rtt - prevRTT_;
    if (rtt_diff < 0) {
      negGradientCount_++;
    } else {
      negGradientCount_ = 0;
    }
    avgRTTDiff_ = ((1 - ewma_alpha) * avgRTTDiff_) + (ewma_alpha * rtt_diff);
    double normalized_gradient = avgRTTDiff_ / minRTT_;
    double delta_factor = (curTime() - last_update_time_) / minRTT_;
    delta_factor = min(delta_factor, 1.0);
    prevRTT_ = rtt;
    last_update_time_ = curTime();
    double new_rate;
    if (rtt < t_low) {  // additivive increase if rtt < t_low
      new_rate = rate + (additiveIncrement * delta_factor);
    } else {
      if (rtt > t_high) {  // multiplicative decrease if rtt > t_high
        new_rate = rate * (1 - (delta_factor * decreaseFactor * (1 - (t_high / rtt))));
      } else {
        if (normalized_gradient <= 0) {  // additive increase if avg gradient <= 0
          int N = 1;
          if (negGradientCount_ >= HAI_thresh) N = 5;
          new_rate = rate + (N * additiveIncrement * delta_factor);
        } else {  // multiplicative decrease if avg gradient > 0
          new_rate = rate * (1.0 - (decreaseFactor * normalized_gradient));
        }
      }
    }
    // derease in rate capped by 0.5 times the old rate
    new_rate = max(new_rate, rate * 0.5);
    // enabling max and min cap on the new rate
    new_rate = min(new_rate, maxRate);
    new_rate = max(new_rate, minRate);
    return new_rate;
  }
};
// ---------------------------------------------------------------------------

constexpr int64_t kGbps = 1000LL * 1000 * 1000;
constexpr int64_t kMbps = 1000LL * 1000;
constexpr Time kUs = kMicrosecond;

CcState MakeState(int64_t line_rate_bps, Time base_rtt, int mtu_bytes = 1000) {
  CcState s;
  s.line_rate_bps = line_rate_bps;
  s.base_rtt = base_rtt;
  s.mtu_bytes = mtu_bytes;
  return s;
}

AckInfo MakeAck(Time now, uint32_t bytes, Time rtt) {
  AckInfo a;
  a.now = now;
  a.newly_acked_bytes = bytes;
  a.rtt = rtt;
  return a;
}

// Per-ACK updates with the sample passed through unchanged, so the RTT the
// test feeds is exactly the RTT getNewRate() sees.
TimelyParams RawPerAck() {
  TimelyParams p = TimelyParams::PerPacket();
  p.t_low = 50 * kUs;
  p.serialization = TimelyParams::Serialization::kNone;
  return p;
}

SeedTimely ReferenceFor(const Timely& t, const TimelyParams& p) {
  SeedTimely r;
  r.ewma_alpha = p.ewma_alpha;
  r.t_low = static_cast<double>(p.t_low);
  r.t_high = static_cast<double>(p.t_high);
  r.HAI_thresh = p.hai_thresh;
  r.additiveIncrement = t.additive_increment();
  r.decreaseFactor = p.beta;
  r.maxRate = t.max_rate();
  r.minRate = t.min_rate();
  r.minRTT_ = static_cast<double>(t.min_rtt());
  return r;
}

struct Sample {
  Time now;
  Time rtt;
};

// Drives Timely (through OnAck) and the seed reference side by side and
// returns how many steps were compared.
int ExpectMatchesSeed(const TimelyParams& p, const CcState& init, const std::vector<Sample>& seq) {
  Timely t(p);
  CcState s = init;
  t.OnStart(0, s);
  SeedTimely ref = ReferenceFor(t, p);
  double ref_rate = static_cast<double>(s.rate_bps);
  int step = 0;
  for (const Sample& x : seq) {
    t.OnAck(MakeAck(x.now, 1000, x.rtt), s);
    ref.now = static_cast<double>(x.now);
    ref_rate = ref.getNewRate(static_cast<double>(x.rtt), ref_rate);
    EXPECT_DOUBLE_EQ(t.rate(), ref_rate) << "step " << step << " rtt " << x.rtt;
    EXPECT_EQ(s.rate_bps, std::llround(ref_rate)) << "step " << step;
    EXPECT_EQ(t.neg_gradient_count(), ref.negGradientCount_) << "step " << step;
    EXPECT_DOUBLE_EQ(t.avg_rtt_diff(), ref.avgRTTDiff_) << "step " << step;
    ++step;
  }
  EXPECT_EQ(t.updates(), seq.size());
  return step;
}

// --- Identity with the seed's getNewRate() ---------------------------------

TEST(TimelySeed, RisingRttsMatchReference) {
  TimelyParams p = RawPerAck();
  p.initial_rate_bps = 6 * kGbps;
  std::vector<Sample> seq;
  for (int i = 0; i < 40; ++i) seq.push_back({(100 + 12 * i) * kUs, (60 + 10 * i) * kUs});
  EXPECT_EQ(ExpectMatchesSeed(p, MakeState(10 * kGbps, 10 * kUs), seq), 40);
}

TEST(TimelySeed, FallingRttsWithHaiMatchReference) {
  TimelyParams p = RawPerAck();
  p.initial_rate_bps = 2 * kGbps;
  std::vector<Sample> seq;
  Time now = 100 * kUs;
  for (int i = 0; i < 15; ++i, now += 8 * kUs) seq.push_back({now, (200 + 30 * i) * kUs});
  for (int i = 0; i < 25; ++i, now += 8 * kUs) seq.push_back({now, (640 - 20 * i) * kUs});
  EXPECT_EQ(ExpectMatchesSeed(p, MakeState(10 * kGbps, 10 * kUs), seq), 40);
}

TEST(TimelySeed, BelowTLowWithVariableSpacingMatchesReference) {
  TimelyParams p = RawPerAck();
  p.initial_rate_bps = 3 * kGbps;
  const Time gaps[] = {3 * kUs, 7 * kUs, 15 * kUs, 1 * kUs, 40 * kUs};
  std::vector<Sample> seq;
  Time now = 10 * kUs;
  for (int i = 0; i < 30; ++i) {
    now += gaps[i % 5];
    seq.push_back({now, (10 + (i * 7) % 39) * kUs});
  }
  EXPECT_EQ(ExpectMatchesSeed(p, MakeState(10 * kGbps, 10 * kUs), seq), 30);
}

TEST(TimelySeed, AboveTHighMatchesReference) {
  TimelyParams p = RawPerAck();
  std::vector<Sample> seq;
  const Time rtts[] = {1200, 1500, 3000, 2000, 1100, 900, 5000, 1001, 999, 40};
  Time now = 50 * kUs;
  for (Time r : rtts) {
    now += 4 * kUs;
    seq.push_back({now, r * kUs});
  }
  EXPECT_EQ(ExpectMatchesSeed(p, MakeState(10 * kGbps, 10 * kUs), seq), 10);
}

TEST(TimelySeed, PseudoRandomSequenceMatchesReference) {
  // Every branch, the 0.5 cap and both clamps, over a long deterministic run.
  TimelyParams p = RawPerAck();
  p.t_high = 500 * kUs;  // the paper's value, so more samples land above it
  std::vector<Sample> seq;
  uint64_t x = 12345;
  Time now = 0;
  for (int i = 0; i < 2000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    now += (1 + static_cast<Time>((x >> 33) % 30)) * kUs;
    const Time rtt = static_cast<Time>((x >> 17) % 2500) * kUs +
                     static_cast<Time>((x >> 40) % 1000) * kNanosecond;
    seq.push_back({now, rtt > 0 ? rtt : 1});
  }
  EXPECT_EQ(ExpectMatchesSeed(p, MakeState(25 * kGbps, 8 * kUs), seq), 2000);
}

TEST(TimelySeed, SegmentPacedPipelineMatchesReference) {
  // 16 KB segments ACKed 4 KB at a time at 25G: only every 4th ACK updates,
  // with its RTT minus 16 KB of serialization (5242.88 ns -> 5243 ns).
  TimelyParams p;
  p.segment_bytes = 16 * 1024;
  p.initial_rate_bps = 20 * kGbps;
  Timely t(p);
  CcState s = MakeState(25 * kGbps, 6 * kUs, 4096);
  t.OnStart(0, s);
  const Time ser = SerializationTime(16 * 1024, 25 * kGbps);
  EXPECT_EQ(ser, 5242880);
  EXPECT_EQ(t.serialization(), ser);
  SeedTimely ref = ReferenceFor(t, p);
  double ref_rate = 20.0 * kGbps;
  Time now = 0;
  for (int i = 0; i < 200; ++i) {
    now += 2 * kUs;
    const Time rtt = ser + (30 + (i * 37) % 120) * kUs;
    t.OnAck(MakeAck(now, 4096, rtt), s);
    if (i % 4 == 3) {
      ref.now = static_cast<double>(now);
      ref_rate = ref.getNewRate(static_cast<double>(rtt - ser), ref_rate);
    }
    ASSERT_DOUBLE_EQ(t.rate(), ref_rate) << "ack " << i;
  }
  EXPECT_EQ(t.updates(), 50u);
}

// --- Hand-computed steps -----------------------------------------------------

TEST(TimelyStep, GradientDecreaseExactValues) {
  TimelyParams p = RawPerAck();  // alpha 0.02, beta 0.8, T_low 50us, T_high 1ms
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs);  // min RTT 10 us
  t.OnStart(0, s);
  // First sample: prev := rtt, diff 0, gradient 0 -> AI, clamped at 10G.
  t.OnAck(MakeAck(20 * kUs, 1000, 100 * kUs), s);
  EXPECT_DOUBLE_EQ(t.rate(), 10e9);
  // +50 us: avg diff = 0.02 * 50 = 1 us, g = 0.1, rate * (1 - 0.8 * 0.1).
  t.OnAck(MakeAck(30 * kUs, 1000, 150 * kUs), s);
  EXPECT_NEAR(t.avg_rtt_diff(), 1e6, 1e-6);
  EXPECT_NEAR(t.rate(), 9.2e9, 1.0);
  EXPECT_EQ(s.rate_bps, 9200000000);
  // Flat: avg diff = 0.98 us, g = 0.098, 9.2G * (1 - 0.0784) = 8.47872G.
  t.OnAck(MakeAck(40 * kUs, 1000, 150 * kUs), s);
  EXPECT_NEAR(t.rate(), 8.47872e9, 1.0);
}

TEST(TimelyStep, HaiAfterFiveConsecutiveDecreases) {
  TimelyParams p = RawPerAck();
  p.initial_rate_bps = 5 * kGbps;
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs);  // delta = 10 Mb/s, steps of 10 us -> df 1
  t.OnStart(0, s);
  t.OnAck(MakeAck(100 * kUs, 1000, 500 * kUs), s);  // diff 0: +delta
  EXPECT_DOUBLE_EQ(t.rate(), 5.01e9);
  const double expect[] = {5.02e9, 5.03e9, 5.04e9, 5.05e9, 5.10e9, 5.15e9};
  for (int i = 0; i < 6; ++i) {
    t.OnAck(MakeAck((110 + 10 * i) * kUs, 1000, (490 - 10 * i) * kUs), s);
    EXPECT_EQ(t.neg_gradient_count(), i + 1);
    EXPECT_DOUBLE_EQ(t.rate(), expect[i]) << "decrease " << i + 1;  // N = 5 from the 5th
  }
  // One rise resets the count: the smoothed gradient is still negative, so
  // the rate still increases, but by 1 x delta only.
  t.OnAck(MakeAck(170 * kUs, 1000, 445 * kUs), s);
  EXPECT_EQ(t.neg_gradient_count(), 0);
  EXPECT_LT(t.avg_rtt_diff(), 0);
  EXPECT_DOUBLE_EQ(t.rate(), 5.16e9);
}

TEST(TimelyStep, AdditiveIncreaseScaledByElapsedTime) {
  TimelyParams p = RawPerAck();
  p.initial_rate_bps = 5 * kGbps;
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs);
  t.OnStart(0, s);
  t.OnAck(MakeAck(100 * kUs, 1000, 20 * kUs), s);  // since 0: df = min(10, 1)
  EXPECT_DOUBLE_EQ(t.rate(), 5.01e9);
  t.OnAck(MakeAck(102500 * kNanosecond, 1000, 20 * kUs), s);  // 2.5 us: df 0.25
  EXPECT_DOUBLE_EQ(t.rate(), 5.0125e9);
  t.OnAck(MakeAck(200 * kUs, 1000, 20 * kUs), s);  // df capped at 1
  EXPECT_DOUBLE_EQ(t.rate(), 5.0225e9);
}

TEST(TimelyStep, AboveTHighDecreaseFormula) {
  TimelyParams p = RawPerAck();  // T_high 1 ms, beta 0.8
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs);
  t.OnStart(0, s);
  // rtt 2 ms, df 1: 10G * (1 - 0.8 * (1 - 1/2)) = 6G.
  t.OnAck(MakeAck(1000 * kUs, 1000, 2000 * kUs), s);
  EXPECT_NEAR(t.rate(), 6e9, 1e-3);
  // rtt 4 ms after 5 us (df 0.5): 6G * (1 - 0.5 * 0.8 * 0.75) = 4.2G.
  t.OnAck(MakeAck(1005 * kUs, 1000, 4000 * kUs), s);
  EXPECT_NEAR(t.rate(), 4.2e9, 1e-3);
  // rtt 10 ms, df 1: factor 1 - 0.8 * 0.9 = 0.28 < 0.5 -> capped at half.
  t.OnAck(MakeAck(1100 * kUs, 1000, 10000 * kUs), s);
  EXPECT_NEAR(t.rate(), 2.1e9, 1e-3);
}

TEST(TimelyStep, GradientDecreaseCappedAtHalf) {
  TimelyParams p = RawPerAck();
  p.ewma_alpha = 1.0;  // gradient = last diff / min RTT
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs);
  t.OnStart(0, s);
  t.OnAck(MakeAck(100 * kUs, 1000, 100 * kUs), s);
  // diff 10 us -> g = 1 -> factor 1 - 0.8 = 0.2, capped at 0.5.
  t.OnAck(MakeAck(110 * kUs, 1000, 110 * kUs), s);
  EXPECT_DOUBLE_EQ(t.rate(), 5e9);
  // diff 2 us -> g = 0.2 -> factor 0.84 (above the cap).
  t.OnAck(MakeAck(120 * kUs, 1000, 112 * kUs), s);
  EXPECT_NEAR(t.rate(), 4.2e9, 1e-3);
}

TEST(TimelyStep, MinAndMaxClamps) {
  TimelyParams p = RawPerAck();
  p.min_rate_bps = 1 * kGbps;
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs);
  t.OnStart(0, s);
  EXPECT_EQ(s.rate_bps, 10 * kGbps);
  t.OnAck(MakeAck(100 * kUs, 1000, 20 * kUs), s);  // AI at max: stays at line rate
  EXPECT_DOUBLE_EQ(t.rate(), 10e9);
  // 10 ms RTTs: halves (cap) 10 -> 5 -> 2.5 -> 1.25 -> 1 (floor) -> 1.
  const double expect[] = {5e9, 2.5e9, 1.25e9, 1e9, 1e9};
  for (int i = 0; i < 5; ++i) {
    t.OnAck(MakeAck((200 + 100 * i) * kUs, 1000, 10000 * kUs), s);
    EXPECT_DOUBLE_EQ(t.rate(), expect[i]) << i;
  }
  EXPECT_EQ(s.rate_bps, 1 * kGbps);

  TimelyParams q = RawPerAck();
  q.max_rate_bps = 8 * kGbps;
  Timely u(q);
  CcState s2 = MakeState(10 * kGbps, 10 * kUs);
  u.OnStart(0, s2);
  EXPECT_EQ(s2.rate_bps, 8 * kGbps);
  u.OnAck(MakeAck(100 * kUs, 1000, 20 * kUs), s2);
  EXPECT_DOUBLE_EQ(u.rate(), 8e9);
}

// --- Segment pacing and RTT sampling ----------------------------------------

TEST(TimelySegment, NoUpdateUntilSegmentAcked) {
  TimelyParams p;  // 64 KB segments
  p.serialization = TimelyParams::Serialization::kNone;
  p.initial_rate_bps = 5 * kGbps;
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs, 1000);
  t.OnStart(0, s);
  EXPECT_TRUE(t.segment_mode());
  // 65 x 1000 B = 65000 < 65536: no update, whatever the RTTs say.
  for (int i = 0; i < 65; ++i) t.OnAck(MakeAck((10 + i) * kUs, 1000, 20 * kUs), s);
  EXPECT_EQ(t.updates(), 0u);
  EXPECT_EQ(t.pending_bytes(), 65000u);
  EXPECT_EQ(s.rate_bps, 5 * kGbps);
  // The 66th completes the segment; its RTT (2 ms > T_high) drives the update.
  t.OnAck(MakeAck(200 * kUs, 1000, 2000 * kUs), s);
  EXPECT_EQ(t.updates(), 1u);
  EXPECT_EQ(t.pending_bytes(), 66000u - 65536u);
  EXPECT_DOUBLE_EQ(t.prev_rtt(), 2000.0 * kUs);
  EXPECT_NEAR(t.rate(), 3e9, 1e-3);  // 5G * (1 - 0.8 * 0.5)
  EXPECT_EQ(s.rate_bps, 3 * kGbps);
}

TEST(TimelySegment, CompletingAckWithoutSampleDefersUpdate) {
  TimelyParams p;
  p.segment_bytes = 4000;
  p.serialization = TimelyParams::Serialization::kNone;
  p.initial_rate_bps = 5 * kGbps;
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs, 1000);
  t.OnStart(0, s);
  t.OnAck(MakeAck(10 * kUs, 4000, 0), s);  // segment complete, no RTT sample
  EXPECT_EQ(t.updates(), 0u);
  t.OnAck(MakeAck(20 * kUs, 0, 30 * kUs), s);  // duplicate: acks nothing new
  EXPECT_EQ(t.updates(), 0u);
  t.OnAck(MakeAck(30 * kUs, 1000, 30 * kUs), s);
  EXPECT_EQ(t.updates(), 1u);
  EXPECT_EQ(t.pending_bytes(), 1000u);
  EXPECT_EQ(t.last_rtt_sample(), 30 * kUs);
  // An ACK covering several segments is one completion event.
  t.OnAck(MakeAck(40 * kUs, 9000, 30 * kUs), s);
  EXPECT_EQ(t.updates(), 2u);
  EXPECT_EQ(t.pending_bytes(), 2000u);
}

TEST(TimelySegment, PerAckWhenSegmentNotLargerThanMtu) {
  TimelyParams p;
  p.segment_bytes = 1000;
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs, 1000);
  t.OnStart(0, s);
  EXPECT_FALSE(t.segment_mode());
  for (int i = 0; i < 3; ++i) t.OnAck(MakeAck((10 + i) * kUs, 1000, 30 * kUs), s);
  EXPECT_EQ(t.updates(), 3u);
  EXPECT_EQ(t.pending_bytes(), 0u);
}

// SIGCOMM'15 Algorithm 1 as printed (timely.variant: paper): every update
// takes the full additive step, however soon after the last one, where the
// seed's code scales it by elapsed / minRTT (AdditiveIncreaseScaledByElapsedTime).
TEST(TimelyPaper, FullAdditiveStepPerCompletion) {
  TimelyParams p = RawPerAck();
  p.variant = TimelyParams::Variant::kPaper;
  p.initial_rate_bps = 5 * kGbps;
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs);
  t.OnStart(0, s);
  t.OnAck(MakeAck(100 * kUs, 1000, 20 * kUs), s);
  EXPECT_DOUBLE_EQ(t.rate(), 5.01e9);
  t.OnAck(MakeAck(102500 * kNanosecond, 1000, 20 * kUs), s);  // 2.5 us later: still a full step
  EXPECT_DOUBLE_EQ(t.rate(), 5.02e9);
  // Above T_high the decrease is not scaled either: 2 ms against T_high 1 ms
  // cuts by 0.8 (1 - 1/2) = 40%, 0.25 us after the last update.
  t.OnAck(MakeAck(102750 * kNanosecond, 1000, 2000 * kUs), s);
  EXPECT_DOUBLE_EQ(t.rate(), 5.02e9 * 0.6);
}

// ... and its gradient decrease is not capped at half the rate: g = 1 gives
// 1 - 0.8 = 0.2 of the rate (the seed caps at 0.5: GradientDecreaseCappedAtHalf).
TEST(TimelyPaper, GradientDecreaseNotCapped) {
  TimelyParams p = RawPerAck();
  p.variant = TimelyParams::Variant::kPaper;
  p.ewma_alpha = 1.0;
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs);
  t.OnStart(0, s);
  t.OnAck(MakeAck(100 * kUs, 1000, 100 * kUs), s);
  t.OnAck(MakeAck(110 * kUs, 1000, 110 * kUs), s);
  EXPECT_NEAR(t.rate(), 2e9, 1e-3);
}

// When the rate is updated and how packets are paced are set apart.
TEST(TimelyCadence, PerAckPerSegmentAndPerRtt) {
  auto updates_after = [](TimelyParams::Update update, int acks) {
    TimelyParams p;  // 64 KB segments
    p.update = update;
    p.serialization = TimelyParams::Serialization::kNone;
    Timely t(p);
    CcState s = MakeState(10 * kGbps, 10 * kUs, 1000);
    t.OnStart(0, s);
    // ACK i acknowledges PSN i (next expected i + 1) while the sender has
    // sent 10 packets ahead of it.
    for (int i = 0; i < acks; ++i) {
      AckInfo a = MakeAck((10 + i) * kUs, 1000, 30 * kUs);
      a.acked_psn = static_cast<uint32_t>(i + 1);
      a.next_psn = static_cast<uint32_t>(i + 11);
      t.OnAck(a, s);
    }
    return t.updates();
  };
  EXPECT_EQ(updates_after(TimelyParams::Update::kAck, 100), 100u);
  EXPECT_EQ(updates_after(TimelyParams::Update::kSegment, 100), 1u);  // 100 KB: one 64 KB segment
  EXPECT_EQ(updates_after(TimelyParams::Update::kAuto, 100), 1u);     // 64 KB > MTU: per segment
  // Per RTT: the first ACK updates (next PSN 11); the next update waits for
  // an ACK beyond PSN 11, i.e. acked_psn 12 (the 12th ACK), then 23, 34, ...
  EXPECT_EQ(updates_after(TimelyParams::Update::kRtt, 11), 1u);
  EXPECT_EQ(updates_after(TimelyParams::Update::kRtt, 12), 2u);
  EXPECT_EQ(updates_after(TimelyParams::Update::kRtt, 100), 10u);
}

TEST(TimelyCadence, PacingIsIndependentOfUpdates) {
  auto bursts = [](TimelyParams::Update update, TimelyParams::Pacing pacing) {
    TimelyParams p;  // 64 KB segments
    p.update = update;
    p.pacing = pacing;
    Timely t(p);
    CcState s = MakeState(10 * kGbps, 10 * kUs, 1000);
    t.OnStart(0, s);
    return s.burst_bytes;
  };
  using U = TimelyParams::Update;
  using P = TimelyParams::Pacing;
  EXPECT_EQ(bursts(U::kAuto, P::kAuto), 65536u);   // seed 004: segment updates, segment bursts
  EXPECT_EQ(bursts(U::kSegment, P::kPacket), 0u);  // CoNEXT'16: per-packet pacing
  EXPECT_EQ(bursts(U::kAck, P::kSegment), 65536u);
  EXPECT_EQ(bursts(U::kRtt, P::kAuto), 0u);
}

TEST(TimelyRtt, SegmentSerializationSubtracted) {
  TimelyParams p;  // 64 KB, kSegment
  p.t_high = 60 * kUs;
  p.initial_rate_bps = 5 * kGbps;
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs, 1000);
  t.OnStart(0, s);
  // 65536 B * 8 / 10 Gb/s = 52.4288 us.
  EXPECT_EQ(t.serialization(), 52428800);
  t.OnAck(MakeAck(100 * kUs, 65536, 52428800 + 30 * kUs), s);
  EXPECT_EQ(t.last_rtt_sample(), 30 * kUs);
  // Net 30 us < T_low: increase (the raw 82.4 us > T_high would have cut).
  EXPECT_DOUBLE_EQ(t.rate(), 5.01e9);
}

TEST(TimelyRtt, PerAckSerializationIsOnePacket) {
  TimelyParams p = TimelyParams::PerPacket();  // kSegment -> the segment is one MTU
  Timely t(p);
  CcState s = MakeState(100 * kGbps, 5 * kUs, 1000);
  t.OnStart(0, s);
  EXPECT_EQ(t.serialization(), 80 * kNanosecond);  // 1000 B at 100G
  t.OnAck(MakeAck(10 * kUs, 1000, 7 * kUs), s);
  EXPECT_EQ(t.last_rtt_sample(), 7 * kUs - 80 * kNanosecond);

  TimelyParams q;  // segment mode, but subtract one packet only
  q.serialization = TimelyParams::Serialization::kPacket;
  Timely u(q);
  CcState s2 = MakeState(10 * kGbps, 5 * kUs, 1000);
  u.OnStart(0, s2);
  EXPECT_EQ(u.serialization(), 800 * kNanosecond);

  TimelyParams r;
  r.serialization = TimelyParams::Serialization::kNone;
  Timely v(r);
  CcState s3 = MakeState(10 * kGbps, 5 * kUs, 1000);
  v.OnStart(0, s3);
  EXPECT_EQ(v.serialization(), 0);
}

TEST(TimelyRtt, SampleBelowSerializationClampsToZero) {
  TimelyParams p;
  p.initial_rate_bps = 5 * kGbps;
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs, 1000);
  t.OnStart(0, s);
  t.OnAck(MakeAck(100 * kUs, 65536, 40 * kUs), s);  // < 52.4 us of serialization
  EXPECT_EQ(t.last_rtt_sample(), 0);
  EXPECT_DOUBLE_EQ(t.rate(), 5.01e9);
}

// --- Derived parameters -------------------------------------------------------

TEST(TimelyParamsTest, DerivedFromQp) {
  {
    Timely t;
    CcState s = MakeState(100 * kGbps, 12 * kUs, 1000);
    t.OnStart(0, s);
    EXPECT_EQ(t.min_rtt(), 12 * kUs);                 // base RTT
    EXPECT_DOUBLE_EQ(t.additive_increment(), 100e6);  // 10 Mb/s per 10 Gb/s
    EXPECT_DOUBLE_EQ(t.min_rate(), 100e6);
    EXPECT_DOUBLE_EQ(t.max_rate(), 100e9);
    EXPECT_EQ(s.rate_bps, 100 * kGbps);
    EXPECT_EQ(s.window_bytes, 0);
    EXPECT_EQ(t.rtt_ref(), 50 * kUs);
  }
  {
    TimelyParams p;
    p.min_rtt = 7 * kUs;
    p.additive_increment_bps = 5 * kMbps;
    p.initial_rate_bps = 3 * kGbps;
    Timely t(p);
    CcState s = MakeState(10 * kGbps, 12 * kUs, 1000);
    t.OnStart(0, s);
    EXPECT_EQ(t.min_rtt(), 7 * kUs);
    EXPECT_DOUBLE_EQ(t.additive_increment(), 5e6);
    EXPECT_EQ(s.rate_bps, 3 * kGbps);
  }
  {
    Timely t(TimelyParams::PerPacket());
    CcState s = MakeState(10 * kGbps, 0, 1000);
    t.OnStart(0, s);
    EXPECT_EQ(t.min_rtt(), 20 * kUs);  // paper's D_minRTT when nothing is known
    EXPECT_EQ(t.rtt_ref(), 20 * kUs);  // T_low 0 -> min RTT
  }
}

// --- Patched TIMELY (CoNEXT'16) ----------------------------------------------

TEST(TimelyPatched, WeightFunction) {
  EXPECT_EQ(Timely::PatchedWeight(-1.0), 0.0);
  EXPECT_EQ(Timely::PatchedWeight(-0.25), 0.0);
  EXPECT_DOUBLE_EQ(Timely::PatchedWeight(-0.125), 0.25);
  EXPECT_EQ(Timely::PatchedWeight(0.0), 0.5);
  EXPECT_DOUBLE_EQ(Timely::PatchedWeight(0.1), 0.7);
  EXPECT_EQ(Timely::PatchedWeight(0.25), 1.0);
  EXPECT_EQ(Timely::PatchedWeight(3.0), 1.0);
}

TimelyParams PatchedPerAck() {
  TimelyParams p = RawPerAck();  // T_low 50 us -> RTT_ref 50 us
  p.patched = true;
  return p;
}

TEST(TimelyPatched, HandComputedSteps) {
  Timely t(PatchedPerAck());
  CcState s = MakeState(10 * kGbps, 10 * kUs);
  t.OnStart(0, s);
  ASSERT_EQ(t.rtt_ref(), 50 * kUs);
  // rtt 100 us, g 0 -> w 1/2, error (100-50)/50 = 1:
  // 10M * 0.5 + 10G * (1 - 0.008 * 0.5 * 1) = 9.965G (original TIMELY: +delta).
  t.OnAck(MakeAck(100 * kUs, 1000, 100 * kUs), s);
  EXPECT_NEAR(t.rate(), 9.965e9, 1e-3);
  // rtt 110 us 10 us later: avg diff 0.2 us, g 0.02, w 0.54, error 1.2:
  // 10M * 0.46 + 9.965G * (1 - 0.008 * 0.54 * 1.2) = 9917941440.
  t.OnAck(MakeAck(110 * kUs, 1000, 110 * kUs), s);
  EXPECT_NEAR(t.rate(), 9917941440.0, 1e-2);
  // Outside the band the seed's branches are unchanged: below T_low, +delta.
  t.OnAck(MakeAck(120 * kUs, 1000, 40 * kUs), s);
  EXPECT_NEAR(t.rate(), 9927941440.0, 1e-2);
}

TEST(TimelyPatched, UniqueFixedPointFromAnyStartingRate) {
  // Constant RTT in the band: g -> 0, w = 1/2, and
  // rate* = delta / (beta' * error) = 10 Mb/s / (0.008 * 1) = 1.25 Gb/s,
  // from above and from below alike.
  for (int64_t start : {10 * kGbps, 200 * kMbps, 1250 * kMbps + 1}) {
    TimelyParams p = PatchedPerAck();
    p.initial_rate_bps = start;
    Timely t(p);
    CcState s = MakeState(10 * kGbps, 10 * kUs);
    t.OnStart(0, s);
    for (int i = 1; i <= 8000; ++i) t.OnAck(MakeAck(i * 10 * kUs, 1000, 100 * kUs), s);
    EXPECT_NEAR(t.rate(), 1.25e9, 1.0) << "start " << start;
    EXPECT_EQ(t.avg_rtt_diff(), 0.0);
  }
  // The fixed point is set by the RTT: error 3 (200 us) -> 10M / 0.024.
  TimelyParams p = PatchedPerAck();
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs);
  t.OnStart(0, s);
  for (int i = 1; i <= 8000; ++i) t.OnAck(MakeAck(i * 10 * kUs, 1000, 200 * kUs), s);
  EXPECT_NEAR(t.rate(), 10e6 / 0.024, 1.0);
  // Original TIMELY on the same input never settles below line rate (g = 0
  // is additive increase): any rate is "stable" for it.
  Timely o(RawPerAck());
  CcState so = MakeState(10 * kGbps, 10 * kUs);
  o.OnStart(0, so);
  for (int i = 1; i <= 100; ++i) o.OnAck(MakeAck(i * 10 * kUs, 1000, 100 * kUs), so);
  EXPECT_DOUBLE_EQ(o.rate(), 10e9);
}

TEST(TimelyPatched, ExplicitReferenceRtt) {
  TimelyParams p = PatchedPerAck();
  p.patched_rtt_ref = 80 * kUs;
  Timely t(p);
  CcState s = MakeState(10 * kGbps, 10 * kUs);
  t.OnStart(0, s);
  EXPECT_EQ(t.rtt_ref(), 80 * kUs);
  // error (100-80)/80 = 0.25: 5M + 10G * (1 - 0.008 * 0.5 * 0.25) = 9.995G.
  t.OnAck(MakeAck(100 * kUs, 1000, 100 * kUs), s);
  EXPECT_NEAR(t.rate(), 9.995e9, 1e-3);
}

}  // namespace
}  // namespace test_timely
}  // namespace rocesim
