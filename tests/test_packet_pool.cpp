// PacketPool (core/packet.h): frames by 32-bit id, free slots reused last
// freed first, every allocation a fresh (default) packet.
#include <gtest/gtest.h>

#include "core/packet.h"

namespace rocesim {
namespace test_packet_pool {
namespace {

TEST(PacketPool, NewSlotsAreNumberedInOrder) {
  PacketPool pool;
  for (PktId want = 0; want < 5; ++want) EXPECT_EQ(pool.Alloc(), want);
  EXPECT_EQ(pool.Live(), 5u);
  EXPECT_EQ(pool.Capacity(), 5u);
}

// The last freed slot is the next taken (the order the old intrusive free
// list gave, so runs number their frames as before).
TEST(PacketPool, FreedSlotsComeBackLastFreedFirst) {
  PacketPool pool;
  for (int i = 0; i < 6; ++i) pool.Alloc();
  pool.Free(1);
  pool.Free(4);
  pool.Free(2);
  EXPECT_EQ(pool.Live(), 3u);
  EXPECT_EQ(pool.Alloc(), 2u);
  EXPECT_EQ(pool.Alloc(), 4u);
  EXPECT_EQ(pool.Alloc(), 1u);
  EXPECT_EQ(pool.Alloc(), 6u) << "no free slot left: a new one";
  EXPECT_EQ(pool.Live(), 7u);
  EXPECT_EQ(pool.Capacity(), 7u);
}

TEST(PacketPool, AReusedSlotHoldsAFreshPacket) {
  PacketPool pool;
  const PktId id = pool.Alloc();
  pool[id].size = 1000;
  pool[id].flow = 7;
  pool[id].next = 3;
  pool.Free(id);
  const PktId again = pool.Alloc();
  ASSERT_EQ(again, id);
  EXPECT_EQ(pool[again].size, 0u);
  EXPECT_EQ(pool[again].flow, 0u);
  EXPECT_EQ(pool[again].next, kNoPkt);
}

// For a caller that overwrites the frame whole: the same slots in the same
// order as Alloc (the last freed first, then new ones), counted live alike.
TEST(PacketPool, AllocForOverwriteTakesTheSlotsAllocWould) {
  PacketPool pool;
  const PktId a = pool.Alloc(), b = pool.Alloc();
  pool.Free(a);
  pool.Free(b);
  EXPECT_EQ(pool.Live(), 0u);
  EXPECT_EQ(pool.AllocForOverwrite(), b);
  EXPECT_EQ(pool.AllocForOverwrite(), a);
  const PktId fresh = pool.AllocForOverwrite();
  EXPECT_EQ(fresh, 2u);
  EXPECT_EQ(pool.Live(), 3u);
  EXPECT_EQ(pool.Capacity(), 3u);
  pool.Free(fresh);
  EXPECT_EQ(pool.Alloc(), fresh);
}

// A hint only: with or without free slots, and past their number, it
// changes nothing the pool returns.
TEST(PacketPool, PrefetchAllocChangesNothing) {
  PacketPool pool;
  pool.PrefetchAlloc(0);
  const PktId a = pool.Alloc(), b = pool.Alloc();
  pool.Free(a);
  pool.Free(b);
  pool.PrefetchAlloc(0);
  pool.PrefetchAlloc(1);
  pool.PrefetchAlloc(100);
  EXPECT_EQ(pool.Alloc(), b);
  EXPECT_EQ(pool.Alloc(), a);
}

}  // namespace
}  // namespace test_packet_pool
}  // namespace rocesim
