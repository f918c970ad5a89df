// Tests of the FIFO ring (core/ring.h) that holds a very long link's arrival
// times: first in, first out across wrap-around and growth, against a std::deque.
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>

#include "core/ring.h"

namespace rocesim {
namespace test_ring {
namespace {

struct Entry {
  int64_t a;
  uint32_t b;
};

TEST(Ring, StartsEmptyAndKeepsFifoOrder) {
  Ring<Entry> r;
  EXPECT_TRUE(r.Empty());
  for (uint32_t i = 0; i < 5; ++i) r.PushBack({i * 10, i});
  EXPECT_EQ(r.Size(), 5u);
  EXPECT_EQ(r.Front().b, 0u);
  EXPECT_EQ(r[4].a, 40);
  for (uint32_t i = 0; i < 5; ++i) EXPECT_EQ(r.PopFront().b, i);
  EXPECT_TRUE(r.Empty());
}

TEST(Ring, GrowsWhileWrappedWithoutReordering) {
  Ring<Entry> r;
  // Move the head to the middle of the first 8-entry buffer, then fill past
  // its capacity so that growth unrolls a wrapped ring.
  for (uint32_t i = 0; i < 5; ++i) r.PushBack({0, i});
  for (uint32_t i = 0; i < 5; ++i) r.PopFront();
  for (uint32_t i = 0; i < 20; ++i) r.PushBack({0, 100 + i});
  ASSERT_EQ(r.Size(), 20u);
  for (uint32_t i = 0; i < 20; ++i) EXPECT_EQ(r[i].b, 100 + i);
  for (uint32_t i = 0; i < 20; ++i) EXPECT_EQ(r.PopFront().b, 100 + i);
}

TEST(Ring, AgreesWithADequeOverRandomPushesAndPops) {
  Ring<Entry> r;
  std::deque<uint32_t> ref;
  std::mt19937 rng(7);
  uint32_t next = 0;
  for (int step = 0; step < 100000; ++step) {
    if (ref.empty() || rng() % 3 != 0) {
      r.PushBack({static_cast<int64_t>(next) * 3, next});
      ref.push_back(next++);
    } else {
      ASSERT_EQ(r.Front().b, ref.front());
      const Entry e = r.PopFront();
      EXPECT_EQ(e.a, static_cast<int64_t>(ref.front()) * 3);
      ref.pop_front();
    }
    ASSERT_EQ(r.Size(), ref.size());
  }
}

TEST(Ring, MovedFromRingIsEmptyAndUsable) {
  Ring<Entry> a;
  for (uint32_t i = 0; i < 10; ++i) a.PushBack({0, i});
  Ring<Entry> b(std::move(a));
  EXPECT_EQ(b.Size(), 10u);
  EXPECT_TRUE(a.Empty());  // NOLINT(bugprone-use-after-move): the contract under test
  a.PushBack({0, 42});
  EXPECT_EQ(a.PopFront().b, 42u);
}

}  // namespace
}  // namespace test_ring
}  // namespace rocesim
