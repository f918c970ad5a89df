// core/bucket_sort.h: a calendar bucket's events sorted by time, stably,
// against std::stable_sort on the same input, for every size path.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <limits>
#include <random>
#include <vector>

#include "core/bucket_sort.h"

namespace rocesim {
namespace test_bucket_sort {
namespace {

constexpr int kBits = 10;  // the event queue's bucket width, 1,024 ps

std::vector<Event> RandomBucket(std::mt19937_64& rng, size_t n, Time bucket, Time spread) {
  std::vector<Event> events(n);
  for (size_t i = 0; i < n; ++i) {
    events[i].time = (bucket << kBits) + static_cast<Time>(rng() % static_cast<uint64_t>(spread));
    events[i].target = static_cast<uint32_t>(i);  // its scheduling position
    events[i].kind = EventKind::kLinkArrive;
  }
  return events;
}

void ExpectSortedLikeStableSort(const std::vector<Event>& in) {
  std::vector<Event> expected = in;
  std::stable_sort(expected.begin(), expected.end(),
                   [](const Event& a, const Event& b) { return a.time < b.time; });
  std::vector<Event> out(in.size());
  SortBucketByTime<kBits>(in.data(), in.size(), out.data());
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(out[i].time, expected[i].time) << "n " << in.size() << " position " << i;
    ASSERT_EQ(out[i].target, expected[i].target) << "n " << in.size() << " position " << i;
  }
}

TEST(BucketSort, EverySizeMatchesStableSort) {
  std::mt19937_64 rng(5);
  for (size_t n = 0; n <= 130; ++n) {
    // Wide offsets (few ties) and a handful of offsets (many ties).
    ExpectSortedLikeStableSort(RandomBucket(rng, n, 7, 1024));
    ExpectSortedLikeStableSort(RandomBucket(rng, n, 7, 4));
  }
}

TEST(BucketSort, ExtremeOffsetsAndReversedInput) {
  // The largest key (offset 1,023 at position 63) and a bucket in reverse order.
  std::vector<Event> in(64);
  for (size_t i = 0; i < in.size(); ++i) {
    in[i].time = (Time{3} << kBits) + 1023 - static_cast<Time>(i % 2 == 0 ? i : 0);
    in[i].target = static_cast<uint32_t>(i);
  }
  ExpectSortedLikeStableSort(in);
  std::vector<Event> all_equal(40);
  for (size_t i = 0; i < all_equal.size(); ++i) {
    all_equal[i].time = Time{9} << kBits;
    all_equal[i].target = static_cast<uint32_t>(i);
  }
  ExpectSortedLikeStableSort(all_equal);
}

#if defined(__x86_64__) && defined(__GNUC__)
// Both vector paths of the rank count (SSE2 for every size, AVX2 when the
// CPU has it) against a scalar count, so a machine with AVX2 still checks
// the SSE2 path that machines without it take.
TEST(BucketSort, VectorRankCountsMatchAScalarCount) {
  using namespace bucket_sort_detail;
  std::mt19937_64 rng(11);
  for (size_t n = 1; n <= kRankSortMax; ++n) {
    alignas(32) std::array<int16_t, kRankSortMax> keys;
    keys.fill(std::numeric_limits<int16_t>::max());
    for (size_t i = 0; i < n; ++i)  // distinct, as (offset, position) keys are
      keys[i] =
          static_cast<int16_t>(static_cast<int>(rng() % 1024) * 64 + static_cast<int>(i) - 32768);
    std::vector<uint16_t> expected(n);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) expected[i] += keys[j] < keys[i];
    alignas(32) std::array<uint16_t, kRankSortMax> sse2;
    CountRanksSse2(keys.data(), n, sse2.data());
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(sse2[i], expected[i]) << "SSE2, n " << n;
    if (!kHaveAvx2) continue;
    alignas(32) std::array<uint16_t, kRankSortMax> avx2;
    CountRanksAvx2(keys.data(), n, avx2.data());
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(avx2[i], expected[i]) << "AVX2, n " << n;
  }
}
#endif

}  // namespace
}  // namespace test_bucket_sort
}  // namespace rocesim
