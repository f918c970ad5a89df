// PortDrops (stats/port_drops.h): per-port drop counts by cause, kept only
// for ports that dropped.
#include <gtest/gtest.h>

#include "stats/port_drops.h"

namespace rocesim {
namespace test_port_drops {
namespace {

size_t Idx(DropCause c) {
  return static_cast<size_t>(c);
}

TEST(PortDrops, APortThatDroppedNothingReadsZero) {
  PortDrops d;
  d.Reset(1000);
  for (uint32_t p : {0u, 1u, 999u})
    for (uint64_t n : d.Of(p)) EXPECT_EQ(n, 0u);
  EXPECT_EQ(d.PortsWithDrops(), 0u);
}

TEST(PortDrops, CountsByPortAndCauseWithARowPerDroppingPort) {
  PortDrops d;
  d.Reset(10);
  d.Add(7, DropCause::kBufferFull);
  d.Add(7, DropCause::kBufferFull);
  d.Add(7, DropCause::kTtlExpired);
  d.Add(2, DropCause::kLinkDown);
  EXPECT_EQ(d.Of(7)[Idx(DropCause::kBufferFull)], 2u);
  EXPECT_EQ(d.Of(7)[Idx(DropCause::kTtlExpired)], 1u);
  EXPECT_EQ(d.Of(7)[Idx(DropCause::kLinkDown)], 0u);
  EXPECT_EQ(d.Of(2)[Idx(DropCause::kLinkDown)], 1u);
  EXPECT_EQ(d.Of(2)[Idx(DropCause::kBufferFull)], 0u);
  for (uint64_t n : d.Of(3)) EXPECT_EQ(n, 0u);
  EXPECT_EQ(d.PortsWithDrops(), 2u);
}

TEST(PortDrops, ResetForgetsEveryCount) {
  PortDrops d;
  d.Reset(4);
  d.Add(1, DropCause::kWred);
  d.Reset(4);
  EXPECT_EQ(d.Of(1)[Idx(DropCause::kWred)], 0u);
  EXPECT_EQ(d.PortsWithDrops(), 0u);
}

}  // namespace
}  // namespace test_port_drops
}  // namespace rocesim
