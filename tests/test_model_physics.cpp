// Model tests against physics (DESIGN.md §6 "Model tests against physics" and
// "Invariants ... bytes conserved"), each a small scenario run through the
// library (ParseScenarioText -> Simulation -> fabric / BuildSummary):
//  - one flow alone reaches line rate minus header overhead; its FCT is the
//    ideal FCT exactly (slowdown 1, DESIGN.md §4), on a star and a leaf-spine;
//  - two flows into one port split it evenly and keep it busy;
//  - an incast under PFC loses nothing, even with a 1 MB buffer (DESIGN.md §3);
//    the same incast without PFC drops and recovers by go-back-N; PFC stays
//    lossless with mixed link rates, and XOFF is renewed once per refresh
//    interval, not more (no spurious pause frames);
//  - frames and payload bytes are conserved, at the end and mid-run;
//  - the same scenario and seed give byte-identical results (DESIGN.md §5);
//  - the NP sends at most one CNP per QP per interval (seed 000 §4-5);
//  - ECN marks only above K_min (DESIGN.md §3, seed 000 §7);
//  - control frames (ACKs) are served strictly before a full data queue;
//  - congestion spreading on a dumbbell (seed 000 §1): a victim flow that does
//    not cross the congested port loses most of the inter-switch link under PFC.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_model_physics {
namespace {

using nlohmann::json;

constexpr int64_t kRate100G = 100'000'000'000;
// Wire time of a full data frame at 100G: (1000 + 62 + 20) B * 80 ps.
constexpr Time kFullFrame100G = 86'560;

using test::ExpectConserved;
using test::RunYaml;
using test::SimRun;

// ---------------------------------------------------------------------------
// One flow alone.

// 10 MB = 10000 full packets over host -> switch -> host, 100G, 1 us links.
// Ideal (stats/ideal_fct.h, hand-computed in test_ideal_fct.cpp): 10000 * 86560
// + 1us + 86560 + 1us + 2 * (6880 + 1us) = 869700320 ps.
TEST(Physics, SingleFlowReachesLineRateMinusHeaders) {
  const SimRun r = RunYaml(R"(
topology: {type: star, hosts: 2, host_link: {rate: 100Gbps, delay: 1us}}
traffic:
  - type: flows
    flows: [{src: 0, dst: 1, size: 10MB}]
)");
  ASSERT_TRUE(r.stats.all_flows_done);
  const Flow& fl = r.fabric().flows.at(0);
  const Time fct = fl.finish - fl.start;
  EXPECT_EQ(fct, 869'700'320);
  EXPECT_EQ(fl.ideal_fct, 869'700'320);
  // Alone on an idle network the FCT is the ideal FCT by construction.
  EXPECT_NEAR(static_cast<double>(fct) / static_cast<double>(fl.ideal_fct), 1.0, 1e-6);
  EXPECT_NEAR(r.summary["slowdown"]["max"].get<double>(), 1.0, 1e-6);
  // Goodput: rate * mtu / (mtu + headers + IFG) = 100G * 1000 / 1082.
  const double goodput = 10e6 * 8 / ToSeconds(fct);
  const double expected = 100e9 * 1000.0 / 1082.0;
  EXPECT_NEAR(goodput / expected, 1.0, 0.005) << goodput / 1e9 << " Gb/s";
  EXPECT_EQ(r.summary["drops"]["total"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
  ExpectConserved(r.summary);
}

// Lone flows, one at a time, over a leaf-spine with 25G host links and 100G
// fabric links (and again with a slow 7G fabric, whose frame times are not
// whole picoseconds per byte, and no IFG): each FCT equals its ideal FCT to
// the picosecond, so slowdown is exactly 1 (DESIGN.md §4). The 1 B flow by hand:
// data frame 83 B on the wire: 83*320 + 83*80 + 83*80 + 83*320 + 1+2+2+1 us =
// 6066400; ACK 86 B: 86*320*2 + 86*80*2 + 6 us = 6068800; total 12135200 ps.
// The same flow over long links, where all its frames are in flight at once:
// each link's delay adds 4 x delay to the FCT (two data hops, two ACK hops).
// Two one-packet flows from the other host start 4.5 ms apart, so their
// frames land 4.5 ms apart on each wire, both in flight at once. 2 ms links
// keep each frame's 32-bit copy of its successor's arrival (net/wire.h),
// whose low bits wrap every 4.3 ms of the run; 5 ms links are beyond it
// (Port::kLongDelay) and land from their full times. The RTO stays above the RTT.
TEST(Physics, LongLinksKeepTheExactFct) {
  for (const auto& [delay, delay_ps] :
       {std::pair{"2ms", 2 * kMillisecond}, std::pair{"5ms", 5 * kMillisecond}}) {
    const SimRun r = RunYaml(fmt::format(R"(
topology: {{type: star, hosts: 2, host_link: {{rate: 100Gbps, delay: {}}}}}
switch: {{buffer: 2GB}}  # PFC headroom for a 5 ms link
host: {{rto: 100ms}}
duration: 1s
traffic:
  - type: flows
    flows: [{{src: 0, dst: 1, size: 10MB}}, {{src: 1, dst: 0, size: 1000B, start: 1ms}},
            {{src: 1, dst: 0, size: 1000B, start: 5.5ms}}]
)",
                                         delay));
    ASSERT_TRUE(r.stats.all_flows_done) << delay;
    const Flow& fl = r.fabric().flows.at(0);
    EXPECT_EQ(fl.finish - fl.start, 865'700'320 + 4 * delay_ps) << delay;
    EXPECT_EQ(fl.ideal_fct, 865'700'320 + 4 * delay_ps) << delay;
    for (int i : {1, 2}) {
      const Flow& one = r.fabric().flows.at(i);
      EXPECT_EQ(one.finish - one.start, one.ideal_fct) << delay << " flow " << i;
    }
    EXPECT_EQ(r.summary["drops"]["total"].get<uint64_t>(), 0u);
    ExpectConserved(r.summary);
  }
}

TEST(Physics, LoneFlowsOnLeafSpineTakeExactlyTheIdealFct) {
  const std::string yaml = R"(
topology:
  type: leaf_spine
  leaves: 2
  spines: 2
  hosts_per_leaf: 2
  host_link: {rate: 25Gbps, delay: 1us}
  fabric_link: {rate: 100Gbps, delay: 2us}
traffic:
  - type: flows
    flows: [{src: 0, dst: 3, size: 123457B}, {src: 1, dst: 2, size: 1B, start: 1ms},
            {src: 2, dst: 0, size: 999999B, start: 2ms}]
)";
  for (const auto& sets :
       {std::vector<std::string>{},
        std::vector<std::string>{"topology.host_link.rate=100Gbps",
                                 "topology.fabric_link.rate=7Gbps", "topology.ifg_bytes=0"}}) {
    const SimRun r = RunYaml(yaml, sets);
    ASSERT_TRUE(r.stats.all_flows_done);
    for (const Flow& fl : r.fabric().flows) {
      EXPECT_EQ(fl.finish - fl.start, fl.ideal_fct) << "flow " << fl.id << " sets " << sets.size();
      EXPECT_GT(fl.ideal_fct, 0);
    }
    if (sets.empty()) {
      EXPECT_EQ(r.fabric().flows[1].ideal_fct, 12'135'200);
      EXPECT_EQ(r.fabric().flows[1].finish - r.fabric().flows[1].start, 12'135'200);
    }
  }
}

// ECN is on by default (K_min 5 KB): a lone flow never builds a queue (arrival
// rate = service rate), so nothing is marked and no CNP is sent.
TEST(Physics, NoEcnMarksWithoutAQueue) {
  const SimRun r = RunYaml(R"(
topology: {type: star, hosts: 2, host_link: {rate: 100Gbps, delay: 1us}}
switch: {ecn: {enabled: true, kmin: 5KB, kmax: 200KB, pmax: 1}}
traffic:
  - type: flows
    flows: [{src: 0, dst: 1, size: 2MB}]
)");
  ASSERT_TRUE(r.stats.all_flows_done);
  EXPECT_EQ(r.summary["ecn_marks"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.fabric().flows[0].ecn_marked, 0u);
  EXPECT_EQ(r.summary["cnps_sent"].get<uint64_t>(), 0u);
}

// Marks only above K_min: two 1 MB flows into one port build a queue of up to
// ~1 MB. With K_min = K_max = 20 MB nothing is marked; with 5 KB nearly
// every packet leaves a queue above K_max behind and is marked.
TEST(Physics, EcnMarksOnlyAboveKmin) {
  const std::string yaml = R"(
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
switch: {ecn: {enabled: true, kmin: 20MB, kmax: 20MB}}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 1MB}, {src: 2, dst: 0, size: 1MB}]
)";
  const SimRun high = RunYaml(yaml);
  ASSERT_TRUE(high.stats.all_flows_done);
  EXPECT_EQ(high.summary["ecn_marks"].get<uint64_t>(), 0u);
  const SimRun low = RunYaml(yaml, {"switch.ecn.kmin=5KB", "switch.ecn.kmax=5KB"});
  ASSERT_TRUE(low.stats.all_flows_done);
  EXPECT_GT(low.summary["ecn_marks"].get<uint64_t>(), 1000u);
  EXPECT_EQ(low.summary["ecn_marks"].get<uint64_t>(),
            low.fabric().flows[0].ecn_marked + low.fabric().flows[1].ecn_marked)
      << "every mark reaches the responder once all flows are done";
}

// ---------------------------------------------------------------------------
// Two flows into one port.

// Hosts 1 and 2 each send 1 MB (1000 frames) to host 0 from t = 0. The port to
// host 0 starts when the first frames arrive (86560 + 1us) and stays busy for
// 2000 * 86560 ps; the last frame then needs 1us to host 0 and its ACK
// 6880 + 1us + 6880 + 1us back: 1086560 + 173120000 + 1000000 + 2013760 =
// 177220320 ps.
TEST(Physics, TwoFlowsShareOnePortEvenly) {
  const SimRun r = RunYaml(R"(
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 1MB}, {src: 2, dst: 0, size: 1MB}]
)");
  ASSERT_TRUE(r.stats.all_flows_done);
  const Flow& a = r.fabric().flows[0];
  const Flow& b = r.fabric().flows[1];
  const double fa = static_cast<double>(a.finish - a.start);
  const double fb = static_cast<double>(b.finish - b.start);
  EXPECT_NEAR(fa / fb, 1.0, 0.02);
  EXPECT_EQ(std::max(a.finish, b.finish), 177'220'320);
  // And the first finisher is at most a frame time ahead (FIFO interleaving).
  EXPECT_LE(std::abs(a.finish - b.finish), kFullFrame100G);
  EXPECT_EQ(r.summary["drops"]["total"].get<uint64_t>(), 0u);
}

// ---------------------------------------------------------------------------
// Incast with and without PFC.

// 16-to-1 at 100G with a 1 MB buffer. Carve-outs on the 17-port switch:
// reserved 17 * 8 * 1000 = 136000; auto headroom per port 2 * 1us * 100G / 8 +
// 3 * 1082 = 28246, * 17 = 480182; shared pool 383818 B.
constexpr char kSmallBufferIncast[] = R"(
duration: 10ms
topology: {type: star, hosts: 17, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 1MB, reserved: 1KB, ecn: {enabled: false}}
traffic:
  - {type: incast, senders: "1-16", receiver: 0, size: 200KB}
)";

TEST(Physics, IncastWithPfcLosesNothing) {
  const SimRun r = RunYaml(kSmallBufferIncast);
  const auto& sw = r.fabric().switches.at(0);
  EXPECT_EQ(sw.mmu().SharedPoolBytes(), 383'818);
  ASSERT_TRUE(r.stats.all_flows_done);
  const json& d = r.summary["drops"];
  EXPECT_EQ(d["total"].get<uint64_t>(), 0u) << d.dump();
  EXPECT_EQ(d["headroom_overflow"].get<uint64_t>(), 0u);
  EXPECT_EQ(d["buffer_full"].get<uint64_t>(), 0u);
  EXPECT_EQ(d["wred"].get<uint64_t>(), 0u);
  EXPECT_GT(r.summary["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(r.summary["pfc"]["pause_frames_received"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), 16u);
  EXPECT_EQ(r.summary["naks_sent"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["retransmitted_packets"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["timeouts"].get<uint64_t>(), 0u);
  // Exactly the payload was delivered, once.
  EXPECT_EQ(r.summary["conservation"]["delivered_payload_bytes"].get<uint64_t>(), 16u * 200000);
  ExpectConserved(r.summary);
  // PFC must not starve the bottleneck: the port to host 0 is busy from the
  // first arrival (86560 + 1us) through all 3200 frames, then the last frame's
  // 1us and its ACK (6880 + 1us) * 2: 1086560 + 3200 * 86560 + 1000000 +
  // 2013760 = 281092320 ps for the last flow to finish.
  Time last = 0;
  for (const Flow& fl : r.fabric().flows) last = std::max(last, fl.finish);
  EXPECT_EQ(last, 1'086'560 + 3200 * kFullFrame100G + 1'000'000 + 2'013'760);
  // Every counter back to zero in the switch buffer.
  EXPECT_EQ(sw.mmu().TotalBytes(), 0);
  EXPECT_EQ(sw.mmu().SharedUsed(), 0);
}

TEST(Physics, IncastWithoutPfcDropsAndRecovers) {
  const SimRun r = RunYaml(kSmallBufferIncast, {"switch.pfc.enabled=false"});
  // No headroom is carved without lossless priorities: 1e6 - 136000.
  EXPECT_EQ(r.fabric().switches.at(0).mmu().SharedPoolBytes(), 864'000);
  const json& d = r.summary["drops"];
  EXPECT_GT(d["buffer_full"].get<uint64_t>(), 0u) << d.dump();
  EXPECT_EQ(d["headroom_overflow"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(r.summary["naks_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(r.summary["retransmitted_packets"].get<uint64_t>(), 0u);
  EXPECT_TRUE(r.stats.all_flows_done) << "go-back-N must recover within 10 ms";
  EXPECT_EQ(r.summary["flows"]["completed"].get<uint64_t>(), 16u);
  for (const Flow& fl : r.fabric().flows) EXPECT_EQ(fl.rcv_next, fl.packets);
  ExpectConserved(r.summary);
}

// Stopped after 20 us: frames are still on wires and in the switch.
TEST(Physics, BytesConservedMidRun) {
  const SimRun r = RunYaml(kSmallBufferIncast, {"duration=20us"});
  EXPECT_FALSE(r.stats.all_flows_done);
  EXPECT_EQ(r.stats.end_time, 20 * kMicrosecond);
  const json& c = r.summary["conservation"];
  EXPECT_GT(c["in_network_frames"].get<uint64_t>(), 0u);
  EXPECT_GT(c["in_network_payload_bytes"].get<uint64_t>(), 0u);
  EXPECT_GT(c["delivered_frames"].get<uint64_t>(), 0u);
  ExpectConserved(r.summary);
  // Mid-run without PFC too (drops in the balance).
  const SimRun lossy = RunYaml(kSmallBufferIncast, {"duration=60us", "switch.pfc.enabled=false"});
  EXPECT_GT(lossy.summary["conservation"]["dropped_frames"].get<uint64_t>(), 0u);
  EXPECT_GT(lossy.summary["conservation"]["in_network_frames"].get<uint64_t>(), 0u);
  ExpectConserved(lossy.summary);
}

// PFC must hold a lossless class lossless on mixed-rate switches too
// (DESIGN.md §6 "no drop in a lossless class unless headroom is exceeded";
// DESIGN.md §3 headroom sized from link delay and MTU). Dumbbell with 25G host
// links and a 100G inter-switch link, XOFF quanta 1000 (5.12 us at 100G, 20.48 us
// at 25G): hosts 1, 2 congest host 0 first (XOFF on 25G ports), then hosts 3-6
// on switch B join through the 100G link, so switch A holds the link in XOFF for
// a long time. While it does, the pause it keeps re-sending must not lapse.
TEST(Physics, PfcStaysLosslessWithMixedLinkRates) {
  const SimRun r = RunYaml(R"(
duration: 1ms
topology:
  type: dumbbell
  hosts_left: 3
  hosts_right: 4
  host_link: {rate: 25Gbps, delay: 1us}
  fabric_link: {rate: 100Gbps, delay: 1us}
switch: {buffer: 2MB, reserved: 1KB, pfc: {quanta: 1000}, ecn: {enabled: false}}
traffic:
  - {type: incast, senders: [1, 2], receiver: 0, size: 2MB}
  - {type: incast, senders: [3, 4, 5, 6], receiver: 0, size: 1MB, start: 100us}
)");
  EXPECT_GT(r.summary["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["drops"]["headroom_overflow"].get<uint64_t>(), 0u)
      << "lossless class dropped: " << r.summary["drops"].dump();
  EXPECT_EQ(r.summary["drops"]["total"].get<uint64_t>(), 0u);
  ExpectConserved(r.summary);
}

// PFC refresh (DESIGN.md §3 PFC; IEEE 802.1Qbb): while an ingress (port,
// priority) stays in XOFF the switch renews the pause every R = half the pause
// time (R = 65535 * 512 bit / 100G / 2 = 167.77 us here), so an XOFF that
// arrives at a host which is still paused must come about R after the previous
// XOFF. A refresh sooner than that is a spurious pause frame (it inflates the
// pause counts operators read, seed 003 "pause frames per interval").
//
// Every pause frame spends at least the 1 us link delay on the wire, so
// stepping the run every 250 ns and reading the switch->host wires sees each
// one (keyed by its arrival time).
struct PauseRenewals {
  uint64_t xoffs = 0, refreshes = 0, early = 0;
  Time worst_gap = kTimeMax;
};

// Runs the quickstart incast with the given pause quanta and classifies every
// XOFF reaching a host: a renewal is one that arrives while the previous pause
// is still in force; it is early if it came before the refresh interval.
PauseRenewals MeasurePauseRenewals(int quanta) {
  const std::string yaml = fmt::format(R"(
duration: 5ms
topology: {{type: star, hosts: 17, host_link: {{rate: 100Gbps, delay: 1us}}}}
switch: {{buffer: 12MB, alpha: 1/16, ecn: {{enabled: false}}, pfc: {{quanta: {}}}}}
traffic:
  - {{type: incast, senders: "1-16", receiver: 0, size: 1MB, start: 10us}}
)",
                                       quanta);
  const Scenario sc = ParseScenarioText(yaml, "test.yaml", "", {}, std::nullopt);
  Simulation sim(sc);
  Fabric& f = sim.fabric();
  const Time pause_time = SerializationTime(int64_t{quanta} * 64, kRate100G);
  const Time refresh = pause_time / 2;
  // Per switch->host port: (arrival time, quanta) of each pause frame.
  std::vector<std::map<Time, int>> pauses(f.ports.size());
  for (Time t = 0; sim.Advance(t) && t <= sc.duration; t += 250 * kNanosecond) {
    for (PortId p = 0; p < f.ports.size(); ++p) {
      if (!f.nodes[f.ports[p].node].is_switch) continue;
      f.ports[p].wire.ForEach(f.pool, [&](PktId id, Time arrive) {
        if (f.pool[id].type == PktType::kPause)
          pauses[p][arrive] = static_cast<int>(f.pool[id].psn);
      });
    }
  }
  EXPECT_EQ(f.flows_finished, f.flows.Count());
  PauseRenewals r;
  for (const auto& frames : pauses) {
    Time paused_until = 0, last_xoff = -1;
    for (const auto& [arrive, q] : frames) {
      if (q == 0) {
        paused_until = arrive;
        continue;
      }
      ++r.xoffs;
      if (paused_until > arrive) {
        ++r.refreshes;
        const Time gap = arrive - last_xoff;
        r.worst_gap = std::min(r.worst_gap, gap);
        // Allow for the pause frame waiting behind one data frame.
        if (gap < refresh - 2 * kFullFrame100G) ++r.early;
      }
      last_xoff = arrive;
      paused_until = arrive + pause_time;
    }
  }
  // The stepped run reproduces an uninterrupted one.
  const SimRun ref = RunYaml(yaml);
  for (size_t i = 0; i < f.flows.Count(); ++i)
    EXPECT_EQ(f.flows[i].finish, ref.fabric().flows[i].finish) << "flow " << i;
  EXPECT_EQ(f.counters.pause_sent, ref.fabric().counters.pause_sent);
  return r;
}

TEST(Physics, PfcRefreshOnlyAfterAFullRefreshInterval) {
  ASSERT_EQ(SerializationTime(int64_t{65535} * 64, kRate100G) / 2, 167'769'600);
  // Full quanta: pauses end by XON long before a renewal is due, so any
  // renewal would be a stale refresh timer.
  const PauseRenewals full = MeasurePauseRenewals(65535);
  EXPECT_GT(full.xoffs, 0u);
  EXPECT_EQ(full.refreshes, 0u);
  // Short quanta (about 1 us): pauses must be renewed, each one a full
  // refresh interval after the last.
  const PauseRenewals shortq = MeasurePauseRenewals(200);
  EXPECT_GT(shortq.refreshes, 0u);
  EXPECT_EQ(shortq.early, 0u) << shortq.refreshes << " renewals of " << shortq.xoffs
                              << " XOFFs; shortest gap " << shortq.worst_gap << " ps";
}

// ---------------------------------------------------------------------------
// Determinism through the CLI.

using test::ReadFile;

using test::RunCli;

// An 8-to-1 incast whose queue sits inside the RED ramp, so ECN marking draws
// random numbers: the seed matters.
constexpr char kEcnIncast[] = R"(name: determinism
seed: 7
duration: 2ms
topology: {type: star, hosts: 9, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 2MB, reserved: 1KB, ecn: {enabled: true, kmin: 5KB, kmax: 400KB, pmax: 20%}}
host: {cnp_interval: 4us}
traffic:
  - {type: incast, senders: "1-8", receiver: 0, size: 100KB}
  - type: flows
    flows: [{src: 1, dst: 2, size: 50KB, start: 3us}, {src: 3, dst: 4, size: 70KB}]
)";

TEST(Physics, SameSeedGivesByteIdenticalResults) {
  if (std::getenv("ROCESIM_BIN") == nullptr) GTEST_SKIP() << "ROCESIM_BIN not set (run via ctest)";
  const std::string dir =
      ::testing::TempDir() + "rocesim_determinism_" + std::to_string(::getpid()) + "/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = dir + "ecn_incast.yaml";
  std::ofstream(file) << kEcnIncast;

  ASSERT_EQ(RunCli("run " + file + " -q -o " + dir + "a"), 0);
  ASSERT_EQ(RunCli("run " + file + " -q -o " + dir + "b"), 0);
  const std::string flows_a = ReadFile(dir + "a/flows.csv");
  ASSERT_FALSE(flows_a.empty());
  EXPECT_EQ(flows_a, ReadFile(dir + "b/flows.csv"));
  json sa = json::parse(ReadFile(dir + "a/summary.json"));
  json sb = json::parse(ReadFile(dir + "b/summary.json"));
  ASSERT_TRUE(sa.contains("run"));
  sa.erase("run");
  sb.erase("run");
  EXPECT_EQ(sa.dump(2), sb.dump(2));
  EXPECT_GT(sa["ecn_marks"].get<uint64_t>(), 0u) << "the scenario must exercise RED";
  EXPECT_EQ(ReadFile(dir + "a/scenario.yaml"), ReadFile(dir + "b/scenario.yaml"));

  // Another seed may give other numbers but must run cleanly.
  ASSERT_EQ(RunCli("run " + file + " -q --seed 8 -o " + dir + "c"), 0);
  const json sc = json::parse(ReadFile(dir + "c/summary.json"));
  EXPECT_EQ(sc["seed"].get<uint64_t>(), 8u);
  EXPECT_EQ(sc["flows"]["total"].get<uint64_t>(), 10u);
  std::filesystem::remove_all(dir);
}

// The library agrees with itself too: two Simulations of one scenario.
TEST(Physics, SameSeedSameCountersInProcess) {
  const SimRun a = RunYaml(kEcnIncast);
  const SimRun b = RunYaml(kEcnIncast);
  json sa = a.summary, sb = b.summary;
  sa.erase("run");
  sb.erase("run");
  EXPECT_EQ(sa, sb);
  for (size_t i = 0; i < a.fabric().flows.Count(); ++i)
    EXPECT_EQ(a.fabric().flows[i].finish, b.fabric().flows[i].finish);
}

// ---------------------------------------------------------------------------
// CNP pacing at the notification point.

// Two 10 MB flows into host 0 for T = 500 us with K_min = K_max = 1 KB: once
// the queue builds, every packet is marked. With cnp_interval 50 us each QP may
// get at most T / 50us + 1 = 11 CNPs.
constexpr char kCnpScenario[] = R"(
duration: 500us
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
switch: {ecn: {enabled: true, kmin: 1KB, kmax: 1KB}}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 10MB}, {src: 2, dst: 0, size: 10MB}]
)";

TEST(Physics, CnpAtMostOnePerQpPerInterval) {
  const SimRun r = RunYaml(kCnpScenario);
  EXPECT_FALSE(r.stats.all_flows_done);
  const Time T = 500 * kMicrosecond, interval = 50 * kMicrosecond;
  const uint64_t per_qp_max = static_cast<uint64_t>(T / interval) + 1;
  uint64_t received = 0;
  for (const Flow& fl : r.fabric().flows) {
    EXPECT_GT(fl.ecn_marked, 1000u) << "flow " << fl.id << " must see many CE packets";
    EXPECT_GT(fl.cnps_received, 0u) << "flow " << fl.id;
    EXPECT_LE(fl.cnps_received, per_qp_max) << "flow " << fl.id;
    // Marked continuously from the first few us on: close to one per interval.
    EXPECT_GE(fl.cnps_received, per_qp_max - 2) << "flow " << fl.id;
    received += fl.cnps_received;
  }
  const uint64_t sent = r.summary["cnps_sent"].get<uint64_t>();
  EXPECT_LE(sent, 2 * per_qp_max);
  EXPECT_GE(sent, received);
  EXPECT_LE(sent, received + 2) << "at most one CNP per QP still in flight";
}

TEST(Physics, CnpIntervalZeroGivesOneCnpPerCePacket) {
  const SimRun r = RunYaml(kCnpScenario, {"host.cnp_interval=0ns"});
  uint64_t marked = 0;
  for (const Flow& fl : r.fabric().flows) marked += fl.ecn_marked;
  EXPECT_GT(marked, 1000u);
  EXPECT_EQ(r.summary["cnps_sent"].get<uint64_t>(), marked);
  EXPECT_EQ(r.fabric().counters.cnps_sent, marked);
}

// ---------------------------------------------------------------------------
// Strict priority for control frames.

// Hosts 1 and 2 blast 10 MB each at host 0, so the switch's queue to host 0
// holds about a megabyte of data by t = 100 us. Host 0 then sends one 1000 B
// packet to host 1; its ACK crosses host 1's busy uplink and that full queue.
// Strict priority for the control class bounds the extra delay by one data
// frame in transmission per hop (4 hops), instead of ~100 us of queue.
TEST(Physics, AcksBypassAFullDataQueue) {
  const std::string yaml = R"(
duration: 200us
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
switch: {ecn: {enabled: false}}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 10MB}, {src: 2, dst: 0, size: 10MB},
            {src: 0, dst: 1, size: 1000B, start: 100us}]
)";
  // First show the queue is there when the small flow starts.
  const SimRun before = RunYaml(yaml, {"duration=100us"});
  const Fabric& bf = before.fabric();
  const Port& to_host0 = bf.ports[bf.ports[bf.nics[0].port()].peer];
  EXPECT_GT(to_host0.queue[3].bytes, 500'000) << "the data queue to host 0 must be long";

  const SimRun r = RunYaml(yaml);
  const Flow& probe = r.fabric().flows.at(2);
  ASSERT_TRUE(probe.Finished());
  EXPECT_EQ(probe.ideal_fct, 4'186'880);
  EXPECT_LE(probe.finish - probe.start, probe.ideal_fct + 4 * kFullFrame100G)
      << "ACK waited behind the data queue";
}

// ---------------------------------------------------------------------------
// Congestion spreading (seed 000 §1).

// Dumbbell: switch A has hosts 0-6, switch B hosts 7-8 (hosts_left first).
// A..E = hosts 0-4 and F = host 7 (on B) send to G = host 5 on A; the victim
// X = host 8 (on B) sends to Y = host 6 on A. X's path never touches G's port,
// but with PFC and no congestion control F's share of G backs up into the A-B
// link, A pauses B, and X is paused with F. Without the incast X alone gets
// ~92% of the link; with it, far below half.
constexpr char kDumbbell[] = R"(
duration: 400us
topology:
  type: dumbbell
  hosts_left: 7
  hosts_right: 2
  host_link: {rate: 100Gbps, delay: 1us}
  fabric_link: {rate: 100Gbps, delay: 1us}
switch: {buffer: 2MB, reserved: 1KB, ecn: {enabled: false}}
traffic:
  - type: flows
    flows: [{src: 8, dst: 6, size: 100MB, tag: victim}]
  - {type: incast, senders: [0, 1, 2, 3, 4, 7], receiver: 5, size: 100MB}
)";

// Victim goodput in b/s between t0 and t1 (runs the prefix twice: the runs are
// deterministic, so the first is a snapshot of the second at t0).
double VictimGoodput(const std::vector<std::string>& sets, Time t0, Time t1) {
  std::vector<std::string> s0 = sets, s1 = sets;
  s0.push_back("duration=" + std::to_string(t0 / kNanosecond) + "ns");
  s1.push_back("duration=" + std::to_string(t1 / kNanosecond) + "ns");
  const SimRun a = RunYaml(kDumbbell, s0);
  const SimRun b = RunYaml(kDumbbell, s1);
  const uint64_t pkts = b.fabric().flows[0].rcv_next - a.fabric().flows[0].rcv_next;
  return static_cast<double>(pkts) * 1000 * 8 / ToSeconds(t1 - t0);
}

TEST(Physics, DumbbellVictimSuffersCongestionSpreading) {
  const Time t0 = 100 * kMicrosecond, t1 = 400 * kMicrosecond;
  // Control: the victim alone (the incast entry removed).
  const double alone =
      VictimGoodput({"traffic.1.size=1B", "traffic.1.senders=[0]", "traffic.1.receiver=1"}, t0, t1);
  EXPECT_GT(alone, 0.9 * kRate100G) << "victim alone: " << alone / 1e9 << " Gb/s";

  const double spread = VictimGoodput({}, t0, t1);
  EXPECT_LT(spread, 0.5 * kRate100G) << "victim under incast: " << spread / 1e9 << " Gb/s";
  EXPECT_GT(spread, 0.0) << "the victim is slowed, not starved";

  // The cause: switch A paused the inter-switch link.
  const SimRun r = RunYaml(kDumbbell);
  const Fabric& f = r.fabric();
  uint64_t link_pauses = 0;
  for (const Port& p : f.ports)
    if (f.nodes[p.node].is_switch && f.nodes[f.ports[p.peer].node].is_switch)
      link_pauses += p.counters.pause_received;
  EXPECT_GT(link_pauses, 0u) << "no PFC on the A-B link";
  EXPECT_EQ(r.summary["drops"]["total"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace test_model_physics
}  // namespace rocesim

namespace rocesim {
namespace test_model_physics {
namespace {

// Coalesced ACKs (ack_every 8) with a sender whose window holds only 4
// packets: without the responder's ACK deadline the sender would wait for the
// retransmission timeout after every window; with it each window is
// acknowledged ack_delay after its first packet.
TEST(Physics, CoalescedAcksDoNotStallAWindowLimitedSender) {
  const SimRun r = RunYaml(R"(
duration: 50ms
topology: {type: star, hosts: 2}
switch: {ecn: {enabled: false}}
host: {ack_every: 8, ack_delay: 2us, cc: dctcp, dctcp: {max_window: 4000B}}
traffic: [{type: flows, flows: [{src: 0, dst: 1, size: 400KB}]}]
)");
  const Flow& fl = r.fabric().flows[0];
  ASSERT_TRUE(fl.Finished());
  EXPECT_EQ(r.fabric().counters.timeouts, 0u);
  // 100 windows of 4 packets, each acknowledged at most ~2 us + an RTT after it began.
  EXPECT_LT(fl.finish - fl.start, 100 * (2 * kMicrosecond + 10 * kMicrosecond));
  EXPECT_GE(r.fabric().counters.acks_sent, 100u);
}

}  // namespace
}  // namespace test_model_physics
}  // namespace rocesim

namespace rocesim {
namespace test_model_physics {
namespace {

// Link errors (the HPCC topology format's per-link error rate): frames are
// lost at random on the wire, counted as link_error drops, the transport
// recovers with NAK / go-back-N (or the timeout), and frames are conserved.
TEST(Physics, LinkErrorsDropFramesAndGoBackNRecovers) {
  const std::string topo = test::TestTempDir() + "lossy_star.txt";
  std::ofstream(topo) << "3 1 2\n2\n0 2 100Gbps 1us 0.001\n1 2 100Gbps 1us 0.001\n";
  const SimRun r = RunYaml("duration: 20ms\ntopology: {type: file, file: " + topo +
                           "}\nswitch: {ecn: {enabled: false}}\n"
                           "traffic: [{type: flows, flows: [{src: 0, dst: 1, size: 4MB}, {src: 1, "
                           "dst: 0, size: 4MB}]}]\n");
  const Fabric& f = r.fabric();
  EXPECT_GT(f.counters.drops[static_cast<size_t>(DropCause::kLinkError)], 0u);
  EXPECT_EQ(f.counters.TotalDrops(), f.counters.drops[static_cast<size_t>(DropCause::kLinkError)]);
  EXPECT_GT(f.counters.naks_sent + f.counters.timeouts, 0u);
  EXPECT_GT(f.counters.retransmitted_packets, 0u);
  for (const Flow& fl : f.flows) EXPECT_TRUE(fl.Finished());
  uint64_t in_network_payload = 0;
  const uint64_t in_network = f.FramesInNetwork(&in_network_payload);
  EXPECT_EQ(f.counters.injected_frames,
            f.counters.delivered_frames + f.counters.dropped_frames + in_network);
}

// A corrupted PFC frame is lost like any other frame, but it is not host
// traffic: it leaves the frame counts alone (as pause frames lost with a
// failed link do), so conservation still holds; the lost pauses show as
// pause frames sent but never received. (Found by tests/differential_runs.py:
// counting them as drops broke frames_conserved.)
TEST(Physics, PauseFramesLostToLinkErrorsAreNotCountedAsDrops) {
  const SimRun r = RunYaml(R"(
duration: 2ms
topology: {type: star, hosts: 5, error_rate: 0.02}
switch: {buffer: 600KB, ecn: {enabled: false}, pfc: {enabled: true}}
host: {rto: 100us}
traffic: [{type: incast, senders: "1-4", receiver: 0, size: 400KB}]
)");
  ASSERT_FALSE(r.stats.invariant_break.has_value())
      << r.stats.invariant_break->name << ": " << r.stats.invariant_break->detail;
  const Fabric& f = r.fabric();
  uint64_t sent = 0, received = 0;
  for (const Port& p : f.ports) {
    sent += p.counters.pause_sent;
    received += p.counters.pause_received;
  }
  EXPECT_GT(received, 0u);
  EXPECT_GT(sent, received) << "no pause frame was lost: raise error_rate";
  EXPECT_GT(f.counters.drops[static_cast<size_t>(DropCause::kLinkError)], 0u);
  uint64_t in_network_payload = 0;
  EXPECT_EQ(f.counters.injected_frames, f.counters.delivered_frames + f.counters.dropped_frames +
                                            f.FramesInNetwork(&in_network_payload));
}

}  // namespace
}  // namespace test_model_physics
}  // namespace rocesim

namespace rocesim {
namespace test_model_physics {
namespace {

// buf_max (seed 001 §2.1): with PFC off, an egress queue never holds more
// than buf_max; the excess is dropped as buffer_full and the flows recover.
TEST(Physics, BufMaxCapsTheEgressQueue) {
  const std::string yaml = R"(
duration: 50ms
topology: {type: star, hosts: 5}
switch: {pfc: {enabled: false}, ecn: {enabled: false, buf_max: 50KB}}
traffic: [{type: incast, senders: "1-4", receiver: 0, size: 500KB}]
)";
  const Scenario sc = ParseScenarioText(yaml, "t.yaml", "", {}, std::nullopt);
  Simulation sim(sc);
  int64_t worst = 0;
  const PortId to_host0 = sim.fabric().nodes[5].first_port;  // the switch's port to host 0
  for (Time t = 0; sim.Advance(t) && t <= sc.duration; t += 1 * kMicrosecond)
    worst = std::max(worst, sim.fabric().ports[to_host0].queue[3].bytes);
  EXPECT_LE(worst, 50'000);
  EXPECT_GT(worst, 40'000);
  EXPECT_GT(sim.fabric().counters.drops[static_cast<size_t>(DropCause::kBufferFull)], 0u);
  for (const Flow& fl : sim.fabric().flows) EXPECT_TRUE(fl.Finished());
}

// A generated topology's error_rate applies to every link.
TEST(Physics, GeneratedTopologyErrorRate) {
  const SimRun r = RunYaml(R"(
duration: 20ms
topology: {type: star, hosts: 2, error_rate: 0.001}
traffic: [{type: flows, flows: [{src: 0, dst: 1, size: 4MB}]}]
)");
  EXPECT_GT(r.fabric().counters.drops[static_cast<size_t>(DropCause::kLinkError)], 0u);
  EXPECT_TRUE(r.fabric().flows[0].Finished());
}

}  // namespace
}  // namespace test_model_physics
}  // namespace rocesim

namespace rocesim {
namespace test_model_physics {
namespace {

// A retransmission timeout that fires while the first copies and their ACKs
// are still on the wire (here a 5 us RTO against a 16-to-1 incast's queueing
// delay) rewinds go-back-N's snd_nxt to snd_una; the ACKs that then arrive
// must carry snd_nxt forward with snd_una, or a QP whose rate was cut resends
// data already delivered, slower than the ACKs came (a TIMELY QP at its
// floor rate once took over 60 ms for a 6.5 MB flow this way).
TEST(Transport, AckAfterSpuriousTimeoutNeverLeavesSndNxtBehind) {
  const Scenario sc = ParseScenarioText(R"(duration: 20ms
topology: {type: star, hosts: 17, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 32MB}
host: {cc: timely, rto: 5us, timely: {preset: per_packet}}
traffic: [{type: incast, senders: "1-16", receiver: 0, size: 1MB}]
)",
                                        "rto.yaml", "", {}, std::nullopt);
  Simulation sim(sc);
  const Fabric& f = sim.fabric();
  for (Time t = 0; t < 2 * kMillisecond; t += 100 * kNanosecond) {
    sim.Advance(t);
    for (const Flow& fl : f.flows)
      ASSERT_GE(fl.snd_nxt, fl.snd_una) << "flow " << fl.id << " at " << t << " ps";
  }
  sim.Advance(sc.duration);
  EXPECT_GT(f.counters.timeouts, 0u) << "the RTO must fire for this test to mean much";
  EXPECT_EQ(f.flows_finished, f.flows.Count());
}

}  // namespace
}  // namespace test_model_physics
}  // namespace rocesim
