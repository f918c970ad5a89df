// Tests of seed 002 §3.2 notification contents (rcm/rcm_notification.h): the
// quantised regional degree F_b' and up to K harmful flow IDs, taken from the
// sampled CAM at a root point and forwarded from the received IDs at an edge or
// inner point; and the receiving side's use of it (remote flag, F_br, IDs).
#include <gtest/gtest.h>

#include <vector>

#include "rcm/rcm_notification.h"

namespace rocesim {
namespace test_rcm_notification {
namespace {

RcmFlowCam SampledCam() {
  RcmCamParams p;
  p.depth = 8;
  p.sample_bytes = 1;
  RcmFlowCam cam(p);
  for (uint64_t k : {0xA, 0xB, 0xA, 0xC, 0xA, 0xB}) cam.Write(k);  // A3 B2 C1
  return cam;
}

TEST(RcmNotification, RootSendsSampledIdsHeaviestFirstUpToK) {
  const RcmFlowCam cam = SampledCam();
  RcmNotification n = RcmMakeNotification(40, cam, RcmRole::kRoot, 16);
  EXPECT_EQ(n.fb_q, 40);
  ASSERT_EQ(n.num_ids, 3);
  EXPECT_EQ(n.ids[0], 0xAu);
  EXPECT_EQ(n.ids[1], 0xBu);
  EXPECT_EQ(n.ids[2], 0xCu);
  n = RcmMakeNotification(40, cam, RcmRole::kRoot, 2);  // K = 2
  ASSERT_EQ(n.num_ids, 2);
  EXPECT_EQ(n.ids[1], 0xBu);
  EXPECT_EQ(RcmMakeNotification(40, cam, RcmRole::kRoot, 1'000).num_ids, 3);
  EXPECT_EQ(RcmMakeNotification(40, cam, RcmRole::kRoot, -1).num_ids, 0);
}

TEST(RcmNotification, EdgeAndInnerForwardReceivedIds) {
  RcmFlowCam cam = SampledCam();
  const uint64_t from_root[] = {0x100, 0x101};
  cam.SetRemote(from_root, 2);
  for (RcmRole role : {RcmRole::kEdge, RcmRole::kInner}) {
    const RcmNotification n = RcmMakeNotification(20, cam, role, 16);
    ASSERT_EQ(n.num_ids, 2);
    EXPECT_EQ(n.ids[0], 0x100u);
    EXPECT_EQ(n.ids[1], 0x101u);
  }
  EXPECT_EQ(RcmMakeNotification(20, cam, RcmRole::kNone, 16).num_ids, 0);
}

TEST(RcmNotification, DegreeCappedAtSixBits) {
  EXPECT_EQ(RcmMakeNotification(200, SampledCam(), RcmRole::kRoot, 4).fb_q, 63);
}

TEST(RcmNotification, AddIdDedupsAndBounds) {
  RcmNotification n;
  EXPECT_TRUE(n.AddId(5));
  EXPECT_FALSE(n.AddId(5));
  EXPECT_EQ(n.num_ids, 1);
  for (uint64_t k = 100; k < 200; ++k) n.AddId(k);
  EXPECT_EQ(n.num_ids, kRcmMaxNotifyIds);
  EXPECT_FALSE(n.AddId(999));
  const std::vector<uint64_t> ids(n.begin(), n.end());
  EXPECT_EQ(ids.size(), static_cast<size_t>(kRcmMaxNotifyIds));
  EXPECT_EQ(ids.front(), 5u);
}

TEST(RcmNotification, WireBytes) {
  RcmNotification n;
  EXPECT_EQ(n.WireBytes(), 64);
  n.AddId(1);
  n.AddId(2);
  EXPECT_EQ(n.WireBytes(), 64 + 2 * 13);
}

TEST(RcmNotification, ReceiverInstallsFlagDegreeAndIds) {
  // Downstream root builds a notification; the upstream port applies it.
  const RcmNotification n = RcmMakeNotification(50, SampledCam(), RcmRole::kRoot, 16);
  RcmPortState port;
  RcmFlowCam cam;
  port.OnNotification(0, n.fb_q);
  cam.SetRemote(n.ids.data(), n.num_ids);
  const RcmRole role = port.Role(0);
  EXPECT_EQ(role, RcmRole::kEdge);
  EXPECT_EQ(port.RegionalDegree(0), 25);  // 0.5 * 0 + 0.5 * 50
  EXPECT_TRUE(cam.IsHarmful(0xA, role));
  EXPECT_TRUE(cam.IsHarmful(0xC, role));
  EXPECT_FALSE(cam.IsHarmful(0xD, role));
}

}  // namespace
}  // namespace test_rcm_notification
}  // namespace rocesim
