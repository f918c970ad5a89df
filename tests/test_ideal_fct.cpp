// Tests of the ideal flow completion time (stats/ideal_fct.h), the denominator
// of slowdown (DESIGN.md §4: "FCT of the flow alone on an idle network (base RTT
// plus serialization of the flow, headers included, at the bottleneck rate)"):
// hand-computed cases (one packet over two hops; many full packets and a short
// last one, which queues behind the previous full packet at hop 2; a slower
// middle hop; the inter-frame gap counted on every hop), then agreement with a
// per-packet store-and-forward tandem-queue reference on random paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "stats/ideal_fct.h"

namespace rocesim {
namespace test_ideal_fct {
namespace {

constexpr int64_t k100G = 100'000'000'000;
constexpr int64_t k25G = 25'000'000'000;

// 1000 B payload + 62 B headers; the ACK is 62 + 4 B.
IdealFctInput Base(std::vector<Hop> fwd, std::vector<Hop> rev, uint32_t packets,
                   int64_t last_payload, int ifg) {
  IdealFctInput in;
  in.forward = std::move(fwd);
  in.reverse = std::move(rev);
  in.packets = packets;
  in.full_frame = 1062;
  in.last_frame = last_payload + 62;
  in.ack_frame = 66;
  in.ifg_bytes = ifg;
  return in;
}

// One 1000 B packet over host -> switch -> host at 100G, 1 us links, IFG 20 B:
// serialization (1062 + 20) * 80 ps = 86560 ps per hop, the ACK (66 + 20) * 80 =
// 6880 ps per hop. 86560 + 1us + 86560 + 1us + 2 * (6880 + 1us) = 4186880 ps.
TEST(IdealFct, OnePacketTwoHops) {
  const std::vector<Hop> path = {{k100G, kMicrosecond}, {k100G, kMicrosecond}};
  EXPECT_EQ(IdealFct(Base(path, path, 1, 1000, 20)), 4'186'880);
}

// The IFG is paid by every frame on every hop: without it, 1062 * 80 = 84960 and
// 66 * 80 = 5280, so 2 * 84960 + 2 * 5280 + 4 us = 4180480 (4 frames * 20 B *
// 80 ps = 6400 ps less).
TEST(IdealFct, InterFrameGapOnEveryHop) {
  const std::vector<Hop> path = {{k100G, kMicrosecond}, {k100G, kMicrosecond}};
  EXPECT_EQ(IdealFct(Base(path, path, 1, 1000, 0)), 4'180'480);
}

// Ten packets, nine full and a last one of 500 B (582 B on the wire: 46560 ps),
// over two equal 100G hops. Hop 1: the NIC sends back to back, the last ends at
// 9 * 86560 + 46560 = 825600. Hop 2: full packet k ends at (k + 2) * 86560 + 1us;
// the ninth (k = 8) at 1865600, after the last packet arrives (825600 + 1us =
// 1825600), so the last one queues behind it and ends at 1865600 + 46560 =
// 1912160. + 1 us + ACK 2 * (6880 + 1us) = 4925920.
TEST(IdealFct, ShortLastPacketQueuesBehindPreviousAtHopTwo) {
  const std::vector<Hop> path = {{k100G, kMicrosecond}, {k100G, kMicrosecond}};
  EXPECT_EQ(IdealFct(Base(path, path, 10, 500, 20)), 4'925'920);
}

// All packets full: the bottleneck stream, 10000 packets of 86560 ps, then one
// more hop of a frame and the delays: 10000 * 86560 + 1us + 86560 + 1us +
// 2 * (6880 + 1us) = 869700320 (a 10 MB flow).
TEST(IdealFct, TenMegabytesLineRate) {
  const std::vector<Hop> path = {{k100G, kMicrosecond}, {k100G, kMicrosecond}};
  EXPECT_EQ(IdealFct(Base(path, path, 10000, 1000, 20)), 869'700'320);
}

// A slower middle hop (25G: 320 ps/byte) with unequal delays 1us, 2us, 0.5us,
// three packets, the last of 500 B. Per packet (finish times, ps):
//   hop 0 (100G):  86560, 173120, 219680
//   hop 1 (25G):   1432800, 1779040, max(1219680, 1779040) + 186240 = 1965280
//   hop 2 (100G):  3519360, 3865600, max(3965280, 3865600) + 46560 = 4011840
// + 0.5us = 4511840; the ACK back over 100G 0.5us, 25G 2us, 100G 1us:
// 6880 + 27520 + 6880 + 3.5us = 3541280. Total 8053120.
TEST(IdealFct, SlowerMiddleHop) {
  const std::vector<Hop> fwd = {
      {k100G, kMicrosecond}, {k25G, 2 * kMicrosecond}, {k100G, 500 * kNanosecond}};
  const std::vector<Hop> rev = {
      {k100G, 500 * kNanosecond}, {k25G, 2 * kMicrosecond}, {k100G, kMicrosecond}};
  EXPECT_EQ(IdealFct(Base(fwd, rev, 3, 500, 20)), 8'053'120);
}

// Reference: every packet through every hop, store and forward, FIFO, the NIC
// sending back to back: finish[i][h] = max(finish[i][h-1] + d[h-1],
// finish[i-1][h]) + ser_h(frame_i).
Time ReferenceFct(const IdealFctInput& in) {
  std::vector<Time> prev_hop(in.packets, 0);  // finish at previous hop
  for (size_t h = 0; h < in.forward.size(); ++h) {
    std::vector<Time> cur(in.packets, 0);
    Time busy = 0;
    for (uint32_t i = 0; i < in.packets; ++i) {
      const int64_t frame = i + 1 == in.packets ? in.last_frame : in.full_frame;
      const Time arrive = h == 0 ? 0 : prev_hop[i] + in.forward[h - 1].delay;
      busy =
          std::max(arrive, busy) + SerializationTime(frame + in.ifg_bytes, in.forward[h].rate_bps);
      cur[i] = busy;
    }
    prev_hop = cur;
  }
  Time t = prev_hop.back() + in.forward.back().delay;
  for (const Hop& h : in.reverse)
    t += SerializationTime(in.ack_frame + in.ifg_bytes, h.rate_bps) + h.delay;
  return t;
}

TEST(IdealFct, MatchesPerPacketReferenceOnRandomPaths) {
  std::mt19937_64 rng(2024);
  // Includes rates whose per-frame serialization is not an integer picosecond.
  const std::vector<int64_t> rates = {10'000'000'000,  25'000'000'000,  40'000'000'000,
                                      100'000'000'000, 400'000'000'000, 3'000'000'000,
                                      7'000'000'000};
  for (int trial = 0; trial < 500; ++trial) {
    const int hops = 1 + static_cast<int>(rng() % 6);
    std::vector<Hop> fwd, rev;
    for (int h = 0; h < hops; ++h) {
      fwd.push_back({rates[rng() % rates.size()], static_cast<Time>(rng() % 3'000'000)});
      rev.push_back({rates[rng() % rates.size()], static_cast<Time>(rng() % 3'000'000)});
    }
    const uint32_t packets = 1 + static_cast<uint32_t>(rng() % 40);
    const int64_t last_payload = 1 + static_cast<int64_t>(rng() % 1000);
    const int ifg = static_cast<int>(rng() % 2) * 20;
    const IdealFctInput in = Base(fwd, rev, packets, last_payload, ifg);
    ASSERT_EQ(IdealFct(in), ReferenceFct(in))
        << "trial " << trial << " hops " << hops << " packets " << packets;
  }
}

}  // namespace
}  // namespace test_ideal_fct
}  // namespace rocesim
