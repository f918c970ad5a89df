// HeldArray (core/held_array.h): only held elements exist, are visited and
// are destroyed; the slots of elements never held are never written.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/held_array.h"
#include "core/huge_pages.h"

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

// The VmFlags of the mapping that holds `p` (/proc/self/smaps): "hg" marks
// one that asked for huge pages (madvise MADV_HUGEPAGE).
std::string VmFlagsOf(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = lo <= at && at < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// A serial run's arrays (every slot held) ask for huge pages; a partition's
// (a few slots held) do not, so a 2 MB page never backs slots it lacks.
TEST(HeldArray, OnlyAnArrayWhoseEverySlotIsHeldAsksForHugePages) {
  if (!HugePagesWanted()) GTEST_SKIP() << "transparent huge pages are off here";
  struct Big {
    char bytes[512];
  };
  HeldArray<Big> whole;
  whole.Reset(16384, /*every_slot=*/true);  // 8 MB
  whole.Hold(0);
  HeldArray<Big> partition;
  partition.Reset(16384);
  partition.Hold(0);
  const auto has_hg = [](const std::string& flags) {
    std::istringstream words(flags);
    for (std::string w; words >> w;)
      if (w == "hg") return true;
    return false;
  };
  EXPECT_TRUE(has_hg(VmFlagsOf(&whole[0]))) << VmFlagsOf(&whole[0]);
  EXPECT_FALSE(has_hg(VmFlagsOf(&partition[0]))) << VmFlagsOf(&partition[0]);
}

}  // namespace
}  // namespace test_held_array
}  // namespace rocesim
