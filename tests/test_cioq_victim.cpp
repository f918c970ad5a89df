// Seed 002 §4.2 "Incast with Victim Flow" (Fig. 7) on the paper's fabric
// (§4.1: k = 12 fat tree, 432 hosts, 100 Gb/s, CIOQ switches with 100 KB
// queues): examples/rcm-victim.yaml, DCQCN only.
//  - the ECMP placement the seed describes holds (S1, S2 via SW_L1_5; S3, S4
//    and the victim via SW_L1_0), which the example obtains by its choice of
//    destinations;
//  - with PFC alone the victim is held to an incast flow's share, 25 Gb/s on
//    the wire, by head-of-line blocking at SW_L1_0's input queue (the
//    paper's explanation of its ~25 Gb/s), not the 50 Gb/s it could have;
//  - with DCQCN (the example) the victim starts in that regime and reaches
//    its fair share once DCQCN has slowed the incast senders; with ECN
//    thresholds high enough that a full 100 KB output queue is rarely
//    marked it stays there: the numbers the README records.
// Throughput here is goodput: acknowledged payload per second (a full frame
// carries 1000 of its 1082 wire bytes, so 25 Gb/s on the wire is 23.1).
#include <gtest/gtest.h>

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_cioq_victim {
namespace {

using nlohmann::json;
using test::ExamplePath;
using test::ExpectConserved;

// Node ids in the k = 12 fat tree (hosts 0-431, then 72 edge, 72 aggregation
// and 36 core switches): SW_L0_0 is edge 0 of pod 0; SW_L1_0 / SW_L1_5 are
// aggregation switches 0 and 5 of pod 0; D0 (host 173) hangs off edge 4 of
// pod 4, Dv (host 6) off edge 1 of pod 0.
constexpr uint32_t kSwL0_0 = 432, kSwL0_1 = 433, kD0Edge = 460, kSwL1_0 = 504, kSwL1_5 = 509;
constexpr int kVictim = 4;  // flow id; flows 0-3 are S1..S4 -> D0

Scenario VictimScenario(const std::vector<std::string>& sets = {}) {
  return LoadScenario(ExamplePath("rcm-victim.yaml"), sets, std::nullopt);
}

// The node a switch forwards flow `id`'s data to.
uint32_t NextNode(const Fabric& f, uint32_t sw, const Flow& fl) {
  const Node& n = f.nodes[sw];
  const uint16_t l = f.routing.SelectLocal(n.index, fl.src, fl.dst, fl.sport);
  return f.ports[f.ports[n.first_port + l].peer].node;
}

TEST(CioqVictim, EcmpPlacesTheFlowsAsTheSeedSays) {
  const Simulation sim(VictimScenario());
  const Fabric& f = sim.fabric();
  ASSERT_EQ(f.nics.size(), 432u);
  ASSERT_EQ(f.cioq_switches.size(), 180u);
  ASSERT_EQ(f.flows.Count(), 5u);
  // All five senders on SW_L0_0.
  for (const Flow& fl : f.flows)
    EXPECT_EQ(f.ports[f.ports[f.nics[fl.src].port()].peer].node, kSwL0_0);
  const std::array<uint32_t, 5> first_hop{kSwL1_5, kSwL1_5, kSwL1_0, kSwL1_0, kSwL1_0};
  for (const Flow& fl : f.flows)
    EXPECT_EQ(NextNode(f, kSwL0_0, fl), first_hop[fl.id]) << "flow " << fl.id;
  // The victim leaves SW_L1_0 straight down to Dv's edge: it shares only the
  // first uplink with the incast flows.
  EXPECT_EQ(NextNode(f, kSwL1_0, f.flows[kVictim]), kSwL0_1);
  for (int i = 0; i < 4; ++i) EXPECT_NE(NextNode(f, first_hop[i], f.flows[i]), kSwL0_1);
  // Via SW_L1_0 and SW_L1_5 (and a core each) the incast flows reach D0's
  // edge switch from two different aggregation switches of pod 4 (528 and
  // 533), two flows each: each of those links is held to 50 Gb/s.
  for (int i = 0; i < 4; ++i) {
    const uint32_t core = NextNode(f, first_hop[i], f.flows[i]);
    const uint32_t agg = NextNode(f, core, f.flows[i]);
    EXPECT_EQ(agg, i < 2 ? 533u : 528u) << "flow " << i;
    EXPECT_EQ(NextNode(f, agg, f.flows[i]), kD0Edge);
  }
}

struct Goodput {
  std::array<double, 5> gbps{};  // per flow, over [from, to]
};

// Acknowledged payload per flow between two instants of one run.
Goodput Measure(Simulation& sim, Time from, Time to) {
  const Fabric& f = sim.fabric();
  const auto mtu = static_cast<double>(sim.scenario().host.mtu_bytes);
  sim.Advance(from);
  std::array<uint32_t, 5> una{};
  for (const Flow& fl : f.flows) una[fl.id] = fl.snd_una;
  sim.Advance(to);
  Goodput g;
  for (const Flow& fl : f.flows)
    g.gbps[fl.id] = (fl.snd_una - una[fl.id]) * mtu * 8 / ToSeconds(to - from) / 1e9;
  return g;
}

// The mechanism, without congestion control: SW_L1_0's input queue from
// SW_L0_0 fills with incast frames that can leave only at 50 Gb/s, pauses
// the uplink, and SW_L0_0's output queue to the uplink serves S3, S4 and Sv
// in turn, so Sv moves at the incast flows' pace: 25 Gb/s on the wire.
TEST(CioqVictim, PfcAloneHoldsTheVictimToTheIncastShare) {
  Simulation sim(VictimScenario({"host.cc=none", "duration=3ms"}));
  const Goodput g = Measure(sim, 1 * kMillisecond, 3 * kMillisecond);
  const double share = 25.0 * 1000 / 1082;  // 23.1: an incast flow's fair share, goodput
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(g.gbps[i], share, 0.5) << "incast flow " << i;
  EXPECT_NEAR(g.gbps[kVictim], share, 0.5) << "victim";
  const Fabric& f = sim.fabric();
  // The HOL point: SW_L1_0's input port from SW_L0_0 (its local port 0) paused it.
  EXPECT_GT(f.ports[f.nodes[kSwL1_0].first_port + 0].counters.pause_sent, 0u);
  EXPECT_EQ(f.counters.dropped_frames, 0u);
}

// The example as shipped (DCQCN, hpcc-sim preset, ECN 5 KB / 200 KB / 1%).
// Measured: victim 28.5 Gb/s over the first millisecond (the paper's ~25,
// HOL-blocked, while DCQCN is still cutting the senders), 48.3 over the last
// 5 ms (ideal 50 on the wire = 46.2 goodput; it takes what the incast flows,
// 20.8-25.0 each, leave of the uplink).
TEST(CioqVictim, DcqcnAloneLeavesTheVictimHolBlockedAtFirst) {
  Simulation sim(VictimScenario());
  const Goodput early = Measure(sim, 0, 1 * kMillisecond);
  const Goodput late = Measure(sim, 5 * kMillisecond, 10 * kMillisecond);
  EXPECT_GT(early.gbps[kVictim], 20.0);
  EXPECT_LT(early.gbps[kVictim], 35.0) << "far below the ideal 46.2 at first";
  EXPECT_GT(late.gbps[kVictim], 42.0);
  // The uplink it shares with S3 and S4 is (nearly) full: 92.4 is its
  // goodput ceiling.
  const double uplink = late.gbps[kVictim] + late.gbps[2] + late.gbps[3];
  EXPECT_GT(uplink, 85.0);
  EXPECT_LE(uplink, 92.5);
  double incast = 0;
  for (int i = 0; i < 4; ++i) incast += late.gbps[i];
  // D0's link stays (nearly) full.
  EXPECT_GT(incast, 85.0);
  const RunStats stats = sim.Run();
  const json s = BuildSummary(sim, stats);
  EXPECT_EQ(s["drops"]["total"].get<uint64_t>(), 0u) << s["drops"].dump();
  EXPECT_GT(s["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(s["ecn_marks"].get<uint64_t>(), 0u);
  ExpectConserved(s);
}

// The example with K_min 90 KB / K_max 400 KB: marks are rare even in a full
// 100 KB output queue, DCQCN never removes the pauses, and the victim stays
// at the incast share (the paper's ~25 Gb/s on the wire).
TEST(CioqVictim, WeakEcnLeavesTheVictimAtTheIncastShare) {
  Simulation sim(VictimScenario({"switch.ecn.kmin=90KB", "switch.ecn.kmax=400KB", "duration=6ms"}));
  const Goodput g = Measure(sim, 3 * kMillisecond, 6 * kMillisecond);
  const double share = 25.0 * 1000 / 1082;
  EXPECT_NEAR(g.gbps[kVictim], share, 0.5);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(g.gbps[i], share, 0.5) << "incast flow " << i;
  EXPECT_GT(sim.fabric().counters.ecn_marks, 0u);
  EXPECT_EQ(sim.fabric().counters.dropped_frames, 0u);
}

}  // namespace
}  // namespace test_cioq_victim
}  // namespace rocesim
