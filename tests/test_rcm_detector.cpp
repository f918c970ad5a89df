// Tests of seed 002 §3.2 eq. 1 congestion detection (rcm/rcm_congestion_detector.h)
// and the 6-bit degree (rcm/rcm_fb.h), hand-computed from the spec:
//   F_b = (Q_len - Q_eq) + w_q (Q_len - Q_len'), > 0 = congestion (seed's sign);
//   quantised ceil(F_b * 63 / F_bmax), F_bmax = Q_eq (2 w_q + 1), capped at 63;
//   next sampling interval = base / (1 + (quantised F_b >> 3)) (QCN table).
#include <gtest/gtest.h>

#include "rcm/rcm_congestion_detector.h"
#include "rcm/rcm_fb.h"

namespace rocesim {
namespace test_rcm_detector {
namespace {

// Q_eq 10,000 B, w 2 -> F_bmax = 50,000 B; base 3,000 B = three 1,000 B packets.
RcmDetectorParams Small() {
  RcmDetectorParams p;
  p.q_eq_bytes = 10'000;
  p.w_q = 2;
  p.sample_base_bytes = 3'000;
  return p;
}

TEST(RcmFb, FbMaxIsQeqTimesTwoWPlusOne) {
  EXPECT_EQ(RcmFbMaxBytes(10'000, 2), 50'000);
  EXPECT_EQ(RcmFbMaxBytes(34'000, 2), 170'000);  // defaults
  EXPECT_EQ(RcmFbMaxBytes(34'000, 1), 102'000);
}

TEST(RcmFb, QuantizeSignRoundingAndClamp) {
  const int64_t m = 50'000;
  EXPECT_EQ(RcmQuantizeFb(0, m), 0);        // F_b = 0 is not congestion
  EXPECT_EQ(RcmQuantizeFb(-5'000, m), 0);   // negative: none
  EXPECT_EQ(RcmQuantizeFb(1, m), 1);        // any F_b > 0 is at least 1 (ceil)
  EXPECT_EQ(RcmQuantizeFb(793, m), 1);      // 793*63/50000 = 0.99918 -> 1
  EXPECT_EQ(RcmQuantizeFb(794, m), 2);      // 1.00044 -> 2
  EXPECT_EQ(RcmQuantizeFb(25'000, m), 32);  // 31.5 -> 32
  EXPECT_EQ(RcmQuantizeFb(26'000, m), 33);  // 32.76 -> 33
  EXPECT_EQ(RcmQuantizeFb(49'999, m), 63);
  EXPECT_EQ(RcmQuantizeFb(50'000, m), 63);   // F_bmax
  EXPECT_EQ(RcmQuantizeFb(290'000, m), 63);  // clamped
}

TEST(RcmFb, DequantizeIsTopOfStepAndRoundTrips) {
  EXPECT_EQ(RcmDequantizeFb(0, 50'000), 0);
  EXPECT_EQ(RcmDequantizeFb(32, 50'000), 25'396);  // 32*50000/63 = 25396.8
  EXPECT_EQ(RcmDequantizeFb(63, 50'000), 50'000);
  EXPECT_EQ(RcmDequantizeFb(200, 50'000), 50'000);  // beyond 6 bits: capped
  for (int64_t m : {50'000, 170'000, 64}) {
    for (int q = 0; q <= 63; ++q) {
      EXPECT_EQ(RcmQuantizeFb(RcmDequantizeFb(static_cast<uint8_t>(q), m), m), q)
          << "q=" << q << " m=" << m;
    }
  }
}

TEST(RcmFb, SamplingIntervalTableShrinksWithDegree) {
  // QCN: 150, 75, 50, 37.5, 30, 25, 21.4, 18.75 KB for bands 0..7 of the 6-bit value.
  const int64_t b = 150'000;
  EXPECT_EQ(RcmSamplingInterval(b, 0), 150'000);
  EXPECT_EQ(RcmSamplingInterval(b, 7), 150'000);
  EXPECT_EQ(RcmSamplingInterval(b, 8), 75'000);
  EXPECT_EQ(RcmSamplingInterval(b, 16), 50'000);
  EXPECT_EQ(RcmSamplingInterval(b, 24), 37'500);
  EXPECT_EQ(RcmSamplingInterval(b, 32), 30'000);
  EXPECT_EQ(RcmSamplingInterval(b, 40), 25'000);
  EXPECT_EQ(RcmSamplingInterval(b, 48), 21'428);
  EXPECT_EQ(RcmSamplingInterval(b, 56), 18'750);
  EXPECT_EQ(RcmSamplingInterval(b, 63), 18'750);
}

TEST(RcmDetector, DefaultsAreQcnValues) {
  RcmCongestionDetector d;
  EXPECT_EQ(d.params().q_eq_bytes, 34'000);
  EXPECT_EQ(d.params().w_q, 2);
  EXPECT_EQ(d.fb_max_bytes(), 170'000);
  EXPECT_EQ(d.interval(), 150'000);
  EXPECT_EQ(d.bytes_to_sample(), 150'000);
}

TEST(RcmDetector, SamplesEveryBaseBytesWhenQuiet) {
  RcmCongestionDetector d(Small());
  // Queue stays at 1,000 B (one in, one out): never congested.
  int samples = 0;
  for (int i = 1; i <= 12; ++i) {
    const RcmSample s = d.OnEnqueue(1'000, 1'000);
    EXPECT_EQ(s.sampled, i % 3 == 0) << i;
    samples += s.sampled;
    EXPECT_FALSE(s.congested);
  }
  EXPECT_EQ(samples, 4);
  EXPECT_FALSE(d.congested());
}

TEST(RcmDetector, FbSequenceDeltaSignFlagSetKeepAndClear) {
  RcmCongestionDetector d(Small());
  // Packets 1-2: counting down 3000 -> 2000 -> 1000, no sample.
  EXPECT_FALSE(d.OnEnqueue(1'000, 4'000).sampled);
  EXPECT_FALSE(d.OnEnqueue(1'000, 8'000).sampled);
  // Packet 3 sampled at Q_len 12,000, Q_len' 0:
  //   Q_off = 2,000, Q_delta = +12,000, F_b = 2,000 + 2*12,000 = 26,000 -> q 33.
  RcmSample s = d.OnEnqueue(1'000, 12'000);
  ASSERT_TRUE(s.sampled);
  EXPECT_EQ(s.fb_bytes, 26'000);
  EXPECT_EQ(s.fb_q, 33);
  EXPECT_TRUE(s.congested);
  EXPECT_TRUE(s.flag_raised);
  EXPECT_TRUE(d.congested());
  // Band 33>>3 = 4: next interval 3000/5 = 600 B, so the very next packet is sampled.
  EXPECT_EQ(d.interval(), 600);

  // Q_len 11,000, Q_len' 12,000: Q_off = 1,000, Q_delta = -1,000,
  // F_b = 1,000 - 2,000 = -1,000: not congested, but above Q_eq -> flag kept.
  s = d.OnEnqueue(1'000, 11'000);
  ASSERT_TRUE(s.sampled);
  EXPECT_EQ(s.fb_bytes, -1'000);
  EXPECT_EQ(s.fb_q, 0);
  EXPECT_FALSE(s.congested);
  EXPECT_FALSE(s.flag_cleared);
  EXPECT_TRUE(d.congested());
  EXPECT_EQ(d.interval(), 3'000);  // back to the base interval

  // Next sample 3 packets later at Q_len 9,000: Q_off = -1,000,
  // Q_delta = 9,000 - 11,000 = -2,000, F_b = -5,000, and Q_len <= Q_eq -> cleared.
  EXPECT_FALSE(d.OnEnqueue(1'000, 10'500).sampled);
  EXPECT_FALSE(d.OnEnqueue(1'000, 9'500).sampled);
  s = d.OnEnqueue(1'000, 9'000);
  ASSERT_TRUE(s.sampled);
  EXPECT_EQ(s.fb_bytes, -5'000);
  EXPECT_TRUE(s.flag_cleared);
  EXPECT_FALSE(d.congested());
  EXPECT_EQ(d.fb_q(), 0);
}

TEST(RcmDetector, GrowingQueueBelowQeqIsCongested) {
  // The Q_delta term: a queue under Q_eq but filling fast has F_b > 0.
  RcmCongestionDetector d(Small());
  d.OnEnqueue(1'000, 1'000);
  d.OnEnqueue(1'000, 1'500);
  RcmSample s = d.OnEnqueue(1'000, 2'000);  // first sample: Q_len' becomes 2,000
  // F_b = (2,000 - 10,000) + 2 * 2,000 = -4,000.
  EXPECT_EQ(s.fb_bytes, -4'000);
  EXPECT_FALSE(s.congested);
  d.OnEnqueue(1'000, 4'000);
  d.OnEnqueue(1'000, 6'000);
  s = d.OnEnqueue(1'000, 8'000);
  // F_b = (8,000 - 10,000) + 2 * (8,000 - 2,000) = 10,000 -> ceil(12.6) = 13.
  EXPECT_EQ(s.fb_bytes, 10'000);
  EXPECT_EQ(s.fb_q, 13);
  EXPECT_TRUE(s.congested);
  EXPECT_TRUE(d.congested());
  EXPECT_EQ(d.interval(), 1'500);  // band 1: 3000 / 2
}

TEST(RcmDetector, LongQueueAboveQeqWithoutGrowthIsCongested) {
  // The Q_off term: a standing queue above Q_eq (Q_delta = 0) is congestion.
  RcmCongestionDetector d(Small());
  for (int i = 0; i < 3; ++i) d.OnEnqueue(1'000, 15'000);
  // First sample: F_b = 5,000 + 2 * 15,000 = 35,000 -> ceil(44.1) = 45, band 5: 500 B.
  EXPECT_EQ(d.fb_bytes(), 35'000);
  EXPECT_EQ(d.fb_q(), 45);
  EXPECT_EQ(d.interval(), 500);
  const RcmSample s = d.OnEnqueue(1'000, 15'000);
  // F_b = 5,000 + 0 = 5,000 -> ceil(6.3) = 7; flag already set, not raised again.
  EXPECT_EQ(s.fb_bytes, 5'000);
  EXPECT_EQ(s.fb_q, 7);
  EXPECT_TRUE(s.congested);
  EXPECT_FALSE(s.flag_raised);
  EXPECT_EQ(d.interval(), 3'000);  // band 0
}

TEST(RcmDetector, ClampsAtFbMax) {
  RcmCongestionDetector d(Small());
  d.OnEnqueue(1'000, 0);
  d.OnEnqueue(1'000, 0);
  const RcmSample s = d.OnEnqueue(1'000, 100'000);
  // F_b = 90,000 + 2 * 100,000 = 290,000 > F_bmax 50,000 -> 63, band 7.
  EXPECT_EQ(s.fb_bytes, 290'000);
  EXPECT_EQ(s.fb_q, 63);
  EXPECT_EQ(d.interval(), 375);  // 3000 / 8
}

TEST(RcmDetector, SamplingIntervalFollowsCongestionWithDefaults) {
  // Default base 150,000 B; 1,000 B packets.
  RcmCongestionDetector d;
  int n = 0;
  RcmSample s;
  while (!(s = d.OnEnqueue(1'000, 100'000)).sampled) ++n;
  EXPECT_EQ(n + 1, 150);  // 150th packet sampled
  // F_b = 66,000 + 2 * 100,000 = 266,000 >= 170,000 -> 63: every 18,750 B.
  EXPECT_EQ(s.fb_q, 63);
  EXPECT_EQ(d.interval(), 18'750);
  n = 0;
  while (!(s = d.OnEnqueue(1'000, 100'000)).sampled) ++n;
  EXPECT_EQ(n + 1, 19);  // 19,000 B >= 18,750
  // F_b = 66,000 + 0 -> ceil(66,000 * 63 / 170,000) = ceil(24.46) = 25, band 3: 37,500 B.
  EXPECT_EQ(s.fb_q, 25);
  EXPECT_EQ(d.interval(), 37'500);
}

TEST(RcmDetector, DrainingEmptyClearsFlag) {
  RcmCongestionDetector d(Small());
  for (int i = 0; i < 3; ++i) d.OnEnqueue(1'000, 20'000);
  ASSERT_TRUE(d.congested());
  EXPECT_FALSE(d.OnDequeue(19'000));  // still queued: flag stays
  EXPECT_TRUE(d.congested());
  EXPECT_TRUE(d.OnDequeue(0));  // empty: cleared
  EXPECT_FALSE(d.congested());
  EXPECT_EQ(d.fb_q(), 0);
  EXPECT_FALSE(d.OnDequeue(0));  // already clear
}

TEST(RcmDetector, JitterKeepsIntervalInRangeAndIsReproducible) {
  RcmDetectorParams p = Small();
  p.sample_base_bytes = 100'000;
  p.sample_jitter = 0.25;
  RcmCongestionDetector a(p, 7), b(p, 7);
  bool varied = false;
  int64_t first = a.interval();
  for (int i = 0; i < 200; ++i) {
    a.OnEnqueue(a.bytes_to_sample(), 0);  // force a sample each call
    b.OnEnqueue(b.bytes_to_sample(), 0);
    EXPECT_GE(a.interval(), 75'000);
    EXPECT_LE(a.interval(), 125'000);
    EXPECT_EQ(a.interval(), b.interval());
    varied |= a.interval() != first;
  }
  EXPECT_TRUE(varied);
}

}  // namespace
}  // namespace test_rcm_detector
}  // namespace rocesim
