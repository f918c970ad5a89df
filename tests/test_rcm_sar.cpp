// Tests of seed 002 §3.4 switch-level adaptive routing (rcm/rcm_sar.h):
// harmful flows never move; outside a congestion region nothing moves; with no
// other path nothing moves; otherwise the least regional degree wins, ties by
// load, then the current (ECMP) port, then candidate order.
#include <gtest/gtest.h>

#include <vector>

#include "rcm/rcm_sar.h"

namespace rocesim {
namespace test_rcm_sar {
namespace {

// Port 1 is the current (ECMP) choice and the most congested.
const std::vector<RcmSarCandidate> kThree = {
    {1, 40, 0},      // current
    {2, 10, 5'000},  // least degree
    {3, 20, 0},
};

TEST(RcmSar, HarmfulFlowNeverMoves) {
  EXPECT_EQ(RcmSarChoose(kThree, 1, /*harmful=*/true, /*in_region=*/true), 1);
}

TEST(RcmSar, NonHarmfulMovesToLeastRegionalDegree) {
  EXPECT_EQ(RcmSarChoose(kThree, 1, false, true), 2);  // degree beats load
}

TEST(RcmSar, NotInRegionNoMove) {
  EXPECT_EQ(RcmSarChoose(kThree, 1, false, /*in_region=*/false), 1);
}

TEST(RcmSar, NoAlternativeNoMove) {
  const std::vector<RcmSarCandidate> one = {{4, 63, 90'000}};
  EXPECT_EQ(RcmSarChoose(one, 4, false, true), 4);
  EXPECT_EQ(RcmSarChoose({}, 4, false, true), 4);
}

TEST(RcmSar, TiesByLoadThenCurrentThenOrder) {
  // Equal degree: the lower load wins.
  const std::vector<RcmSarCandidate> by_load = {{1, 30, 0}, {2, 10, 5'000}, {3, 10, 1'000}};
  EXPECT_EQ(RcmSarChoose(by_load, 1, false, true), 3);
  // Equal degree and load with the current port: stay (no needless reordering).
  const std::vector<RcmSarCandidate> with_current = {{2, 10, 1'000}, {3, 10, 1'000}};
  EXPECT_EQ(RcmSarChoose(with_current, 3, false, true), 3);
  EXPECT_EQ(RcmSarChoose(with_current, 2, false, true), 2);
  // Full tie not involving the current port: the earlier candidate.
  const std::vector<RcmSarCandidate> order = {{1, 40, 0}, {5, 10, 0}, {4, 10, 0}};
  EXPECT_EQ(RcmSarChoose(order, 1, false, true), 5);
}

TEST(RcmSar, CurrentAlreadyBestStays) {
  const std::vector<RcmSarCandidate> best = {{1, 20, 3'000}, {2, 5, 9'000}, {3, 5, 9'000}};
  EXPECT_EQ(RcmSarChoose(best, 2, false, true), 2);
}

TEST(RcmSar, InRegionThreshold) {
  RcmSarParams p;
  EXPECT_EQ(p.min_degree, 1);
  EXPECT_FALSE(RcmSarInRegion(0, p));
  EXPECT_TRUE(RcmSarInRegion(1, p));
  p.min_degree = 16;
  EXPECT_FALSE(RcmSarInRegion(15, p));
  EXPECT_TRUE(RcmSarInRegion(16, p));
}

}  // namespace
}  // namespace test_rcm_sar
}  // namespace rocesim
