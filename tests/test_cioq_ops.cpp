// Operations (src/ops/, seed 003) on CIOQ switches (seed 002 §4.1): the same
// defences and detectors as on the shared-buffer switch.
//  - a NIC pause storm stalls an unrelated flow through the input queue it
//    shares, and the ToR watchdog (action drop) drains the paused output
//    queue and the VOQs behind it so that the flow finishes;
//  - a link going down loses what is queued for it (VOQs included), routes
//    converge and every flow completes; bytes are conserved;
//  - the deadlock detector finds a ring's cyclic wait through input queues,
//    and its `break` releases it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_cioq_ops {
namespace {

using nlohmann::json;
using test::ExpectConserved;
using test::RunYaml;
using test::SimRun;

// examples/pfc-storm.yaml on CIOQ switches: host 0 storms pauses from
// 100 us; host 4's flow to it fills leaf 0's output queue to host 0, the
// VOQs behind it, and the input queues back to leaf 1's servers; the
// victims from hosts 5-7 stall wherever they share a paused input queue.
constexpr char kStorm[] = R"(
duration: 5ms
topology:
  type: leaf_spine
  leaves: 2
  spines: 2
  hosts_per_leaf: 4
  host_link: {rate: 100Gbps, delay: 1us}
  fabric_link: {rate: 100Gbps, delay: 1us}
switch:
  architecture: cioq
  pfc: {enabled: true, priorities: [3]}
  watchdog: {enabled: false, detect: 1ms, restore: 10ms, action: drop}
host: {cc: none}
faults:
  - {type: nic_pause_storm, host: 0, priority: 3, at: 100us}
traffic:
  - type: flows
    flows:
      - {src: 4, dst: 0, size: 100MB, start: 0us, tag: to-storm}
      - {src: 5, dst: 1, size: 5MB, start: 500us, tag: victim}
      - {src: 6, dst: 2, size: 5MB, start: 500us, tag: victim}
      - {src: 7, dst: 3, size: 5MB, start: 500us, tag: victim}
)";

TEST(CioqOps, StormStallsAVictimAndTheSwitchWatchdogRecoversIt) {
  const SimRun stuck = RunYaml(kStorm);
  const SimRun fixed = RunYaml(kStorm, {"switch.watchdog.enabled=true"});
  // Without the watchdog some victim never finishes: the pause spreads.
  int stuck_victims = 0;
  for (int i = 1; i <= 3; ++i) stuck_victims += !stuck.fabric().flows[i].Finished();
  EXPECT_GT(stuck_victims, 0);
  EXPECT_EQ(stuck.summary["drops"]["total"].get<uint64_t>(),
            stuck.summary["drops"]["receiver_down"].get<uint64_t>());
  // With it, leaf 0's queue to host 0 is drained and every victim finishes.
  for (int i = 1; i <= 3; ++i) EXPECT_TRUE(fixed.fabric().flows[i].Finished()) << "victim " << i;
  EXPECT_GE(fixed.summary["watchdog"]["triggers"].get<uint64_t>(), 1u);
  EXPECT_GT(fixed.summary["drops"]["watchdog"].get<uint64_t>(), 0u);
  EXPECT_EQ(fixed.summary["drops"]["headroom_overflow"].get<uint64_t>(), 0u);
  ExpectConserved(stuck.summary);
  ExpectConserved(fixed.summary);
}

// The link between leaf 0 (node 8) and spine 0 (node 10) fails at 100 us
// and comes back at 1 ms; routes converge 10 us after each.
TEST(CioqOps, LinkDownLosesWhatIsQueuedForItAndFlowsComplete) {
  const SimRun r = RunYaml(R"(
duration: 20ms
topology:
  type: leaf_spine
  leaves: 2
  spines: 2
  hosts_per_leaf: 4
  host_link: {rate: 100Gbps, delay: 1us}
  fabric_link: {rate: 100Gbps, delay: 1us}
switch: {architecture: cioq}
host: {cc: none}
faults:
  - {type: link_down, a: 8, b: 10, at: 100us, until: 1ms, convergence: 10us}
traffic:
  - {type: incast, senders: "4-7", receiver: 0, size: 2MB}
  - {type: incast, senders: "0-3", receiver: 4, size: 2MB}
)");
  EXPECT_GT(r.summary["drops"]["link_down"].get<uint64_t>(), 0u) << r.summary["drops"].dump();
  EXPECT_EQ(r.summary["drops"]["headroom_overflow"].get<uint64_t>(), 0u);
  EXPECT_TRUE(r.stats.all_flows_done);
  for (const Flow& fl : r.fabric().flows) EXPECT_EQ(fl.rcv_next, fl.packets);
  ExpectConserved(r.summary);
}

// Five CIOQ switches (nodes 10-14) in a ring, two hosts each (hosts 2i and
// 2i + 1 on switch 10 + i); each host sends two hops clockwise. A switch's
// output queue to the next ring switch is shared round robin by its two host
// inputs and its ring input, so the ring input gets a third of it while two
// thirds of what arrives there is transit for that queue: the transit VOQs
// fill every ring input queue, each pauses the previous switch, whose output
// queue to it then waits on it — a cyclic wait (seed 003 §4.1) that a
// single host per switch would not build on CIOQ switches (the ring input
// would get half the link for half transit).
std::string RingScenario() {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rocesim_test_cioq";
  // One file per test: ctest runs tests in parallel processes.
  std::filesystem::create_directories(dir);
  std::ofstream file(dir /
                     (std::string("ring5x2_") +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt"));
  file << "15 5 15\n10 11 12 13 14\n";
  for (int h = 0; h < 10; ++h) file << h << " " << 10 + h / 2 << " 100Gbps 1000ns 0\n";
  for (int s = 0; s < 5; ++s) file << 10 + s << " " << 10 + (s + 1) % 5 << " 100Gbps 1000ns 0\n";
  file.close();
  std::string yaml =
      "duration: 5ms\ntopology: {type: file, file: '" +
      (dir / (std::string("ring5x2_") +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt"))
          .string() +
      R"('}
switch: {architecture: cioq, ecn: {enabled: false}}
host: {cc: none}
monitors:
  deadlock: {enabled: true, threshold: 500us}
traffic:
  - type: flows
    flows:
)";
  for (int h = 0; h < 10; ++h)
    yaml += "      - {src: " + std::to_string(h) + ", dst: " + std::to_string((h + 4) % 10) +
            ", size: 50MB}\n";
  return yaml;
}

std::unique_ptr<Simulation> Ring(const std::vector<std::string>& sets) {
  return std::make_unique<Simulation>(
      ParseScenarioText(RingScenario(), "ring.yaml", "", sets, std::nullopt));
}

TEST(CioqOps, RingDeadlocksAndTheDetectorReportsTheCycle) {
  const std::unique_ptr<Simulation> sim = Ring({});
  sim->Advance(1 * kMillisecond);
  const uint64_t delivered = sim->fabric().counters.delivered_payload_bytes;
  const RunStats stats = sim->Run();
  EXPECT_EQ(sim->fabric().counters.delivered_payload_bytes, delivered) << "nothing moves";
  const json s = BuildSummary(*sim, stats);
  ASSERT_EQ(s["deadlocks"].size(), 1u) << s["deadlocks"].dump();
  std::vector<std::string> nodes;
  for (const json& q : s["deadlocks"][0]["cycle"]) {
    const std::string name = q.get<std::string>();
    nodes.push_back(name.substr(0, name.find(':')));
    EXPECT_EQ(name.substr(name.rfind(':')), ":3");
  }
  std::sort(nodes.begin(), nodes.end());
  EXPECT_EQ(nodes, (std::vector<std::string>{"10", "11", "12", "13", "14"}));
  EXPECT_EQ(s["drops"]["total"].get<uint64_t>(), 0u);
  ExpectConserved(s);
}

TEST(CioqOps, DeadlockBreakReleasesTheRing) {
  const std::unique_ptr<Simulation> stuck = Ring({});
  const RunStats stuck_stats = stuck->Run();
  const std::unique_ptr<Simulation> broken = Ring({"monitors.deadlock.break=true"});
  const RunStats stats = broken->Run();
  const json s = BuildSummary(*broken, stats);
  EXPECT_GT(s["drops"]["deadlock_break"].get<uint64_t>(), 0u);
  EXPECT_GT(broken->fabric().counters.delivered_payload_bytes,
            stuck->fabric().counters.delivered_payload_bytes);
  ExpectConserved(s);
  ExpectConserved(BuildSummary(*stuck, stuck_stats));
}

}  // namespace
}  // namespace test_cioq_ops
}  // namespace rocesim
