// Tests of seed 002 §3.3 congestion flow recognition (rcm/rcm_flow_cam.h): a
// cyclic CAM of byte-periodically sampled flow IDs per output queue, lookup
// ("harmful" = in the CAM), the harmful set for a notification, and the
// replacement by received IDs at edge and inner points (§3.2).
#include <gtest/gtest.h>

#include <array>

#include "rcm/rcm_flow_cam.h"

namespace rocesim {
namespace test_rcm_flow_cam {
namespace {

RcmCamParams Cam(int depth, int64_t sample_bytes, int min_hits = 1) {
  RcmCamParams p;
  p.depth = depth;
  p.sample_bytes = sample_bytes;
  p.min_hits = min_hits;
  return p;
}

TEST(RcmFlowCam, CyclicOverwriteOfOldest) {
  RcmFlowCam cam(Cam(4, 1'000));  // every 1,000 B packet sampled
  for (uint64_t k = 1; k <= 4; ++k) EXPECT_TRUE(cam.OnPacket(k, 1'000));
  EXPECT_EQ(cam.filled(), 4);
  for (uint64_t k = 1; k <= 4; ++k) EXPECT_TRUE(cam.ContainsSampled(k)) << k;
  EXPECT_FALSE(cam.ContainsSampled(5));
  cam.OnPacket(5, 1'000);  // overwrites 1 (the oldest)
  EXPECT_TRUE(cam.ContainsSampled(5));
  EXPECT_FALSE(cam.ContainsSampled(1));
  EXPECT_TRUE(cam.ContainsSampled(2));
  cam.OnPacket(6, 1'000);  // overwrites 2
  EXPECT_FALSE(cam.ContainsSampled(2));
  EXPECT_TRUE(cam.ContainsSampled(3));
  EXPECT_EQ(cam.filled(), 4);
}

TEST(RcmFlowCam, BytePeriodicSampling) {
  RcmFlowCam cam(Cam(8, 3'000));
  // 1,000 B packets of flows 10..15: the 3rd and 6th packets complete 3,000 B.
  for (uint64_t k = 10; k <= 15; ++k) EXPECT_EQ(cam.OnPacket(k, 1'000), k == 12 || k == 15) << k;
  EXPECT_TRUE(cam.ContainsSampled(12));
  EXPECT_TRUE(cam.ContainsSampled(15));
  EXPECT_FALSE(cam.ContainsSampled(10));
  EXPECT_FALSE(cam.ContainsSampled(13));
  // Byte share, not packet share: a 3,000 B packet is always sampled, while
  // 100 B packets of another flow are sampled once per 30 of them.
  EXPECT_TRUE(cam.OnPacket(20, 3'000));
  int small_samples = 0;
  for (int i = 0; i < 60; ++i) small_samples += cam.OnPacket(21, 100);
  EXPECT_EQ(small_samples, 2);
  // A packet longer than the period is sampled once, and the count restarts.
  EXPECT_TRUE(cam.OnPacket(22, 10'000));
  EXPECT_FALSE(cam.OnPacket(23, 2'999));
  EXPECT_TRUE(cam.OnPacket(24, 1));
}

TEST(RcmFlowCam, HeavyFlowHeldLightFlowMostlyNot) {
  // Intent of §3.3 with deterministic traffic: flow 2 sends 1 of every 16
  // 1 KB packets (first of each round), flow 1 the other 15; sampling every
  // 4 KB hits packets 4, 8, 12, 16 of each round, all flow 1's, so the 16-deep
  // CAM holds only flow 1 and flow 2 is not harmful.
  RcmFlowCam cam(Cam(16, 4'096));
  for (int round = 0; round < 64; ++round) {
    cam.OnPacket(2, 1'024);
    for (int i = 0; i < 15; ++i) cam.OnPacket(1, 1'024);
  }
  EXPECT_TRUE(cam.ContainsSampled(1));
  EXPECT_FALSE(cam.ContainsSampled(2));
  EXPECT_EQ(cam.SampledHits(1), 16);
}

TEST(RcmFlowCam, MinHits) {
  RcmFlowCam cam(Cam(8, 1, 2));
  cam.Write(7);
  EXPECT_EQ(cam.SampledHits(7), 1);
  EXPECT_FALSE(cam.ContainsSampled(7));  // once: not yet harmful
  cam.Write(7);
  EXPECT_TRUE(cam.ContainsSampled(7));
}

TEST(RcmFlowCam, SampledHarmfulOrderedByHitsThenRecency) {
  RcmFlowCam cam(Cam(8, 1));
  for (uint64_t k : {0xA, 0xB, 0xA, 0xC, 0xA, 0xB}) cam.Write(k);  // A3 B2 C1
  std::array<uint64_t, 8> out{};
  ASSERT_EQ(cam.SampledHarmful(out.data(), 8), 3);
  EXPECT_EQ(out[0], 0xAu);
  EXPECT_EQ(out[1], 0xBu);
  EXPECT_EQ(out[2], 0xCu);
  EXPECT_EQ(cam.SampledHarmful(out.data(), 2), 2);  // K caps it
  // Ties by most recent write: X then Y written, one hit each -> Y first.
  RcmFlowCam t(Cam(8, 1));
  t.Write(0x1);
  t.Write(0x2);
  ASSERT_EQ(t.SampledHarmful(out.data(), 8), 2);
  EXPECT_EQ(out[0], 0x2u);
  EXPECT_EQ(out[1], 0x1u);
  // With min_hits 2 only A and B qualify.
  RcmFlowCam m(Cam(8, 1, 2));
  for (uint64_t k : {0xA, 0xB, 0xA, 0xC, 0xA, 0xB}) m.Write(k);
  ASSERT_EQ(m.SampledHarmful(out.data(), 8), 2);
  EXPECT_EQ(out[0], 0xAu);
  EXPECT_EQ(out[1], 0xBu);
}

TEST(RcmFlowCam, RemoteIdsReplaceAtEdgeAndInner) {
  RcmFlowCam cam(Cam(4, 1));
  cam.Write(1);  // locally sampled
  const uint64_t first[] = {100, 101, 100};
  cam.SetRemote(first, 3);
  EXPECT_EQ(cam.remote_count(), 2);  // duplicates dropped
  // Root uses its own samples; edge and inner use the received IDs; none: nothing.
  EXPECT_TRUE(cam.IsHarmful(1, RcmRole::kRoot));
  EXPECT_FALSE(cam.IsHarmful(100, RcmRole::kRoot));
  EXPECT_TRUE(cam.IsHarmful(100, RcmRole::kEdge));
  EXPECT_TRUE(cam.IsHarmful(101, RcmRole::kInner));
  EXPECT_FALSE(cam.IsHarmful(1, RcmRole::kEdge));
  EXPECT_FALSE(cam.IsHarmful(1, RcmRole::kInner));
  EXPECT_FALSE(cam.IsHarmful(1, RcmRole::kNone));
  EXPECT_FALSE(cam.IsHarmful(100, RcmRole::kNone));
  // A later notification replaces the set wholesale.
  const uint64_t second[] = {200};
  cam.SetRemote(second, 1);
  EXPECT_FALSE(cam.IsHarmful(100, RcmRole::kEdge));
  EXPECT_TRUE(cam.IsHarmful(200, RcmRole::kEdge));
  // IDs forwarded upstream: received ones at edge/inner, sampled ones at root.
  std::array<uint64_t, 4> out{};
  ASSERT_EQ(cam.HarmfulIds(RcmRole::kInner, out.data(), 4), 1);
  EXPECT_EQ(out[0], 200u);
  ASSERT_EQ(cam.HarmfulIds(RcmRole::kRoot, out.data(), 4), 1);
  EXPECT_EQ(out[0], 1u);
  EXPECT_EQ(cam.HarmfulIds(RcmRole::kNone, out.data(), 4), 0);
  cam.ClearRemote();
  EXPECT_FALSE(cam.IsHarmful(200, RcmRole::kEdge));
}

TEST(RcmFlowCam, RemoteSetIsBounded) {
  RcmFlowCam cam;
  std::array<uint64_t, kRcmMaxNotifyIds + 5> many{};
  for (size_t i = 0; i < many.size(); ++i) many[i] = 1000 + i;
  cam.SetRemote(many.data(), static_cast<int>(many.size()));
  EXPECT_EQ(cam.remote_count(), kRcmMaxNotifyIds);
  EXPECT_TRUE(cam.ContainsRemote(1000));
  EXPECT_FALSE(cam.ContainsRemote(1000 + kRcmMaxNotifyIds));
}

TEST(RcmFlowCam, DepthClampedToArray) {
  RcmFlowCam big(Cam(1000, 1));
  EXPECT_EQ(big.depth(), kRcmCamMaxDepth);
  RcmFlowCam tiny(Cam(0, 1));
  EXPECT_EQ(tiny.depth(), 1);
  tiny.Write(3);
  tiny.Write(4);
  EXPECT_FALSE(tiny.ContainsSampled(3));
  EXPECT_TRUE(tiny.ContainsSampled(4));
}

}  // namespace
}  // namespace test_rcm_flow_cam
}  // namespace rocesim
