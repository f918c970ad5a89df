// Seed 002 §4.2 "Incast with Victim Flow" (Fig. 7) with regional congestion
// mitigation (src/net/cioq_rcm.h): examples/rcm-victim.yaml with
// --set switch.rcm.enabled=true, DCQCN underneath.
//
// ECN setting. The paper's DCQCN-only victim gets "only about 25 Gbps because
// of HOL blocking" as its steady state. In our CIOQ fabric that happens when
// ECN rarely marks in a 100 KB output queue (K_min 90 KB / K_max 400 KB: 24.6
// Gb/s on the wire throughout, tests/test_cioq_victim.cpp); with the DCQCN
// paper's 5 KB / 200 KB DCQCN removes the HOL blocking by itself after ~1 ms
// (48 Gb/s), which contradicts the paper's baseline. The paper configures
// "the default values used for Mellanox 100 G adapter" — NIC parameters — and
// gives no switch threshold, so we use the setting that reproduces its
// baseline: 90 KB / 400 KB.
//
// Window: 1-3 ms, after the first PFC/DCQCN transient (incast start-up) so
// that both runs are in their steady state; the DCQCN-only victim is at the
// incast share there (23.1 Gb/s goodput).
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
namespace test_rcm_victim {
namespace {

using nlohmann::json;
using test::ExamplePath;
using test::ExpectConserved;

constexpr int kVictim = 4;  // flow id; flows 0-3 are S1..S4 -> D0

// Later --set overrides win, so `extra` goes last.
std::vector<std::string> WithRcm(bool rcm, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> sets = {"switch.ecn.kmin=90KB", "switch.ecn.kmax=400KB", "duration=3ms",
                                   std::string("switch.rcm.enabled=") + (rcm ? "true" : "false")};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return sets;
}

// Acknowledged payload per flow between two instants of one run, Gb/s.
std::array<double, 5> Goodput(Simulation& sim, Time from, Time to) {
  const Fabric& f = sim.fabric();
  const auto mtu = static_cast<double>(sim.scenario().host.mtu_bytes);
  sim.Advance(from);
  std::array<uint32_t, 5> una{};
  for (const Flow& fl : f.flows) una[fl.id] = fl.snd_una;
  sim.Advance(to);
  std::array<double, 5> g{};
  for (const Flow& fl : f.flows)
    g[fl.id] = (fl.snd_una - una[fl.id]) * mtu * 8 / ToSeconds(to - from) / 1e9;
  return g;
}

TEST(RcmVictim, VictimGetsAtLeastOneAndAHalfTimesItsDcqcnOnlyThroughput) {
  Simulation base(LoadScenario(ExamplePath("rcm-victim.yaml"), WithRcm(false), std::nullopt));
  Simulation rcm(LoadScenario(ExamplePath("rcm-victim.yaml"), WithRcm(true), std::nullopt));
  const auto g0 = Goodput(base, 1 * kMillisecond, 3 * kMillisecond);
  const auto g1 = Goodput(rcm, 1 * kMillisecond, 3 * kMillisecond);
  EXPECT_NEAR(g0[kVictim], 25.0 * 1000 / 1082, 1.0) << "the DCQCN-only baseline is HOL-blocked";
  EXPECT_GE(g1[kVictim], 1.5 * g0[kVictim]);
  // D0's link stays full: RCC reorders the uplink, it does not waste it.
  double incast = 0;
  for (int i = 0; i < 4; ++i) incast += g1[i];
  EXPECT_GT(incast, 85.0);
  const json s = BuildSummary(rcm, rcm.Run());
  EXPECT_GT(s["rcm"]["notifications_sent"].get<uint64_t>(), 0u);
  // A few may still be on a wire when the run stops.
  EXPECT_LE(s["rcm"]["notifications_received"].get<uint64_t>(),
            s["rcm"]["notifications_sent"].get<uint64_t>());
  EXPECT_GT(s["rcm"]["rcc_harmful_deferred"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["rcm"]["notifications_at_hosts"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["drops"]["total"].get<uint64_t>(), 0u) << s["drops"].dump();
  ExpectConserved(s);
}

// SAR re-deciding at every frame (sar_idle 0), so that the incast flows —
// harmful at SW_L0_0's congested uplink — come up for a decision again and
// again: none may move, while the non-harmful victim does.
TEST(RcmVictim, HarmfulFlowsAreNeverRerouted) {
  Simulation sim(LoadScenario(ExamplePath("rcm-victim.yaml"),
                              WithRcm(true, {"switch.rcm.sar_idle=0ns"}), std::nullopt));
  const json s = BuildSummary(sim, sim.Run());
  const json& r = s["rcm"];
  EXPECT_GT(r["sar_decisions"].get<uint64_t>(), 0u);
  EXPECT_GT(r["sar_harmful_kept"].get<uint64_t>(), 0u) << r.dump();
  EXPECT_GT(r["sar_reroutes"].get<uint64_t>(), 0u) << r.dump();
  EXPECT_EQ(r["sar_harmful_rerouted"].get<uint64_t>(), 0u) << r.dump();
  EXPECT_EQ(s["drops"]["total"].get<uint64_t>(), 0u) << s["drops"].dump();
  ExpectConserved(s);
}

TEST(RcmVictim, SameSeedSameFlows) {
  const auto run = [] {
    Simulation sim(LoadScenario(ExamplePath("rcm-victim.yaml"), WithRcm(true, {"duration=1ms"}),
                                std::nullopt));
    sim.Run();
    std::vector<uint32_t> una;
    for (const Flow& fl : sim.fabric().flows) una.push_back(fl.snd_una);
    return std::make_pair(una, sim.fabric().counters.rcm_notifications_sent);
  };
  EXPECT_EQ(run(), run());
}

TEST(RcmConfig, RejectsRcmOnTheSharedBufferSwitch) {
  EXPECT_THROW(LoadScenario(ExamplePath("rcm-victim.yaml"),
                            {"switch.architecture=shared_buffer", "switch.cioq=null",
                             "switch.rcm.enabled=true"},
                            std::nullopt),
               ScenarioError);
}

}  // namespace
}  // namespace test_rcm_victim
}  // namespace rocesim
