// Model tests of the CIOQ switch (seed 002 §4.1; DESIGN.md §6 "Model tests
// against physics"), each a small scenario with switch.architecture: cioq:
//  - one flow alone takes exactly its ideal FCT (line rate minus headers):
//    with an infinitely fast crossbar the switch adds no delay;
//  - two flows into one host share it evenly and keep it busy;
//  - a heavy incast (8-to-1 on a star, and across two switch hops on a
//    leaf-spine) loses nothing: the input queues pause their upstream at
//    input_queue_bytes minus the headroom, never exceed their size, and the
//    output queues never exceed theirs; bytes are conserved, at the end and
//    mid-run with frames still in VOQs;
//  - without PFC the same incast overflows the input queues (buffer_full)
//    and go-back-N recovers;
//  - monitors report output queues in queues.csv and input queues in
//    input_queues.csv (CIOQ fabrics only);
//  - the same scenario and seed give the same results.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_cioq_physics {
namespace {

using nlohmann::json;
using test::ExpectConserved;
using test::RunYaml;
using test::SimRun;

// Wire time of a full data frame at 100G: (1000 + 62 + 20) B * 80 ps.
constexpr Time kFullFrame100G = 86'560;

// Same expected FCT as the shared-buffer switch (test_model_physics.cpp):
// 10000 full frames host -> switch -> host at 100G with 1 us links.
TEST(CioqPhysics, SingleFlowTakesExactlyTheIdealFct) {
  const SimRun r = RunYaml(R"(
topology: {type: star, hosts: 2, host_link: {rate: 100Gbps, delay: 1us}}
switch: {architecture: cioq}
traffic:
  - type: flows
    flows: [{src: 0, dst: 1, size: 10MB}]
)");
  ASSERT_TRUE(r.stats.all_flows_done);
  const Flow& fl = r.fabric().flows.at(0);
  EXPECT_EQ(fl.finish - fl.start, 869'700'320);
  EXPECT_EQ(fl.ideal_fct, 869'700'320);
  EXPECT_EQ(r.summary["drops"]["total"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
  ExpectConserved(r.summary);
}

// Lone flows one at a time across two switch hops of mixed rates (25G host
// links, 100G fabric): the ideal FCT to the picosecond.
TEST(CioqPhysics, LoneFlowsOnLeafSpineTakeExactlyTheIdealFct) {
  const SimRun r = RunYaml(R"(
topology:
  type: leaf_spine
  leaves: 2
  spines: 2
  hosts_per_leaf: 2
  host_link: {rate: 25Gbps, delay: 1us}
  fabric_link: {rate: 100Gbps, delay: 2us}
switch: {architecture: cioq}
traffic:
  - type: flows
    flows: [{src: 0, dst: 3, size: 123457B}, {src: 1, dst: 2, size: 1B, start: 1ms},
            {src: 2, dst: 0, size: 999999B, start: 2ms}]
)");
  ASSERT_TRUE(r.stats.all_flows_done);
  for (const Flow& fl : r.fabric().flows) EXPECT_EQ(fl.finish - fl.start, fl.ideal_fct) << fl.id;
  EXPECT_EQ(r.fabric().flows[1].finish - r.fabric().flows[1].start, 12'135'200);
}

// Hosts 1 and 2 send 1 MB each to host 0: the output queue to host 0 takes a
// frame from each input in turn (round robin), stays busy from the first
// arrival (86560 + 1us) for 2000 frames, then the last frame's 1 us and its
// ACK: 1086560 + 2000 * 86560 + 1000000 + 2013760 ps.
TEST(CioqPhysics, TwoFlowsShareOneHostEvenly) {
  const SimRun r = RunYaml(R"(
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
switch: {architecture: cioq}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 1MB}, {src: 2, dst: 0, size: 1MB}]
)");
  ASSERT_TRUE(r.stats.all_flows_done);
  const Flow& a = r.fabric().flows[0];
  const Flow& b = r.fabric().flows[1];
  EXPECT_EQ(std::max(a.finish, b.finish),
            1'086'560 + 2000 * kFullFrame100G + 1'000'000 + 2'013'760);
  // Interleaved frame by frame: the first finisher is at most a frame ahead.
  EXPECT_LE(std::abs(a.finish - b.finish), kFullFrame100G);
  EXPECT_EQ(r.summary["drops"]["total"].get<uint64_t>(), 0u);
  ExpectConserved(r.summary);
}

// 8-to-1 at 100G with 100 KB queues (the defaults), no congestion control.
constexpr char kIncast8[] = R"(
duration: 5ms
topology: {type: star, hosts: 9, host_link: {rate: 100Gbps, delay: 1us}}
switch: {architecture: cioq, ecn: {enabled: false}}
traffic:
  - {type: incast, senders: "1-8", receiver: 0, size: 1MB}
)";

// What a run looked like from inside the switches, sampled every 250 ns.
struct QueuePeaks {
  int64_t input = 0;          // largest input queue (any switch, input, priority)
  int64_t output = 0;         // largest output queue
  int64_t xoff_reached = 0;   // input queues seen at or above their XOFF level
  int64_t xoff_not_full = 0;  // samples with XOFF set but the queue below the XON level
};

QueuePeaks Sample(Simulation& sim, Time until) {
  const Fabric& f = sim.fabric();
  const SwitchConfig& sw = sim.scenario().sw;
  QueuePeaks q;
  for (Time t = 0; t <= until && sim.Advance(t); t += 250 * kNanosecond) {
    for (const CioqSwitch& s : f.cioq_switches) {
      for (int in = 0; in < s.num_ports(); ++in) {
        for (int prio = 0; prio < kNumPriorities; ++prio) {
          const int64_t bytes = s.InputQueueBytes(in, prio);
          q.input = std::max(q.input, bytes);
          if (bytes >= s.XoffThreshold(in)) ++q.xoff_reached;
          if (s.Xoff(in, prio) && bytes + sw.pfc.xon_offset_bytes <= s.XoffThreshold(in))
            ++q.xoff_not_full;
        }
      }
      const Node& n = f.nodes[s.node()];
      for (uint16_t l = 0; l < n.num_ports; ++l)
        for (const PacketFifo& oq : f.ports[n.first_port + l].queue)
          q.output = std::max(q.output, oq.bytes);
    }
  }
  return q;
}

TEST(CioqPhysics, IncastLosesNothingAndTheInputQueuesPause) {
  Simulation sim(ParseScenarioText(kIncast8, "t.yaml", "", {}, std::nullopt));
  const QueuePeaks q = Sample(sim, 5 * kMillisecond);
  const RunStats stats = sim.Run();
  const json s = BuildSummary(sim, stats);
  ASSERT_TRUE(stats.all_flows_done);
  EXPECT_EQ(s["drops"]["total"].get<uint64_t>(), 0u) << s["drops"].dump();
  EXPECT_EQ(s["conservation"]["delivered_payload_bytes"].get<uint64_t>(), 8u * 1'000'000);
  EXPECT_EQ(s["retransmitted_packets"].get<uint64_t>(), 0u);
  ExpectConserved(s);
  // The input queues filled to their XOFF level (100 KB - 28246 B headroom)
  // and paused the senders; none grew past its 100 KB, nor any output queue
  // past its 100 KB. XOFF is cleared once a queue drains to the XON level.
  EXPECT_GT(q.xoff_reached, 0);
  EXPECT_LE(q.input, 100'000);
  EXPECT_GT(q.input, 100'000 - 28'246);
  EXPECT_LE(q.output, 100'000);
  EXPECT_GT(q.output, 100'000 - 1062);
  EXPECT_EQ(q.xoff_not_full, 0);
  // Pauses come from the switch's input ports (to the senders), none from
  // the port to the receiver, and the senders obey them.
  const Fabric& f = sim.fabric();
  const Node& sw = f.nodes[9];
  ASSERT_TRUE(sw.kind == NodeKind::kCioq);
  EXPECT_EQ(f.ports[sw.first_port + 0].counters.pause_sent, 0u);
  for (uint16_t l = 1; l <= 8; ++l) {
    const Port& p = f.ports[sw.first_port + l];
    EXPECT_GT(p.counters.pause_sent, 0u) << "input " << l;
    EXPECT_EQ(f.ports[p.peer].counters.pause_received, p.counters.pause_sent);
  }
  // PFC never starves the bottleneck: the port to host 0 is busy from the
  // first arrival through all 8000 frames; then the last frame's 1 us and
  // its ACK.
  Time last = 0;
  for (const Flow& fl : f.flows) last = std::max(last, fl.finish);
  EXPECT_EQ(last, 1'086'560 + 8000 * kFullFrame100G + 1'000'000 + 2'013'760);
  // Fair among the inputs: the round robin finishes them all within a few
  // frames of each other.
  Time first = kTimeMax;
  for (const Flow& fl : f.flows) first = std::min(first, fl.finish);
  EXPECT_LE(last - first, 8 * kFullFrame100G);
}

// Two switch hops: hosts 2-7 on leaf 1 and host 1 on leaf 0 send to host 0
// on leaf 0. Leaf 0's input queues from the spines pause the spines, whose
// input queues pause leaf 1, whose input queues pause the senders.
TEST(CioqPhysics, BackpressureAcrossHopsLosesNothing) {
  Simulation sim(ParseScenarioText(R"(
duration: 5ms
topology:
  type: leaf_spine
  leaves: 2
  spines: 2
  hosts_per_leaf: 4
  host_link: {rate: 100Gbps, delay: 1us}
  fabric_link: {rate: 100Gbps, delay: 1us}
switch: {architecture: cioq, ecn: {enabled: false}}
traffic:
  - {type: incast, senders: "1-7", receiver: 0, size: 1MB}
)",
                                   "t.yaml", "", {}, std::nullopt));
  const QueuePeaks q = Sample(sim, 5 * kMillisecond);
  const RunStats stats = sim.Run();
  const json s = BuildSummary(sim, stats);
  ASSERT_TRUE(stats.all_flows_done);
  EXPECT_EQ(s["drops"]["total"].get<uint64_t>(), 0u) << s["drops"].dump();
  EXPECT_LE(q.input, 100'000);
  EXPECT_LE(q.output, 100'000);
  ExpectConserved(s);
  // Every switch paused someone: leaf 0 the spines, the spines leaf 1, leaf
  // 1 its senders.
  const Fabric& f = sim.fabric();
  for (const CioqSwitch& sw : f.cioq_switches) {
    const Node& n = f.nodes[sw.node()];
    uint64_t sent = 0;
    for (uint16_t l = 0; l < n.num_ports; ++l)
      sent += f.ports[n.first_port + l].counters.pause_sent;
    EXPECT_GT(sent, 0u) << "switch node " << sw.node();
  }
}

// Stopped at 20 us: frames sit in VOQs, output queues and on wires.
TEST(CioqPhysics, BytesConservedMidRunWithFramesInVoqs) {
  const SimRun r = RunYaml(kIncast8, {"duration=20us"});
  EXPECT_FALSE(r.stats.all_flows_done);
  int64_t in_voqs = 0;
  for (int in = 0; in < 9; ++in) in_voqs += r.fabric().cioq_switches.at(0).InputQueueBytes(in, 3);
  EXPECT_GT(in_voqs, 0);
  ExpectConserved(r.summary);
  const SimRun lossy = RunYaml(kIncast8, {"duration=60us", "switch.pfc.enabled=false"});
  EXPECT_GT(lossy.summary["conservation"]["dropped_frames"].get<uint64_t>(), 0u);
  ExpectConserved(lossy.summary);
}

// Without PFC the input queues overflow: lossy drops (buffer_full), never a
// headroom drop, and go-back-N delivers everything.
TEST(CioqPhysics, WithoutPfcInputQueuesOverflowAndGoBackNRecovers) {
  const SimRun r = RunYaml(kIncast8, {"switch.pfc.enabled=false", "duration=20ms"});
  const json& d = r.summary["drops"];
  EXPECT_GT(d["buffer_full"].get<uint64_t>(), 0u) << d.dump();
  EXPECT_EQ(d["headroom_overflow"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(r.summary["retransmitted_packets"].get<uint64_t>(), 0u);
  ASSERT_TRUE(r.stats.all_flows_done);
  for (const Flow& fl : r.fabric().flows) EXPECT_EQ(fl.rcv_next, fl.packets);
  ExpectConserved(r.summary);
}

// Every row of a monitor CSV (header skipped) as its `bytes` column, the last.
std::vector<int64_t> BytesColumn(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<int64_t> bytes;
  while (std::getline(in, line)) bytes.push_back(std::stoll(line.substr(line.rfind(',') + 1)));
  return bytes;
}

TEST(CioqPhysics, MonitorsReportInputAndOutputQueues) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "rocesim_test_cioq_monitors";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "cioq");
  std::filesystem::create_directories(dir / "shared");
  {
    Simulation sim(ParseScenarioText(kIncast8, "t.yaml", "",
                                     {"duration=100us", "monitors.interval=1us"}, std::nullopt));
    sim.EnableMonitors((dir / "cioq").string());
    sim.Run();
  }
  const std::vector<int64_t> in = BytesColumn((dir / "cioq" / "input_queues.csv").string());
  const std::vector<int64_t> out = BytesColumn((dir / "cioq" / "queues.csv").string());
  ASSERT_FALSE(in.empty());
  ASSERT_FALSE(out.empty());
  EXPECT_LE(*std::max_element(in.begin(), in.end()), 100'000);
  EXPECT_GE(*std::max_element(in.begin(), in.end()), 100'000 - 28'246);
  EXPECT_LE(*std::max_element(out.begin(), out.end()), 100'000);
  EXPECT_GT(*std::min_element(in.begin(), in.end()), 0);  // only non-empty queues
  {
    Simulation sim(ParseScenarioText(
        "topology: {type: star, hosts: 3}\nduration: 10us\nmonitors: {interval: 1us}\n", "t.yaml",
        "", {}, std::nullopt));
    sim.EnableMonitors((dir / "shared").string());
    sim.Run();
  }
  EXPECT_TRUE(std::filesystem::exists(dir / "shared" / "queues.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir / "shared" / "input_queues.csv"));
}

// Same scenario, same seed: the same flows, drops and pauses (DESIGN.md §5),
// here with DCQCN's random ECN marks in the loop.
TEST(CioqPhysics, SameSeedSameResults) {
  const std::vector<std::string> sets{"host.cc=dcqcn", "switch.ecn.enabled=true", "duration=2ms"};
  const SimRun a = RunYaml(kIncast8, sets);
  const SimRun b = RunYaml(kIncast8, sets);
  EXPECT_GT(a.summary["ecn_marks"].get<uint64_t>(), 0u);
  for (const char* key : {"flows", "drops", "pfc", "ecn_marks", "conservation", "slowdown"})
    EXPECT_EQ(a.summary[key], b.summary[key]) << key;
  for (size_t i = 0; i < a.fabric().flows.Count(); ++i)
    EXPECT_EQ(a.fabric().flows[i].finish, b.fabric().flows[i].finish);
}

}  // namespace
}  // namespace test_cioq_physics
}  // namespace rocesim
