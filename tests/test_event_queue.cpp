// Tests of the event queue (core/event_queue.h): events pop in time order,
// events at the same picosecond pop in canonical order (kind, arg, target:
// core/event.h), never in scheduling order, so that a partitioned run agrees
// with the serial one (DESIGN.md §5); small buckets (ranked directly), crowded
// buckets (the rank sort) and buckets fed from every tier all agree with a
// reference ordering; and Scheduled() counts every push ever made.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "core/event_queue.h"

namespace rocesim {
namespace test_event_queue {
namespace {

TEST(EventQueue, PopsInTimeOrder) {
  EventQueue q;
  const std::vector<Time> times = {50, 10, 40, 20, 30, 0, 70, 60};
  for (size_t i = 0; i < times.size(); ++i)
    q.Push(times[i], EventKind::kPortWake, static_cast<uint32_t>(i));
  EXPECT_EQ(q.Size(), times.size());
  std::vector<Time> popped;
  std::vector<uint32_t> targets;
  while (!q.Empty()) {
    const Event top = q.Top();
    const Event e = q.Pop();
    EXPECT_EQ(top.time, e.time);
    EXPECT_EQ(top.target, e.target);
    popped.push_back(e.time);
    targets.push_back(e.target);
  }
  EXPECT_EQ(popped, (std::vector<Time>{0, 10, 20, 30, 40, 50, 60, 70}));
  // Targets follow the times: index of each time in the input.
  EXPECT_EQ(targets, (std::vector<uint32_t>{5, 1, 3, 4, 2, 0, 7, 6}));
}

TEST(EventQueue, EqualTimesPopInCanonicalOrder) {
  EventQueue q;
  // 200 events at the same time, pushed with decreasing targets, with other
  // times interleaved so that the queue has to move them around.
  for (uint32_t i = 0; i < 200; ++i) {
    q.Push(1000, EventKind::kLinkArrive, 199 - i);
    q.Push(2000 - i, EventKind::kMonitor, 10'000 + i);  // later ones, decreasing
  }
  for (uint32_t i = 0; i < 200; ++i) {
    const Event e = q.Pop();
    EXPECT_EQ(e.time, 1000);
    EXPECT_EQ(e.target, i) << "same-time events of one kind and arg pop by target";
    EXPECT_EQ(e.kind, EventKind::kLinkArrive);
  }
  // Then the others by time: 1801 (i = 199) first ... 2000 (i = 0) last.
  for (uint32_t i = 0; i < 200; ++i) {
    const Event e = q.Pop();
    EXPECT_EQ(e.time, 1801 + static_cast<Time>(i));
    EXPECT_EQ(e.target, 10'000 + 199 - i);
  }
  EXPECT_TRUE(q.Empty());
}

// Kind first, then arg, then target, whatever the order of scheduling.
TEST(EventQueue, SameTimeOrderIsKindThenArgThenTarget) {
  EventQueue q;
  q.Push(500, EventKind::kMonitor, 0);
  q.Push(500, EventKind::kPortWake, 9);
  q.Push(500, EventKind::kLinkArrive, 1, 7);
  q.Push(500, EventKind::kLinkArrive, 8, 3);
  q.Push(500, EventKind::kPortWake, 2);
  q.Push(500, EventKind::kCcTimer, 4, 1);
  q.Push(500, EventKind::kCcTimer, 5, 0);
  const std::vector<std::tuple<EventKind, uint32_t, uint32_t>> expected = {
      {EventKind::kLinkArrive, 3, 8}, {EventKind::kLinkArrive, 7, 1}, {EventKind::kPortWake, 0, 2},
      {EventKind::kPortWake, 0, 9},   {EventKind::kMonitor, 0, 0},    {EventKind::kCcTimer, 0, 5},
      {EventKind::kCcTimer, 1, 4}};
  for (const auto& [kind, arg, target] : expected) {
    const Event e = q.Pop();
    EXPECT_EQ(e.kind, kind);
    EXPECT_EQ(e.arg, arg);
    EXPECT_EQ(e.target, target);
  }
  EXPECT_TRUE(q.Empty());
}

// An event pushed into the bucket being drained at the current time, whose
// key is smaller than what is left there, is the next to pop.
TEST(EventQueue, PushIntoDrainedBucketTakesItsCanonicalPlace) {
  EventQueue q;
  for (uint32_t i = 0; i < 6; ++i) q.Push(100, EventKind::kPortWake, 10 + i);
  EXPECT_EQ(q.Pop().target, 10u);
  EXPECT_EQ(q.Pop().target, 11u);
  q.Push(100, EventKind::kPortWake, 3);        // before the pending 12..15
  q.Push(100, EventKind::kLinkArrive, 99, 1);  // an earlier kind: first of all
  q.Push(100, EventKind::kPortWake, 14);       // equal to a pending one: beside it
  EXPECT_EQ(q.Pop().kind, EventKind::kLinkArrive);
  for (uint32_t expected : {3u, 12u, 13u, 14u, 14u, 15u}) EXPECT_EQ(q.Pop().target, expected);
  EXPECT_TRUE(q.Empty());
}

TEST(EventQueue, FieldsSurviveTheHeap) {
  EventQueue q;
  q.Push(5, EventKind::kPfcRefresh, 7, 3);
  q.Push(1, EventKind::kCcTimer, 9, 42);
  Event e = q.Pop();
  EXPECT_EQ(e.time, 1);
  EXPECT_EQ(e.kind, EventKind::kCcTimer);
  EXPECT_EQ(e.target, 9u);
  EXPECT_EQ(e.arg, 42u);
  e = q.Pop();
  EXPECT_EQ(e.time, 5);
  EXPECT_EQ(e.kind, EventKind::kPfcRefresh);
  EXPECT_EQ(e.target, 7u);
  EXPECT_EQ(e.arg, 3u);
}

TEST(EventQueue, ScheduledCountsEveryPush) {
  EventQueue q;
  EXPECT_EQ(q.Scheduled(), 0u);
  for (int i = 0; i < 10; ++i) q.Push(i, EventKind::kPortWake, 0);
  EXPECT_EQ(q.Scheduled(), 10u);
  for (int i = 0; i < 4; ++i) q.Pop();
  EXPECT_EQ(q.Scheduled(), 10u) << "popping does not un-schedule";
  EXPECT_EQ(q.Size(), 6u);
  q.Push(3, EventKind::kPortWake, 0);
  EXPECT_EQ(q.Scheduled(), 11u);
  EXPECT_EQ(q.Size(), 7u);
}

// The reference's same-time order for events of one kind and arg: by
// target, and (for equal, indistinguishable events) by push number.
uint64_t TieKey(uint32_t target, uint64_t push) {
  return uint64_t{target} << 32 | push;
}

// Random interleaved pushes and pops against a reference ordered set keyed by
// (time, target). Times come from a small range so ties are common;
// both arbitrary times and the simulator's pattern (never earlier than the
// last popped time) are exercised.
void RandomAgainstReference(bool monotonic, uint64_t seed, bool wide = false) {
  std::mt19937_64 rng(seed);
  EventQueue q;
  std::set<std::tuple<Time, uint64_t, uint32_t>> ref;  // (time, TieKey, target)
  uint64_t pushes = 0;
  Time now = 0;
  for (int step = 0; step < 20'000; ++step) {
    const bool push = ref.empty() || rng() % 100 < 55;
    if (push) {
      // Wide: ties, the calendar's near horizon (a few us) and its overflow
      // (up to 10 ms, many horizons ahead), as a fabric schedules them.
      const uint64_t r = rng() % 10;
      const Time span = !wide ? 64 : r < 5 ? 64 : r < 9 ? 10 * kMicrosecond : 10 * kMillisecond;
      const Time t = (monotonic ? now : 0) + static_cast<Time>(rng() % static_cast<uint64_t>(span));
      const uint32_t target = static_cast<uint32_t>(rng());
      q.Push(t, EventKind::kLinkArrive, target);
      ref.emplace(t, TieKey(target, pushes++), target);
    } else {
      ASSERT_FALSE(q.Empty());
      const auto expected = *ref.begin();
      ref.erase(ref.begin());
      const Event e = q.Pop();
      ASSERT_EQ(e.time, std::get<0>(expected)) << "step " << step;
      ASSERT_EQ(e.target, std::get<2>(expected)) << "step " << step;
      now = e.time;
    }
    ASSERT_EQ(q.Size(), ref.size());
  }
  while (!ref.empty()) {
    const auto expected = *ref.begin();
    ref.erase(ref.begin());
    const Event e = q.Pop();
    ASSERT_EQ(e.time, std::get<0>(expected));
    ASSERT_EQ(e.target, std::get<2>(expected));
  }
  EXPECT_TRUE(q.Empty());
  EXPECT_EQ(q.Scheduled(), pushes);
}

// Crowded buckets (the 400G fabric's ~14 events per ns and more): 1 to 80
// events per 1.024 ns bucket, pushed in random order across buckets, with
// repeated times; every bucket size path of the drain (the rank sort, and
// std::stable_sort for the largest) must give (time, target).
TEST(EventQueue, CrowdedBucketsPopInCanonicalOrder) {
  std::mt19937_64 rng(99);
  EventQueue q;
  std::vector<std::tuple<Time, uint64_t, uint32_t>> ref;  // (time, push number, target)
  struct Pending {
    Time t;
    uint32_t target;
  };
  std::vector<Pending> pushes;
  for (int bucket = 1; bucket <= 300; ++bucket) {
    const int n = 1 + static_cast<int>(rng() % 80);
    for (int i = 0; i < n; ++i) {
      // A few distinct offsets per bucket when n is large: many ties.
      const Time offset = static_cast<Time>(rng() % (rng() % 2 ? 1024 : 16));
      pushes.push_back({bucket * Time{1024} + offset, static_cast<uint32_t>(rng())});
    }
  }
  std::shuffle(pushes.begin(), pushes.end(), rng);
  for (uint64_t i = 0; i < pushes.size(); ++i) {
    q.Push(pushes[i].t, EventKind::kPortWake, pushes[i].target);
    ref.emplace_back(pushes[i].t, TieKey(pushes[i].target, i), pushes[i].target);
  }
  std::sort(ref.begin(), ref.end());
  for (const auto& [t, order, target] : ref) {
    const Event e = q.Pop();
    ASSERT_EQ(e.time, t) << "push " << order;
    ASSERT_EQ(e.target, target) << "push " << order;
  }
  EXPECT_TRUE(q.Empty());
}

// Small buckets (the direct-count path, at most 8 events, and just past it)
// whose events tie on time and differ only in kind, arg or target, some
// pushed twice (the same event): pops follow (time, kind, arg, target).
TEST(EventQueue, SmallBucketsPopInCanonicalOrder) {
  std::mt19937_64 rng(7);
  const EventKind kinds[] = {EventKind::kLinkArrive, EventKind::kPortWake, EventKind::kCcTimer};
  for (int round = 0; round < 2000; ++round) {
    EventQueue q;
    const size_t n = 1 + static_cast<size_t>(rng() % 10);
    std::vector<std::tuple<Time, EventKind, uint32_t, uint32_t>> ref;  // (time, kind, arg, target)
    const Time bucket = (1 + static_cast<Time>(rng() % 3)) * 1024;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 && rng() % 5 == 0) {  // the same event again
        const auto [t, kind, arg, target] = ref[rng() % ref.size()];
        q.Push(t, kind, target, arg);
        ref.emplace_back(t, kind, arg, target);
        continue;
      }
      const Time t = bucket + static_cast<Time>(rng() % 3);
      const EventKind kind = kinds[rng() % 3];
      const uint32_t arg = static_cast<uint32_t>(rng() % 3);
      const uint32_t target = static_cast<uint32_t>(rng() % 3);
      q.Push(t, kind, target, arg);
      ref.emplace_back(t, kind, arg, target);
    }
    std::sort(ref.begin(), ref.end());
    for (const auto& [t, kind, arg, target] : ref) {
      const Event e = q.Pop();
      ASSERT_EQ(e.time, t) << "round " << round;
      ASSERT_EQ(e.kind, kind) << "round " << round;
      ASSERT_EQ(e.arg, arg) << "round " << round;
      ASSERT_EQ(e.target, target) << "round " << round;
    }
    ASSERT_TRUE(q.Empty());
  }
}

// One bucket filled from every place an event can wait: the overflow heap
// (beyond the horizon), the far lists (beyond the near tier), the near
// tier's array and, past its capacity, its spill list; then more pushes
// into the bucket being drained. Pops must follow (time, target).
TEST(EventQueue, BucketFedFromEveryTierPopsInCanonicalOrder) {
  EventQueue q;
  std::set<std::tuple<Time, uint64_t, uint32_t>> ref;  // (time, TieKey, target)
  uint64_t order = 0;
  const Time bucket_start = 20 * kMicrosecond;  // beyond the 4 us horizon at first
  auto push = [&](Time t) {
    const uint32_t target = static_cast<uint32_t>(order * 7919 % 100'003);
    q.Push(t, EventKind::kLinkArrive, target);
    ref.emplace(t, TieKey(target, order++), target);
  };
  // Few distinct times: every tier holds events tied with the others.
  auto at = [&](int i) { return bucket_start + static_cast<Time>(i * 37 % 5) * 200; };
  // Stepping-stone events move the cursor towards the bucket.
  auto step_to = [&](Time t) {
    q.Push(t, EventKind::kPortWake, UINT32_MAX);
    const Event e = q.Pop();
    ASSERT_EQ(e.time, t);
    ASSERT_EQ(e.target, UINT32_MAX);
  };
  for (int i = 0; i < 10; ++i) push(at(i));  // the overflow heap
  step_to(17 * kMicrosecond);                // the bucket is ~3 us ahead: far lists
  for (int i = 10; i < 30; ++i) push(at(i));
  step_to(bucket_start - 100 * kNanosecond);  // near tier, past its capacity
  for (int i = 30; i < 100; ++i) push(at(i));
  int popped = 0;
  while (!ref.empty()) {
    const auto expected = *ref.begin();
    ref.erase(ref.begin());
    const Event e = q.Pop();
    ASSERT_EQ(e.time, std::get<0>(expected)) << "push " << std::get<1>(expected);
    ASSERT_EQ(e.target, std::get<2>(expected)) << "push " << std::get<1>(expected);
    if (++popped == 5) {  // into the bucket being drained: in canonical place
      push(at(99));
      push(bucket_start + 1023);
    }
  }
  EXPECT_TRUE(q.Empty());
}

TEST(EventQueue, RandomInterleavedMatchesReference) {
  RandomAgainstReference(false, 12345);
}

TEST(EventQueue, RandomMonotonicMatchesReference) {
  RandomAgainstReference(true, 777);
}

TEST(EventQueue, WideRandomMonotonicMatchesReference) {
  for (uint64_t seed : {1, 2, 3}) RandomAgainstReference(true, seed, /*wide=*/true);
}

TEST(EventQueue, WideRandomInterleavedMatchesReference) {
  RandomAgainstReference(false, 4, /*wide=*/true);
}

// A lone event far beyond the horizon after a long idle gap, then events
// at the same bucket from both the ring and the overflow heap.
TEST(EventQueue, SparseAndFarEventsKeepOrder) {
  EventQueue q;
  q.Push(5 * kSecond, EventKind::kFlowStart, 1);
  q.Push(3, EventKind::kFlowStart, 0);
  EXPECT_EQ(q.Pop().target, 0u);
  EXPECT_EQ(q.Top().time, 5 * kSecond);  // moves the cursor to the far bucket
  q.Push(5 * kSecond, EventKind::kFlowStart, 2);
  q.Push(5 * kSecond + 2 * kMicrosecond, EventKind::kFlowStart, 3);
  q.Push(5 * kSecond + 1, EventKind::kFlowStart, 4);
  for (uint32_t expected : {1u, 2u, 4u, 3u}) EXPECT_EQ(q.Pop().target, expected);
  EXPECT_TRUE(q.Empty());
}

// The drain's short path takes the ring's first bucket when it lies wholly
// in its near array; an overflow event in that bucket or an earlier one must
// still come first. Events pushed beyond the horizon wait in the overflow
// heap while the cursor moves up to them, and lone near events are pushed
// into the same bucket as one (G with A) and behind another (J after B).
TEST(EventQueue, OverflowEventsPrecedeLoneNearEventsOfLaterOrSameBuckets) {
  EventQueue q;
  q.Push(6'000'000, EventKind::kFlowStart, 1);  // A: bucket 5859, beyond the horizon
  q.Push(7'000'000, EventKind::kFlowStart, 5);  // B: bucket 6835, likewise
  auto step_to = [&](Time t) {
    q.Push(t, EventKind::kPortWake, 99);
    const Event e = q.Pop();
    ASSERT_EQ(e.time, t);
    ASSERT_EQ(e.target, 99u);
  };
  step_to(5'530'000);                           // the cursor at bucket 5400
  q.Push(6'011'000, EventKind::kFlowStart, 3);  // F: a lone near event, bucket 5870
  q.Push(6'000'500, EventKind::kFlowStart, 2);  // G: near, in A's bucket
  EXPECT_EQ(q.Pop().target, 1u);
  EXPECT_EQ(q.Pop().target, 2u);
  EXPECT_EQ(q.Pop().target, 3u);
  step_to(6'500'000);                           // the cursor at bucket 6347
  q.Push(7'010'000, EventKind::kFlowStart, 6);  // J: near, bucket 6845, after B's
  const Event b = q.Pop();
  EXPECT_EQ(b.target, 5u);
  EXPECT_EQ(b.time, 7'000'000);
  EXPECT_EQ(q.Pop().target, 6u);
  EXPECT_TRUE(q.Empty());
}

TEST(EventQueue, BulkPushThenPopIsSortedByTimeThenTarget) {
  std::mt19937_64 rng(99);
  EventQueue q;
  std::vector<std::pair<Time, uint32_t>> in;
  for (uint32_t i = 0; i < 5000; ++i) {
    const Time t = static_cast<Time>(rng() % 300);
    in.emplace_back(t, i);
    q.Push(t, EventKind::kFlowStart, i);
  }
  std::sort(in.begin(), in.end());
  for (const auto& [t, target] : in) {
    const Event e = q.Pop();
    ASSERT_EQ(e.time, t);
    ASSERT_EQ(e.target, target);
  }
  EXPECT_TRUE(q.Empty());
}

}  // namespace
}  // namespace test_event_queue
}  // namespace rocesim
