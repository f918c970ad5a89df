// HeldArray (core/held_array.h): only held elements exist, are visited and
// are destroyed; the slots of elements never held are never written.
#include <gtest/gtest.h>

#include <vector>

#include "core/held_array.h"

namespace rocesim {
namespace test_held_array {
namespace {

struct Counted {
  static inline int alive = 0;
  int value = 7;
  Counted() { ++alive; }
  ~Counted() { --alive; }
};

TEST(HeldArray, HoldsOnlyWhatWasHeldAndVisitsItInOrder) {
  HeldArray<Counted> a;
  a.Reset(10);
  EXPECT_EQ(a.size(), 10u);
  EXPECT_EQ(Counted::alive, 0);
  a.Hold(7).value = 70;
  a.Hold(2).value = 20;
  a.Hold(7);  // already held: kept as it is
  EXPECT_EQ(Counted::alive, 2);
  EXPECT_TRUE(a.Held(2));
  EXPECT_FALSE(a.Held(3));
  EXPECT_FALSE(a.Held(10)) << "past the end is not held";
  std::vector<int> seen;
  for (const Counted& c : a) seen.push_back(c.value);
  EXPECT_EQ(seen, (std::vector<int>{20, 70}));
  EXPECT_EQ(a[7].value, 70);
  a.Reset(3);
  EXPECT_EQ(Counted::alive, 0) << "Reset destroys what was held";
  EXPECT_FALSE(a.Held(2));
}

TEST(HeldArray, AllHeldIsAnArray) {
  HeldArray<Counted> a;
  a.ResetAllHeld(5);
  int n = 0;
  for (const Counted& c : a) n += c.value;
  EXPECT_EQ(n, 35);
  {
    HeldArray<Counted> b = std::move(a);
    EXPECT_EQ(b.size(), 5u);
    EXPECT_EQ(a.size(), 0u);
    EXPECT_EQ(Counted::alive, 5);
  }
  EXPECT_EQ(Counted::alive, 0) << "the destructor destroys the held elements";
}

TEST(HeldArray, SlotsNotHeldAreNeverWritten) {
  // A page of slots never held stays the kernel's zero page: reading it (as
  // raw memory) finds zeros, not constructed elements.
  HeldArray<Counted> a;
  a.Reset(4096);
  a.Hold(0);
  const auto* raw = reinterpret_cast<const unsigned char*>(&a[0]);
  for (size_t b = 2048 * sizeof(Counted); b < 2049 * sizeof(Counted); ++b) EXPECT_EQ(raw[b], 0);
}

}  // namespace
}  // namespace test_held_array
}  // namespace rocesim
