// Tests of RED/ECN marking on the instantaneous egress queue (net/red.h;
// DESIGN.md §3 "ECN: instant-queue RED/WRED with K_min, K_max, P_max at egress",
// seed 000 §7 marking between two thresholds, seed 001 §2.1): no mark at or below
// K_min, probability linear from 0 at K_min to P_max at K_max, every packet above
// K_max; K_min == K_max is the DCTCP-style step threshold.
#include <gtest/gtest.h>

#include "net/red.h"

namespace rocesim {
namespace test_red {
namespace {

constexpr RedParams kDcqcnDefault{5000, 200000, 0.01};  // 5KB, 200KB, 1%

TEST(Red, ZeroAtAndBelowKmin) {
  EXPECT_EQ(RedMarkProbability(kDcqcnDefault, 0), 0.0);
  EXPECT_EQ(RedMarkProbability(kDcqcnDefault, 4999), 0.0);
  EXPECT_EQ(RedMarkProbability(kDcqcnDefault, 5000), 0.0);
}

TEST(Red, LinearBetweenKminAndKmax) {
  // Midpoint (5000 + 200000) / 2 = 102500 -> P_max / 2.
  EXPECT_DOUBLE_EQ(RedMarkProbability(kDcqcnDefault, 102500), 0.005);
  // A quarter of the way: 5000 + 48750 = 53750 -> 0.0025.
  EXPECT_DOUBLE_EQ(RedMarkProbability(kDcqcnDefault, 53750), 0.0025);
  // One byte above K_min: 0.01 / 195000.
  EXPECT_DOUBLE_EQ(RedMarkProbability(kDcqcnDefault, 5001), 0.01 / 195000);
  // At K_max exactly: P_max (not yet 1).
  EXPECT_DOUBLE_EQ(RedMarkProbability(kDcqcnDefault, 200000), 0.01);
  // Monotone over the ramp.
  double prev = 0;
  for (int64_t q = 5000; q <= 200000; q += 1000) {
    const double p = RedMarkProbability(kDcqcnDefault, q);
    EXPECT_GE(p, prev);
    prev = p;
  }
}

TEST(Red, FullRampWithPmaxOne) {
  const RedParams r{0, 100, 1.0};
  EXPECT_DOUBLE_EQ(RedMarkProbability(r, 50), 0.5);
  EXPECT_DOUBLE_EQ(RedMarkProbability(r, 25), 0.25);
  EXPECT_DOUBLE_EQ(RedMarkProbability(r, 100), 1.0);
}

TEST(Red, OneAboveKmax) {
  EXPECT_EQ(RedMarkProbability(kDcqcnDefault, 200001), 1.0);
  EXPECT_EQ(RedMarkProbability(kDcqcnDefault, 10'000'000), 1.0);
}

TEST(Red, StepThresholdWhenKminEqualsKmax) {
  // DCTCP: mark every packet when the queue exceeds K, none otherwise.
  const RedParams k{65000, 65000, 0.0};
  EXPECT_EQ(RedMarkProbability(k, 0), 0.0);
  EXPECT_EQ(RedMarkProbability(k, 65000), 0.0);
  EXPECT_EQ(RedMarkProbability(k, 65001), 1.0);
  // pmax does not matter for a step.
  const RedParams k2{1000, 1000, 0.3};
  EXPECT_EQ(RedMarkProbability(k2, 1000), 0.0);
  EXPECT_EQ(RedMarkProbability(k2, 1001), 1.0);
}

}  // namespace
}  // namespace test_red
}  // namespace rocesim
