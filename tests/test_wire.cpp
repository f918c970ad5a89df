// Tests of the wire (net/wire.h): frames in flight threaded through their
// packets, each holding the low 32 bits of its successor's arrival. Checked
// against a std::deque of (id, arrival) by hand-placed steps: landings in
// order, times whose low 32 bits wrap between two frames, a wire emptied
// and refilled, and a very long link whose frames land more than 2^32 ps
// apart (KeepFullArrivals).
#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <random>
#include <utility>
#include <vector>

#include "core/packet.h"
#include "net/wire.h"

namespace rocesim {
namespace test_wire {
namespace {

using Frames = std::vector<std::pair<PktId, Time>>;

Frames InFlight(const Wire& w, const PacketPool& pool) {
  Frames out;
  w.ForEach(pool, [&](PktId id, Time arrive) { out.emplace_back(id, arrive); });
  return out;
}

TEST(Wire, LandsFramesInOrderWithTheirArrivalTimes) {
  PacketPool pool;
  Wire w;
  EXPECT_TRUE(w.Empty());
  const PktId a = pool.Alloc(), b = pool.Alloc(), c = pool.Alloc();
  w.Push(pool, a, 1000);
  EXPECT_EQ(w.Head(), a);
  EXPECT_EQ(w.HeadArrive(), 1000);
  w.Push(pool, b, 1500);
  w.Push(pool, c, 1580);
  EXPECT_EQ(w.Count(), 3u);
  EXPECT_EQ(InFlight(w, pool), (Frames{{a, 1000}, {b, 1500}, {c, 1580}}));
  w.Drop(pool[a]);
  EXPECT_EQ(w.Head(), b);
  EXPECT_EQ(w.HeadArrive(), 1500);
  EXPECT_EQ(w.Pop(pool), b);
  EXPECT_EQ(w.Head(), c);
  EXPECT_EQ(w.HeadArrive(), 1580);
  EXPECT_EQ(w.Pop(pool), c);
  EXPECT_TRUE(w.Empty());
  // Refilled after emptying: the next frame's time comes from its Push.
  w.Push(pool, a, 7000);
  EXPECT_EQ(w.Head(), a);
  EXPECT_EQ(w.HeadArrive(), 7000);
}

TEST(Wire, SuccessorTimesCrossA32BitBoundary) {
  // 2^32 ps is 4.29 ms: a run passes such boundaries every 4.29 ms, and a
  // frame may land on the far side of one from the frame before it.
  PacketPool pool;
  Wire w;
  const Time base = (Time{3} << 32) - 300;
  const Frames frames = {{pool.Alloc(), base},
                         {pool.Alloc(), base + 250},
                         {pool.Alloc(), base + 400},             // past 3 * 2^32
                         {pool.Alloc(), base + 2'000'000'000}};  // 2 ms later
  for (const auto& [id, arrive] : frames) w.Push(pool, id, arrive);
  EXPECT_EQ(InFlight(w, pool), frames);
  for (const auto& [id, arrive] : frames) {
    EXPECT_EQ(w.Head(), id);
    EXPECT_EQ(w.HeadArrive(), arrive);
    w.Drop(pool[id]);
  }
  EXPECT_TRUE(w.Empty());
}

TEST(Wire, AVeryLongLinkKeepsFullArrivalTimes) {
  // A 5 ms link: the frame launched after another may land 5 ms after it,
  // beyond what 32 bits of picoseconds hold.
  PacketPool pool;
  Wire w;
  w.KeepFullArrivals();
  const Time ms = 1'000'000'000;
  const Frames frames = {
      {pool.Alloc(), 5 * ms}, {pool.Alloc(), 10 * ms}, {pool.Alloc(), 10 * ms + 80}};
  for (const auto& [id, arrive] : frames) w.Push(pool, id, arrive);
  EXPECT_EQ(InFlight(w, pool), frames);
  for (const auto& [id, arrive] : frames) {
    EXPECT_EQ(w.HeadArrive(), arrive);
    EXPECT_EQ(w.Pop(pool), id);
  }
  EXPECT_TRUE(w.Empty());
}

TEST(Wire, MatchesADequeOverRandomPushesAndLandings) {
  std::mt19937_64 rng(5);
  PacketPool pool;
  Wire w;
  std::deque<std::pair<PktId, Time>> model;
  Time last = 0;
  for (int step = 0; step < 20'000; ++step) {
    if (model.empty() || rng() % 3 != 0) {
      // Arrivals never decrease and lie less than 2^31 ps apart.
      last += static_cast<Time>(rng() % (Time{1} << 31));
      const PktId id = pool.Alloc();
      w.Push(pool, id, last);
      model.emplace_back(id, last);
    } else {
      ASSERT_EQ(w.Head(), model.front().first);
      ASSERT_EQ(w.HeadArrive(), model.front().second);
      w.Drop(pool[w.Head()]);
      pool.Free(model.front().first);
      model.pop_front();
    }
    ASSERT_EQ(w.Count(), model.size());
  }
  EXPECT_EQ(InFlight(w, pool), Frames(model.begin(), model.end()));
}

}  // namespace
}  // namespace test_wire
}  // namespace rocesim
