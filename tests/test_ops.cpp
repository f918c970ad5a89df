// Faults and defences (src/ops/, seed 003 §4.3 and §6.2):
//  - the `faults` list and the watchdog blocks are validated with file:line:col
//    errors;
//  - nic_pause_storm: the NIC drops what arrives (receiver_down) and sends
//    XOFF at full quanta, renewed before expiry: more than 2000 pause frames
//    per second (seed 003 §6.2 incident 1); `until` ends it with an XON;
//  - the storm propagates through the fabric and stalls a flow that never
//    touches the storming server (examples/pfc-storm.yaml);
//  - switch.watchdog (action drop or forward) and host.watchdog recover it
//    after `detect`, each trigger and restore logged and counted;
//  - slow_receiver (seed 003 §4.4, examples/slow-receiver.yaml): the NIC's
//    receive pipeline at 25G paces its flow to 25G exactly, with no drop: the
//    NIC pauses its ToR, which pauses the sender, slowing its other flow; a
//    stall pattern does the same; a full receive buffer drops;
//  - link_down: frames on and queued for the link are lost (link_down drops),
//    routes converge after `convergence` and the flow completes by go-back-N;
//    without convergence it is black-holed; `until` brings the link back;
//  - packet_loss every 256th data frame (seed 003 §4.2): go-back-N completes
//    a 1 MB message after 4 NAKs; go-back-0 never does (transport livelock:
//    the link stays busy, tens of MB delivered, goodput zero);
//  - deadlock detector (seed 003 §4.1): five switches in a ring, each flow two
//    hops clockwise, deadlock (delivery stops for good); the detector reports
//    the 5-queue cycle once it has lasted `threshold`; `break` drops to
//    release it; without a cycle nothing is reported;
//  - counters.csv (monitors.interval): per-interval pause frames, paused
//    time, drops by cause, per port and host, adding up to the run's totals;
//  - frames are conserved and the same seed gives identical results.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ops/watchdog.h"
#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_ops {
namespace {

using nlohmann::json;

std::string Example(const std::string& name) {
  return std::string(ROCESIM_SOURCE_DIR) + "/examples/" + name;
}

std::string ErrorOf(const std::string& yaml) {
  try {
    ParseScenarioText(yaml, "f.yaml", "", {}, std::nullopt);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "parsed: " << yaml;
  return "";
}

constexpr const char* kStar = R"(
topology: {type: star, hosts: 4}
)";

TEST(OpsReader, ReadsFaultsAndWatchdogs) {
  const Scenario s = ParseScenarioText(std::string(kStar) + R"(
switch:
  watchdog: {enabled: true, detect: 50us, restore: 2ms, poll: 10us, action: forward}
host:
  watchdog: {enabled: true, detect: 100us}
faults:
  - {type: nic_pause_storm, host: 2, priority: 3, at: 10us, until: 1ms}
  - {type: nic_pause_storm, host: 1, at: 5us}
)",
                                       "f.yaml", "", {}, std::nullopt);
  EXPECT_TRUE(s.sw.watchdog.enabled);
  EXPECT_EQ(s.sw.watchdog.detect, 50 * kMicrosecond);
  EXPECT_EQ(s.sw.watchdog.restore, 2 * kMillisecond);
  EXPECT_EQ(s.sw.watchdog.action, WatchdogConfig::Action::kForward);
  EXPECT_TRUE(s.host.watchdog.enabled);
  EXPECT_EQ(s.host.watchdog.detect, 100 * kMicrosecond);
  EXPECT_EQ(s.host.watchdog.restore, 200 * kMillisecond);  // default
  EXPECT_EQ(s.sw.watchdog.poll, 10 * kMicrosecond);
  EXPECT_EQ(s.host.watchdog.poll, 100 * kMicrosecond);  // unset: detect, when below 200 ms
  ASSERT_EQ(s.faults.size(), 2u);
  EXPECT_EQ(s.faults[0].kind, FaultKind::kNicPauseStorm);
  EXPECT_EQ(s.faults[0].host, 2);
  EXPECT_EQ(s.faults[0].at, 10 * kMicrosecond);
  EXPECT_EQ(s.faults[0].until, kMillisecond);
  EXPECT_EQ(s.faults[1].priority, 3);
  EXPECT_EQ(s.faults[1].until, kTimeMax);
  // Defaults: watchdogs off, 200 ms.
  const Scenario d = ParseScenarioText(kStar, "f.yaml", "", {}, std::nullopt);
  EXPECT_FALSE(d.sw.watchdog.enabled);
  EXPECT_EQ(d.sw.watchdog.detect, 200 * kMillisecond);
  EXPECT_EQ(d.sw.watchdog.action, WatchdogConfig::Action::kDrop);
  EXPECT_EQ(d.sw.watchdog.poll, 200 * kMillisecond);  // SONiC pfcwd's default
  EXPECT_TRUE(d.faults.empty());
}

TEST(OpsReader, RejectsBadFaults) {
  const std::string base(kStar);
  EXPECT_EQ(ErrorOf(base + "faults:\n  - {type: nic_pause_strom, host: 0, at: 1us}\n"),
            "f.yaml:4:12: faults.0.type: expected one of nic_pause_storm, slow_receiver, "
            "link_down, packet_loss, mac_entry_loss, got "
            "\"nic_pause_strom\"; did you mean 'nic_pause_storm'?");
  EXPECT_NE(ErrorOf(base + "faults:\n  - {type: nic_pause_storm, host: 4, at: 1us}\n")
                .find("f.yaml:4:35: faults.0.host: expected a host id from 0 to 3"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "faults:\n  - {type: nic_pause_storm, host: 0, at: 5us, until: 5us}\n")
                .find("f.yaml:4:54: faults.0.until: expected a time after `at`"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "faults:\n  - {type: nic_pause_storm, host: 0}\n").find("at"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "switch:\n  watchdog: {action: pause}\n")
                .find("f.yaml:4:22: switch.watchdog.action: expected one of drop, forward"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "switch:\n  watchdog: {poll: 0us}\n").find("switch.watchdog.poll"),
            std::string::npos);
  // `action` is a switch watchdog key only.
  EXPECT_NE(ErrorOf(base + "host:\n  watchdog: {action: drop}\n").find("host.watchdog"),
            std::string::npos);
}

struct StormRun {
  std::unique_ptr<Simulation> sim;
  RunStats stats;
  json summary;
  const Fabric& f() const { return sim->fabric(); }
  bool Finished(uint32_t flow) const { return f().flows[flow].Finished(); }
  Time fabric_flow_finish(uint32_t flow) const { return f().flows[flow].finish; }
};

StormRun RunStorm(const std::vector<std::string>& sets) {
  StormRun r;
  r.sim = std::make_unique<Simulation>(LoadScenario(Example("pfc-storm.yaml"), sets, std::nullopt));
  r.stats = r.sim->Run();
  r.summary = BuildSummary(*r.sim, r.stats);
  return r;
}

using test::ExpectConserved;

// Flows of examples/pfc-storm.yaml: 0 is 4->0 (into the storm), 1-3 the victims.
constexpr uint32_t kStalledVictim = 1;

TEST(NicPauseStorm, PausesFasterThan2000PerSecondAndDropsWhatArrives) {
  const StormRun r = RunStorm({});
  const Fabric& f = r.f();
  const Port& nic = f.ports[f.nics[0].port()];
  const double storm_s = ToSeconds(r.stats.end_time - 100 * kMicrosecond);
  // Full quanta at 100G = 335.5 us; renewed at half: ~5960 frames/s.
  EXPECT_GT(static_cast<double>(nic.counters.pause_sent) / storm_s, 2000.0);
  EXPECT_NEAR(static_cast<double>(nic.counters.pause_sent) / storm_s, 5960.0, 300.0);
  // The ToR's port to host 0 stays paused from the storm on.
  const Port& tor = f.ports[nic.peer];
  EXPECT_TRUE(tor.Paused(3, f.now));
  EXPECT_GT(r.summary["drops"]["receiver_down"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["drops"]["watchdog"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["watchdog"]["triggers"].get<uint64_t>(), 0u);
  ExpectConserved(r.summary);
  ASSERT_EQ(f.ops.events.size(), 1u);
  EXPECT_EQ(f.ops.events[0].event, "storm_start");
  EXPECT_EQ(f.ops.events[0].time, 100 * kMicrosecond);
}

TEST(NicPauseStorm, PropagatesAndStallsAFlowThatNeverTouchesTheServer) {
  const StormRun storm = RunStorm({});
  EXPECT_FALSE(storm.Finished(0));
  EXPECT_FALSE(storm.Finished(kStalledVictim)) << "5 -> 1 shares a paused spine with 4 -> 0";
  // Without the fault every flow but the 100 MB one finishes.
  const StormRun clean = RunStorm({"faults=[]"});
  for (uint32_t i = 1; i < 4; ++i) EXPECT_TRUE(clean.Finished(i)) << i;
  EXPECT_EQ(clean.summary["drops"]["total"].get<uint64_t>(), 0u);
}

TEST(NicPauseStorm, UntilEndsTheStormWithAnXon) {
  const StormRun r = RunStorm({"faults.0.until=300us"});
  for (uint32_t i = 1; i < 4; ++i) EXPECT_TRUE(r.Finished(i)) << i;
  ASSERT_EQ(r.f().ops.events.size(), 2u);
  EXPECT_EQ(r.f().ops.events[1].event, "storm_end");
  EXPECT_EQ(r.f().ops.events[1].time, 300 * kMicrosecond);
  EXPECT_FALSE(r.f().ports[r.f().ports[r.f().nics[0].port()].peer].Paused(3, r.f().now));
  ExpectConserved(r.summary);
}

TEST(Watchdog, ToRWatchdogRecoversAfterDetect) {
  for (const char* action : {"drop", "forward"}) {
    const StormRun r =
        RunStorm({"switch.watchdog.enabled=true", std::string("switch.watchdog.action=") + action});
    EXPECT_TRUE(r.Finished(kStalledVictim)) << action;
    // The ToR's port to host 0 (leaf 0 is node 8: hosts are nodes 0-7) stalls
    // when host 0's first pause lands (100 us + 1 us of wire, frames queued
    // behind it within a microsecond), and triggers at leaf 0's first 100 us
    // poll at or after stall + detect (1 ms).
    const auto& ev = r.f().ops.events;
    ASSERT_GE(ev.size(), 2u) << action;
    EXPECT_EQ(ev[1].event, "watchdog_trigger");
    EXPECT_EQ(ev[1].node, 8u);
    EXPECT_EQ(ev[1].port, 0);
    EXPECT_EQ(ev[1].priority, 3);
    const Time poll = 100 * kMicrosecond;
    EXPECT_EQ((ev[1].time - ops::PollPhase(1, 8, poll)) % poll, 0);
    EXPECT_GE(ev[1].time, 1101 * kMicrosecond);
    EXPECT_LT(ev[1].time, 1202 * kMicrosecond);
    EXPECT_GT(r.f().flows[kStalledVictim].finish, ev[1].time);
    EXPECT_EQ(r.summary["watchdog"]["triggers"].get<uint64_t>(), 1u);
    const uint64_t wd_drops = r.summary["drops"]["watchdog"].get<uint64_t>();
    if (std::string(action) == "drop") {
      EXPECT_GT(wd_drops, 0u);
    } else {
      EXPECT_EQ(wd_drops, 0u);  // forwarded into the dead NIC instead
      EXPECT_GT(r.summary["drops"]["receiver_down"].get<uint64_t>(), 1000u);
    }
    ExpectConserved(r.summary);
  }
}

// The stall clock starts when a frame first waits behind the pause, and the
// trigger comes at the switch's first poll at or after stall + detect. Host
// 0's storm starts at 100 us; the only flow into it starts at 2 ms from host
// 5, so leaf 0's (node 8's) queue to host 0 is paused but empty until its
// first frame arrives a few microseconds after 2 ms.
Time FirstTrigger(const StormRun& r) {
  for (const OpsEvent& e : r.f().ops.events)
    if (e.event == "watchdog_trigger" && e.node == 8 && e.port == 0) return e.time;
  return kTimeMax;
}

Time LateStallTrigger(Time poll) {
  return FirstTrigger(RunStorm({"switch.watchdog.enabled=true",
                                "switch.watchdog.poll=" + std::to_string(poll) + "ps",
                                "traffic=[{type: flows, flows: [{src: 5, dst: 0, size: 1MB, "
                                "start: 2ms}]}]"}));
}

TEST(Watchdog, StallClockStartsWhenTheFirstFrameWaitsBehindThePause) {
  const Time detect = kMillisecond;
  // Polling every picosecond finds the stall the moment it is `detect` old.
  const Time stall = LateStallTrigger(1) - detect;
  // A pause with nothing waiting is no stall (the old clock, from the pause
  // at 101 us, would have triggered at 1.1 ms).
  EXPECT_GT(stall, 2 * kMillisecond);
  EXPECT_LT(stall, 2010 * kMicrosecond);
  for (const Time poll : {100 * kMicrosecond, kMillisecond, 3 * kMillisecond}) {
    const Time trigger = LateStallTrigger(poll);
    // The window's edges: never before stall + detect, always before
    // stall + detect + poll, and on the switch's poll grid.
    EXPECT_GE(trigger, stall + detect) << poll;
    EXPECT_LT(trigger, stall + detect + poll) << poll;
    EXPECT_EQ(trigger, ops::NextPoll(stall + detect, poll, ops::PollPhase(1, 8, poll))) << poll;
  }
}

TEST(Watchdog, PollsFallOnEachNodesGrid) {
  EXPECT_EQ(ops::NextPoll(5, 10, 3), 13);
  EXPECT_EQ(ops::NextPoll(13, 10, 3), 13);  // a poll exactly at stall + detect
  EXPECT_EQ(ops::NextPoll(14, 10, 3), 23);
  EXPECT_EQ(ops::NextPoll(2, 10, 3), 3);
  // Phases differ between nodes, stay inside [0, poll) and follow the seed.
  const Time poll = 200 * kMillisecond;
  EXPECT_NE(ops::PollPhase(1, 8, poll), ops::PollPhase(1, 9, poll));
  EXPECT_NE(ops::PollPhase(1, 8, poll), ops::PollPhase(2, 8, poll));
  for (uint32_t node = 0; node < 100; ++node) EXPECT_LT(ops::PollPhase(7, node, poll), poll);
}

TEST(Watchdog, RestoresAndRetriggersWhileTheStormLasts) {
  const StormRun r = RunStorm({"switch.watchdog.enabled=true", "switch.watchdog.restore=500us"});
  // Trigger at ~1.1 ms, restore at ~1.6 ms, trigger again ~1 ms later, ...
  std::vector<std::string_view> names;
  for (const OpsEvent& e : r.f().ops.events) names.push_back(e.event);
  ASSERT_GE(names.size(), 5u);
  EXPECT_EQ(names[1], "watchdog_trigger");
  EXPECT_EQ(names[2], "watchdog_restore");
  EXPECT_EQ(r.f().ops.events[2].time - r.f().ops.events[1].time, 500 * kMicrosecond);
  EXPECT_EQ(names[3], "watchdog_trigger");
  EXPECT_EQ(r.summary["watchdog"]["restores"].get<uint64_t>(),
            static_cast<uint64_t>(std::count(names.begin(), names.end(), "watchdog_restore")));
}

TEST(Watchdog, NicWatchdogStopsThePauses) {
  const StormRun r = RunStorm({"host.watchdog.enabled=true"});
  EXPECT_TRUE(r.Finished(kStalledVictim));
  const auto& ev = r.f().ops.events;
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1].event, "watchdog_trigger");
  EXPECT_EQ(ev[1].node, 0u);  // host 0's NIC
  // Its pipeline stalled at 100 us: its first 100 us poll at or after 1.1 ms.
  const Time stall_plus_detect = 1100 * kMicrosecond;
  EXPECT_EQ(ev[1].time, ops::NextPoll(stall_plus_detect, 100 * kMicrosecond,
                                      ops::PollPhase(1, 0, 100 * kMicrosecond)));
  const StormRun slow = RunStorm({"host.watchdog.enabled=true", "host.watchdog.poll=1ms"});
  ASSERT_GE(slow.f().ops.events.size(), 2u);
  EXPECT_EQ(slow.f().ops.events[1].time,
            ops::NextPoll(stall_plus_detect, kMillisecond, ops::PollPhase(1, 0, kMillisecond)));
  EXPECT_LT(slow.f().ops.events[1].time, stall_plus_detect + kMillisecond);
  // No pause frame from the NIC after the trigger: one at 100 us, then one
  // every half pause time (65535 quanta at 100G: 335.5 us) until then.
  const Port& nic = r.f().ports[r.f().nics[0].port()];
  const Time renew = SerializationTime(65535 * 64, 100'000'000'000) / 2;
  EXPECT_EQ(nic.counters.pause_sent,
            static_cast<uint64_t>(1 + (ev[1].time - 100 * kMicrosecond) / renew));
  ExpectConserved(r.summary);
}

TEST(Watchdog, SameSeedSameResults) {
  const StormRun a = RunStorm({"switch.watchdog.enabled=true", "switch.watchdog.restore=500us"});
  const StormRun b = RunStorm({"switch.watchdog.enabled=true", "switch.watchdog.restore=500us"});
  json sa = a.summary, sb = b.summary;
  sa.erase("run");
  sb.erase("run");
  EXPECT_EQ(sa, sb);
  ASSERT_EQ(a.f().ops.events.size(), b.f().ops.events.size());
  for (size_t i = 0; i < a.f().ops.events.size(); ++i)
    EXPECT_EQ(a.f().ops.events[i].time, b.f().ops.events[i].time);
}

// ---------------------------------------------------------------------------
// slow_receiver

StormRun RunSlow(const std::vector<std::string>& sets) {
  StormRun r;
  r.sim =
      std::make_unique<Simulation>(LoadScenario(Example("slow-receiver.yaml"), sets, std::nullopt));
  r.stats = r.sim->Run();
  r.summary = BuildSummary(*r.sim, r.stats);
  return r;
}

TEST(OpsReader, ReadsSlowReceiver) {
  const Scenario s = ParseScenarioText(std::string(kStar) + R"(
host:
  rx_buffer: {size: 128KB, xoff: 100KB, xon: 50KB}
faults:
  - {type: slow_receiver, host: 1, rate: 40Gbps, at: 0us, until: 1ms}
  - {type: slow_receiver, host: 2, period: 100us, stall: 30us, at: 5us}
)",
                                       "f.yaml", "", {}, std::nullopt);
  EXPECT_EQ(s.host.rx_buffer.size_bytes, 128000);
  EXPECT_EQ(s.host.rx_buffer.xoff_bytes, 100000);
  EXPECT_EQ(s.host.rx_buffer.xon_bytes, 50000);
  ASSERT_EQ(s.faults.size(), 2u);
  EXPECT_EQ(s.faults[0].kind, FaultKind::kSlowReceiver);
  EXPECT_EQ(s.faults[0].rate_bps, 40'000'000'000);
  EXPECT_EQ(s.faults[1].period, 100 * kMicrosecond);
  EXPECT_EQ(s.faults[1].stall, 30 * kMicrosecond);
  const std::string base(kStar);
  EXPECT_NE(ErrorOf(base + "faults:\n  - {type: slow_receiver, host: 0, at: 0us}\n")
                .find("expected `rate`"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "faults:\n  - {type: slow_receiver, host: 0, period: 10us, stall: "
                           "10us, at: 0us}\n")
                .find("faults.0.stall: expected a stall shorter than the period"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "faults:\n  - {type: slow_receiver, host: 0, rate: 1Gbps, priority: "
                           "3, at: 0us}\n")
                .find("faults.0.priority applies to type nic_pause_storm, not slow_receiver"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "host:\n  rx_buffer: {size: 100KB, xoff: 200KB}\n")
                .find("host.rx_buffer.xoff: expected xoff <= size"),
            std::string::npos);
}

TEST(SlowReceiver, PacesItsFlowAndPausesTheSenderWithoutLoss) {
  const StormRun r = RunSlow({});
  const Fabric& f = r.f();
  ASSERT_TRUE(r.Finished(0) && r.Finished(1));
  // 10000 frames of 1062 B through a 25 Gb/s pipeline: 3.398 ms.
  const double fct0 = ToSeconds(f.flows[0].finish - f.flows[0].start);
  EXPECT_NEAR(fct0, 10000 * 1062 * 8 / 25e9, 0.02 * fct0);
  EXPECT_EQ(r.summary["drops"]["total"].get<uint64_t>(), 0u);
  EXPECT_GT(f.ports[f.nics[0].port()].counters.pause_sent, 0u);      // the NIC paused its ToR
  EXPECT_GT(f.ports[f.nics[1].port()].counters.pause_received, 0u);  // the ToR paused the sender
  // The sender's other flow (to a fast host) is held back with it.
  const StormRun clean = RunSlow({"faults=[]"});
  EXPECT_GT(f.flows[1].finish, clean.fabric_flow_finish(1) * 3 / 2);
  ExpectConserved(r.summary);
}

TEST(SlowReceiver, StallPatternHalvesThePipeline) {
  const StormRun r =
      RunSlow({"faults.0={type: slow_receiver, host: 0, period: 100us, stall: "
               "50us, at: 0us}"});
  const Fabric& f = r.f();
  ASSERT_TRUE(r.Finished(0));
  const double fct0 = ToSeconds(f.flows[0].finish - f.flows[0].start);
  EXPECT_NEAR(fct0, 10000 * 1062 * 8 / 50e9, 0.05 * fct0);
  EXPECT_EQ(r.summary["drops"]["total"].get<uint64_t>(), 0u);
  ExpectConserved(r.summary);
}

TEST(SlowReceiver, OverflowsWhenTheBufferHasNoHeadroom) {
  // XOFF at the very top of the buffer: what is in flight when it goes out is lost.
  const StormRun r = RunSlow({"host.rx_buffer={size: 64KB, xoff: 64KB, xon: 32KB}"});
  EXPECT_GT(r.summary["drops"]["nic_buffer_full"].get<uint64_t>(), 0u);
  ExpectConserved(r.summary);
}

TEST(SlowReceiver, EndsAndDrainsTheBuffer) {
  const StormRun r = RunSlow({"faults.0.until=1ms"});
  ASSERT_TRUE(r.Finished(0) && r.Finished(1));
  const auto& ev = r.f().ops.events;
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1].event, "slow_receiver_end");
  EXPECT_TRUE(r.f().nics[0].fault.rx_queue.Empty());
  EXPECT_FALSE(r.f().ports[r.f().ports[r.f().nics[0].port()].peer].Paused(3, r.f().now));
  ExpectConserved(r.summary);
}

// ---------------------------------------------------------------------------
// link_down

// Leaf-spine 2x2, 2 hosts per leaf: hosts 0-3, leaves nodes 4-5, spines 6-7.
constexpr const char* kLeafSpine = R"(
name: ld
duration: 5ms
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
switch: {buffer: 12MB}
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 2, size: 10MB, start: 0us}
faults:
  - {type: link_down, a: 4, b: 6, at: 100us, convergence: 10us}
)";

// The spine node the flow 0 -> 2 is hashed to at leaf 0.
uint32_t SpineOfFlow(const Fabric& f) {
  const Flow& fl = f.flows[0];
  const uint16_t local = f.routing.SelectLocal(0, fl.src, fl.dst, fl.sport);
  return f.ports[f.ports[f.nodes[4].first_port + local].peer].node;
}

StormRun RunLinkDown(const std::vector<std::string>& sets) {
  StormRun r;
  r.sim = std::make_unique<Simulation>(
      ParseScenarioText(kLeafSpine, "ld.yaml", "", sets, std::nullopt));
  r.stats = r.sim->Run();
  r.summary = BuildSummary(*r.sim, r.stats);
  return r;
}

TEST(OpsReader, ReadsLinkDown) {
  const Scenario s = ParseScenarioText(kLeafSpine, "ld.yaml", "", {}, std::nullopt);
  ASSERT_EQ(s.faults.size(), 1u);
  EXPECT_EQ(s.faults[0].kind, FaultKind::kLinkDown);
  EXPECT_EQ(s.faults[0].node_a, 4);
  EXPECT_EQ(s.faults[0].node_b, 6);
  EXPECT_EQ(s.faults[0].convergence, 10 * kMicrosecond);
  const std::string base(kStar);
  EXPECT_NE(ErrorOf(base + "faults:\n  - {type: link_down, a: 1, b: 1, at: 0us}\n")
                .find("faults.0.b: expected a node other than `a`"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(base + "faults:\n  - {type: link_down, host: 1, at: 0us}\n")
          .find("faults.0.host applies to type nic_pause_storm, slow_receiver or mac_entry_loss"),
      std::string::npos);
  EXPECT_NE(ErrorOf(base + "faults:\n  - {type: link_down, a: 1, at: 0us}\n").find("b"),
            std::string::npos);
  // Node ids are checked when the fabric is built.
  EXPECT_THROW(
      Simulation(ParseScenarioText(kLeafSpine, "ld.yaml", "", {"faults.0.b=5"}, std::nullopt)),
      BuildError);  // leaves 4 and 5 are not linked
  EXPECT_THROW(
      Simulation(ParseScenarioText(kLeafSpine, "ld.yaml", "", {"faults.0.b=99"}, std::nullopt)),
      BuildError);
}

TEST(LinkDown, FlowOnTheLinkLosesFramesAndRecoversAfterConvergence) {
  const std::string spine = std::to_string(SpineOfFlow(RunLinkDown({"faults=[]"}).f()));
  const StormRun r = RunLinkDown({"faults.0.b=" + spine});
  ASSERT_TRUE(r.Finished(0));
  EXPECT_GT(r.summary["drops"]["link_down"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["drops"]["total"], r.summary["drops"]["link_down"]);
  const auto& ev = r.f().ops.events;
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].event, "link_down");
  EXPECT_EQ(ev[2].event, "routes_recomputed");
  EXPECT_EQ(ev[2].time, 110 * kMicrosecond);
  // The recomputed routes avoid the dead link.
  EXPECT_NE(SpineOfFlow(r.f()), static_cast<uint32_t>(std::stoi(spine)));
  ExpectConserved(r.summary);
}

TEST(LinkDown, OtherLinkCostsNothing) {
  const StormRun clean = RunLinkDown({"faults=[]"});
  const uint32_t used = SpineOfFlow(clean.f());
  const StormRun r = RunLinkDown({"faults.0.b=" + std::to_string(used == 6 ? 7 : 6)});
  ASSERT_TRUE(r.Finished(0));
  EXPECT_EQ(r.summary["drops"]["total"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.f().flows[0].finish, clean.f().flows[0].finish);
}

TEST(LinkDown, WithoutConvergenceTheFlowIsBlackHoled) {
  const std::string spine = std::to_string(SpineOfFlow(RunLinkDown({"faults=[]"}).f()));
  const StormRun r = RunLinkDown({"faults.0.b=" + spine, "faults.0.convergence=1s"});
  EXPECT_FALSE(r.Finished(0));
  EXPECT_GT(r.summary["timeouts"].get<uint64_t>(), 0u);
  ExpectConserved(r.summary);
  // ... until the link comes back.
  const StormRun up =
      RunLinkDown({"faults.0.b=" + spine, "faults.0.convergence=1s", "faults.0.until=1ms"});
  EXPECT_TRUE(up.Finished(0));
  EXPECT_EQ(up.f().ops.events[2].event, "link_up");
  ExpectConserved(up.summary);
}

// ---------------------------------------------------------------------------
// packet_loss and go-back-0

// Star: hosts 0-1 are nodes 0-1, the switch node 2 (its port 1 faces host 1).
constexpr const char* kLossy = R"(
name: pl
duration: 5ms
topology: {type: star, hosts: 2}
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 1, size: 1MB, start: 0us}
faults:
  - {type: packet_loss, a: 2, b: 1, every_nth: 256, at: 0us}
)";

StormRun RunLossy(const std::vector<std::string>& sets) {
  StormRun r;
  r.sim =
      std::make_unique<Simulation>(ParseScenarioText(kLossy, "pl.yaml", "", sets, std::nullopt));
  r.stats = r.sim->Run();
  r.summary = BuildSummary(*r.sim, r.stats);
  return r;
}

TEST(OpsReader, ReadsPacketLossAndLossRecovery) {
  const Scenario s =
      ParseScenarioText(kLossy, "pl.yaml", "", {"host.loss_recovery=go_back_0"}, std::nullopt);
  EXPECT_EQ(s.host.loss_recovery, LossRecovery::kGoBack0);
  ASSERT_EQ(s.faults.size(), 1u);
  EXPECT_EQ(s.faults[0].kind, FaultKind::kPacketLoss);
  EXPECT_EQ(s.faults[0].every_nth, 256u);
  EXPECT_EQ(ParseScenarioText(kStar, "f.yaml", "", {}, std::nullopt).host.loss_recovery,
            LossRecovery::kGoBackN);
  const std::string base(kStar);
  EXPECT_NE(ErrorOf(base + "faults:\n  - {type: packet_loss, a: 2, b: 1, at: 0us}\n")
                .find("expected exactly one of `probability` and `every_nth`"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "faults:\n  - {type: packet_loss, a: 2, b: 1, every_nth: 0, at: 0us}\n")
                .find("faults.0.every_nth"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "faults:\n  - {type: packet_loss, a: 2, b: 1, probability: 1%, "
                           "convergence: 1us, at: 0us}\n")
                .find("faults.0.convergence applies to type link_down, not packet_loss"),
            std::string::npos);
  EXPECT_NE(ErrorOf(base + "host: {loss_recovery: go_back_1}\n").find("host.loss_recovery"),
            std::string::npos);
}

TEST(PacketLoss, EveryNthGoBackNCompletes) {
  const StormRun r = RunLossy({});
  ASSERT_TRUE(r.Finished(0));
  // 1000 data packets (+ the resent ones): every 256th is lost.
  EXPECT_EQ(r.summary["drops"]["injected_loss"].get<uint64_t>(), 4u);
  EXPECT_EQ(r.summary["naks_sent"].get<uint64_t>(), 4u);
  ExpectConserved(r.summary);
}

TEST(PacketLoss, GoBack0Livelocks) {
  const StormRun r = RunLossy({"host.loss_recovery=go_back_0"});
  EXPECT_FALSE(r.Finished(0));
  // The link stays busy: tens of times the message delivered, none of it useful.
  EXPECT_GT(r.summary["conservation"]["delivered_payload_bytes"].get<uint64_t>(), 20'000'000u);
  EXPECT_GT(r.summary["retransmitted_packets"].get<uint64_t>(), 20'000u);
  ExpectConserved(r.summary);
  // Without the loss, go-back-0 completes as go-back-N does.
  const StormRun clean = RunLossy({"host.loss_recovery=go_back_0", "faults=[]"});
  EXPECT_TRUE(clean.Finished(0));
  // With the loss ending, it completes too.
  const StormRun ends = RunLossy({"host.loss_recovery=go_back_0", "faults.0.until=500us"});
  EXPECT_TRUE(ends.Finished(0));
  ExpectConserved(ends.summary);
}

TEST(PacketLoss, ProbabilityIsSeededAndDeterministic) {
  const std::vector<std::string> sets = {
      "faults.0={type: packet_loss, node: 2, port: 1, "
      "probability: 1%, at: 0us}"};
  const StormRun a = RunLossy(sets);
  const StormRun b = RunLossy(sets);
  EXPECT_TRUE(a.Finished(0));
  EXPECT_GT(a.summary["drops"]["injected_loss"].get<uint64_t>(), 0u);
  EXPECT_EQ(a.summary["drops"], b.summary["drops"]);
  EXPECT_EQ(a.f().flows[0].finish, b.f().flows[0].finish);
}

// ---------------------------------------------------------------------------
// Deadlock detector

// Five switches (nodes 5-9) in a ring, one host each (host i on switch 5 + i);
// each host sends two hops clockwise, so every ring link carries two line-rate
// flows and the ring's buffers wait on each other: a cyclic buffer dependency.
std::string RingScenario() {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "rocesim_test_ops";
  // One file per test: ctest runs tests in parallel processes.
  std::filesystem::create_directories(dir);
  std::ofstream(dir / (std::string("ring5_") +
                       ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt"))
      << "10 5 10\n5 6 7 8 9\n"
         "0 5 100Gbps 1000ns 0\n1 6 100Gbps 1000ns 0\n"
         "2 7 100Gbps 1000ns 0\n3 8 100Gbps 1000ns 0\n"
         "4 9 100Gbps 1000ns 0\n5 6 100Gbps 1000ns 0\n"
         "6 7 100Gbps 1000ns 0\n7 8 100Gbps 1000ns 0\n"
         "8 9 100Gbps 1000ns 0\n9 5 100Gbps 1000ns 0\n";
  return "name: dl\nduration: 5ms\ntopology: {type: file, file: '" +
         (dir / (std::string("ring5_") +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt"))
             .string() +
         R"('}
switch: {buffer: 2MB, ecn: {enabled: false}}
host: {cc: none}
monitors:
  deadlock: {enabled: true, threshold: 500us}
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 2, size: 50MB, start: 0us}
      - {src: 1, dst: 3, size: 50MB, start: 0us}
      - {src: 2, dst: 4, size: 50MB, start: 0us}
      - {src: 3, dst: 0, size: 50MB, start: 0us}
      - {src: 4, dst: 1, size: 50MB, start: 0us}
)";
}

TEST(OpsReader, ReadsDeadlockMonitor) {
  const Scenario s = ParseScenarioText(RingScenario(), "dl.yaml", "",
                                       {"monitors.deadlock.break=true"}, std::nullopt);
  EXPECT_TRUE(s.monitors.deadlock.enabled);
  EXPECT_EQ(s.monitors.deadlock.threshold, 500 * kMicrosecond);
  EXPECT_TRUE(s.monitors.deadlock.break_cycle);
  const Scenario d = ParseScenarioText(kStar, "f.yaml", "", {}, std::nullopt);
  EXPECT_FALSE(d.monitors.deadlock.enabled);
  EXPECT_EQ(d.monitors.deadlock.threshold, kMillisecond);
  EXPECT_NE(ErrorOf(std::string(kStar) + "monitors: {deadlock: {treshold: 1ms}}\n")
                .find("did you mean 'threshold'?"),
            std::string::npos);
}

TEST(Deadlock, RingDeadlocksAndTheDetectorReportsTheCycle) {
  Simulation sim(ParseScenarioText(RingScenario(), "dl.yaml", "", {}, std::nullopt));
  sim.Advance(1 * kMillisecond);
  const uint64_t delivered = sim.fabric().counters.delivered_payload_bytes;
  const RunStats stats = sim.Run();
  // Nothing moves any more: a deadlock, not congestion.
  EXPECT_EQ(sim.fabric().counters.delivered_payload_bytes, delivered);
  const json s = BuildSummary(sim, stats);
  ASSERT_EQ(s["deadlocks"].size(), 1u) << s["deadlocks"].dump();
  const json& d = s["deadlocks"][0];
  EXPECT_EQ(d["cycle"].size(), 5u);
  // Every ring switch (nodes 5-9) appears once, at priority 3.
  std::vector<std::string> nodes;
  for (const json& q : d["cycle"]) {
    const std::string name = q.get<std::string>();
    nodes.push_back(name.substr(0, name.find(':')));
    EXPECT_EQ(name.substr(name.rfind(':')), ":3");
  }
  std::sort(nodes.begin(), nodes.end());
  EXPECT_EQ(nodes, (std::vector<std::string>{"5", "6", "7", "8", "9"}));
  EXPECT_GE(d["time_ps"].get<Time>() - d["since_ps"].get<Time>(), 500 * kMicrosecond);
  EXPECT_LT(d["time_ps"].get<Time>(), 2 * kMillisecond);
  ASSERT_EQ(sim.fabric().ops.events.size(), 1u);
  EXPECT_EQ(sim.fabric().ops.events[0].event, "deadlock");
  EXPECT_EQ(s["drops"]["total"].get<uint64_t>(), 0u);
  ExpectConserved(s);
}

TEST(Deadlock, BreakDropsToReleaseIt) {
  const auto run = [](const std::vector<std::string>& sets) {
    StormRun r;
    r.sim = std::make_unique<Simulation>(
        ParseScenarioText(RingScenario(), "dl.yaml", "", sets, std::nullopt));
    r.stats = r.sim->Run();
    r.summary = BuildSummary(*r.sim, r.stats);
    return r;
  };
  const StormRun stuck = run({});
  const StormRun broken = run({"monitors.deadlock.break=true"});
  EXPECT_GT(broken.summary["drops"]["deadlock_break"].get<uint64_t>(), 0u);
  EXPECT_GT(broken.f().counters.delivered_payload_bytes,
            stuck.f().counters.delivered_payload_bytes);
  ExpectConserved(broken.summary);
  // No cycle without the traffic that closes the ring.
  const StormRun open =
      run({"traffic.0.flows=[{src: 0, dst: 2, size: 5MB, start: 0us}, "
           "{src: 1, dst: 3, size: 5MB, start: 0us}]"});
  EXPECT_TRUE(open.summary["deadlocks"].empty());
  EXPECT_TRUE(open.Finished(0) && open.Finished(1));
}

// ---------------------------------------------------------------------------
// counters.csv

std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> row;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) row.push_back(cell);
    rows.push_back(row);
  }
  return rows;
}

TEST(Monitoring, CountersCsvPerIntervalAddsUpToTheTotals) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / "rocesim_test_ops" / "counters";
  std::filesystem::create_directories(dir);
  Simulation sim(LoadScenario(Example("pfc-storm.yaml"),
                              {"monitors.interval=500us", "switch.watchdog.enabled=true"},
                              std::nullopt));
  sim.EnableMonitors(dir.string());
  const RunStats stats = sim.Run();
  const json s = BuildSummary(sim, stats);
  const auto rows = ReadCsv((dir / "counters.csv").string());
  ASSERT_GT(rows.size(), 10u);
  const std::vector<std::string>& h = rows[0];
  auto col = [&](const std::string& name) {
    const auto it = std::find(h.begin(), h.end(), name);
    EXPECT_NE(it, h.end()) << name;
    return static_cast<size_t>(it - h.begin());
  };
  uint64_t pause_sent = 0, pause_received = 0, receiver_down = 0, watchdog = 0, drops = 0;
  Time tor_paused_second_interval = -1;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto& r = rows[i];
    ASSERT_EQ(r.size(), h.size());
    pause_sent += std::stoull(r[col("pause_sent")]);
    pause_received += std::stoull(r[col("pause_received")]);
    receiver_down += std::stoull(r[col("drops_receiver_down")]);
    watchdog += std::stoull(r[col("drops_watchdog")]);
    drops += std::stoull(r[col("drops")]);
    EXPECT_GE(std::stoll(r[col("paused_time_ps")]), 0);
    // Leaf 0 (node 8) port 0 faces the storming host 0: paused all of [500 us, 1 ms].
    if (r[col("time_ps")] == "1000000000" && r[col("node")] == "8" && r[col("port")] == "0") {
      EXPECT_EQ(r[col("kind")], "switch");
      tor_paused_second_interval = std::stoll(r[col("paused_time_ps")]);
    }
  }
  EXPECT_EQ(tor_paused_second_interval, 500 * kMicrosecond);
  // Everything happens inside the sampling window (the run lasts 5 ms).
  EXPECT_EQ(pause_sent, s["pfc"]["pause_frames_sent"].get<uint64_t>());
  EXPECT_EQ(pause_received, s["pfc"]["pause_frames_received"].get<uint64_t>());
  EXPECT_EQ(receiver_down, s["drops"]["receiver_down"].get<uint64_t>());
  EXPECT_EQ(watchdog, s["drops"]["watchdog"].get<uint64_t>());
  EXPECT_EQ(drops, s["drops"]["total"].get<uint64_t>());
}

}  // namespace
}  // namespace test_ops
}  // namespace rocesim
