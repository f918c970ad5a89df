// Tests of seed 002 §3.2 per-port state (rcm/rcm_port_state.h): local and
// remote flags, the role they give (none / root / edge / inner), expiry of the
// remote flag without renewal, and eq. 2's regional degree
// F_b' = (1 - w) F_b + w F_br (only with a valid notification).
#include <gtest/gtest.h>

#include "rcm/rcm_port_state.h"

namespace rocesim {
namespace test_rcm_port_state {
namespace {

constexpr Time kUs = kMicrosecond;

TEST(RcmPortState, RoleTable) {
  EXPECT_EQ(RcmRoleOf(false, false), RcmRole::kNone);
  EXPECT_EQ(RcmRoleOf(true, false), RcmRole::kRoot);
  EXPECT_EQ(RcmRoleOf(false, true), RcmRole::kEdge);
  EXPECT_EQ(RcmRoleOf(true, true), RcmRole::kInner);
}

TEST(RcmPortState, RegionalDegreeEq2) {
  // w = 0.5: 0.5*40 + 0.5*20 = 30.
  EXPECT_EQ(RcmRegionalDegree(40, 20, true, 0.5), 30);
  // w = 0.25: 0.75*40 + 0.25*20 = 35.
  EXPECT_EQ(RcmRegionalDegree(40, 20, true, 0.25), 35);
  // Rounded to nearest, half up: 0.5*41 + 0.5*20 = 30.5 -> 31; 0.5*63 = 31.5 -> 32.
  EXPECT_EQ(RcmRegionalDegree(41, 20, true, 0.5), 31);
  EXPECT_EQ(RcmRegionalDegree(0, 63, true, 0.5), 32);
  // w = 1: the remote degree alone; w = 0: the local one alone.
  EXPECT_EQ(RcmRegionalDegree(10, 50, true, 1.0), 50);
  EXPECT_EQ(RcmRegionalDegree(10, 50, true, 0.0), 10);
  // No valid notification: F_b' = F_b whatever F_br holds.
  EXPECT_EQ(RcmRegionalDegree(40, 63, false, 0.5), 40);
}

TEST(RcmPortState, FlagsRolesAndExpiry) {
  RcmPortParams p;
  p.w = 0.5;
  p.remote_expiry = 100 * kUs;
  RcmPortState s(p);
  EXPECT_EQ(s.Role(0), RcmRole::kNone);
  EXPECT_FALSE(s.InRegion(0));
  EXPECT_EQ(s.RegionalDegree(0), 0);

  s.SetLocal(true, 40);  // local congestion only: root
  EXPECT_EQ(s.Role(0), RcmRole::kRoot);
  EXPECT_EQ(s.RegionalDegree(0), 40);

  s.OnNotification(0, 20);  // plus a notification: inner
  EXPECT_EQ(s.Role(0), RcmRole::kInner);
  EXPECT_EQ(s.fbr(0), 20);
  EXPECT_EQ(s.RegionalDegree(0), 30);
  EXPECT_EQ(s.Role(100 * kUs - 1), RcmRole::kInner);  // last instant of validity

  // No renewal for 100 us: the remote flag expires -> root again, F_b' = F_b.
  EXPECT_EQ(s.Role(100 * kUs), RcmRole::kRoot);
  EXPECT_EQ(s.fbr(100 * kUs), 0);
  EXPECT_EQ(s.RegionalDegree(100 * kUs), 40);

  s.SetLocal(false, 33);  // local cleared (the degree is dropped with the flag)
  EXPECT_EQ(s.fb(), 0);
  EXPECT_EQ(s.Role(150 * kUs), RcmRole::kNone);

  s.OnNotification(200 * kUs, 63);  // remote only: edge, F_b' = 0.5 * 63 -> 32
  EXPECT_EQ(s.Role(200 * kUs), RcmRole::kEdge);
  EXPECT_TRUE(s.InRegion(200 * kUs));
  EXPECT_EQ(s.RegionalDegree(200 * kUs), 32);

  s.OnNotification(250 * kUs, 10);  // renewal extends to 350 us and updates F_br
  EXPECT_EQ(s.Role(340 * kUs), RcmRole::kEdge);
  EXPECT_EQ(s.RegionalDegree(340 * kUs), 5);
  EXPECT_EQ(s.Role(350 * kUs), RcmRole::kNone);
  EXPECT_FALSE(s.InRegion(350 * kUs));
}

TEST(RcmPortState, ClearRemoteDropsAtOnce) {
  RcmPortState s;
  s.OnNotification(10 * kUs, 30);
  EXPECT_EQ(s.Role(10 * kUs), RcmRole::kEdge);
  s.ClearRemote();
  EXPECT_EQ(s.Role(10 * kUs), RcmRole::kNone);
}

TEST(RcmPortState, DefaultExpiryIs100us) {
  RcmPortState s;
  EXPECT_EQ(s.params().remote_expiry, 100 * kUs);
  EXPECT_DOUBLE_EQ(s.params().w, 0.5);
  s.OnNotification(0, 1);
  EXPECT_TRUE(s.remote(99 * kUs));
  EXPECT_FALSE(s.remote(100 * kUs));
}

}  // namespace
}  // namespace test_rcm_port_state
}  // namespace rocesim
