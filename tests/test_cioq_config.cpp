// The CIOQ switch architecture (seed 002 §4.1) as a scenario setting and its
// round-robin crossbar arbiter:
//  - switch.architecture defaults to shared_buffer; cioq's queue sizes default
//    to the paper's 100 KB; unknown values and settings of the other
//    architecture are errors naming file:line and field;
//  - queues too small for a frame, or for the PFC headroom, fail the build
//    with a message naming the setting;
//  - NextRequester (net/rr_arbiter.h) finds the next requesting input after
//    the pointer, wrapping, across 64-bit words.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "net/rr_arbiter.h"
#include "scenario/scenario_reader.h"
#include "sim/simulation.h"

namespace rocesim {
namespace test_cioq_config {
namespace {

Scenario ParseCioqScenario(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return ParseScenarioText(yaml, "x.yaml", "", sets, std::nullopt);
}

std::string ErrorOf(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    ParseCioqScenario(yaml, sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string BuildErrorOf(const std::string& yaml) {
  try {
    Simulation sim(ParseCioqScenario(yaml));
  } catch (const BuildError& e) {
    return e.what();
  }
  return "(no error)";
}

constexpr char kStar[] = "topology: {type: star, hosts: 3}\n";

TEST(CioqConfig, DefaultsToTheSharedBufferAndThePapersQueueSizes) {
  const Scenario d = ParseCioqScenario(kStar);
  EXPECT_EQ(d.sw.architecture, SwitchArchitecture::kSharedBuffer);
  const Scenario c = ParseCioqScenario(std::string(kStar) + "switch: {architecture: cioq}\n");
  EXPECT_EQ(c.sw.architecture, SwitchArchitecture::kCioq);
  // Seed 002 §4.1: "Each queue in the switch is 100 KB in size".
  EXPECT_EQ(c.sw.cioq.input_queue_bytes, 100'000);
  EXPECT_EQ(c.sw.cioq.output_queue_bytes, 100'000);
  const Scenario s =
      ParseCioqScenario(std::string(kStar) +
                        "switch:\n  architecture: cioq\n"
                        "  cioq: {input_queue_bytes: 256KiB, output_queue_bytes: 50KB}\n");
  EXPECT_EQ(s.sw.cioq.input_queue_bytes, 256 * 1024);
  EXPECT_EQ(s.sw.cioq.output_queue_bytes, 50'000);
  const Scenario o =
      ParseCioqScenario(kStar, {"switch.architecture=cioq", "switch.cioq.input_queue_bytes=1MB"});
  EXPECT_EQ(o.sw.architecture, SwitchArchitecture::kCioq);
  EXPECT_EQ(o.sw.cioq.input_queue_bytes, 1'000'000);
  // An empty block under the shared buffer says nothing and is accepted.
  EXPECT_EQ(ParseCioqScenario(std::string(kStar) + "switch: {cioq: null}\n").sw.architecture,
            SwitchArchitecture::kSharedBuffer);
}

TEST(CioqConfig, RejectsUnknownValuesAndTheOtherArchitecturesSettings) {
  EXPECT_EQ(
      ErrorOf(std::string(kStar) + "switch: {architecture: voq}\n"),
      R"(x.yaml:2:24: switch.architecture: expected one of shared_buffer, cioq, got "voq"; did you mean 'cioq'?)");
  EXPECT_EQ(ErrorOf(std::string(kStar) + "switch: {architecture: cioq, alpha: 1/8}\n"),
            "x.yaml:2:37: switch.alpha: applies to architecture shared_buffer only; a cioq switch "
            "bounds each queue with switch.cioq.input_queue_bytes and "
            "switch.cioq.output_queue_bytes");
  EXPECT_NE(ErrorOf(std::string(kStar) + "switch: {architecture: cioq, buffer: 12MB}\n")
                .find("x.yaml:2:38: switch.buffer: applies to architecture shared_buffer only"),
            std::string::npos);
  EXPECT_NE(ErrorOf(std::string(kStar) + "switch: {architecture: cioq, reserved: 1KB}\n")
                .find("switch.reserved: applies to architecture shared_buffer only"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(std::string(kStar) + "switch: {cioq: {input_queue_bytes: 1MB}}\n"),
            "x.yaml:2:16: switch.cioq: applies to architecture cioq only (set "
            "switch.architecture: cioq)");
  EXPECT_EQ(ErrorOf(std::string(kStar) + "switch: {architecture: cioq, ecn: {buf_max: 50KB}}\n"),
            "x.yaml:2:45: switch.ecn.buf_max: applies to architecture shared_buffer only; a cioq "
            "output queue is capped by switch.cioq.output_queue_bytes");
  EXPECT_EQ(
      ErrorOf(std::string(kStar) + "switch: {architecture: cioq, cioq: {input_queue: 1MB}}\n"),
      "x.yaml:2:37: switch.cioq: unknown key 'input_queue'; did you mean 'input_queue_bytes'?");
  EXPECT_EQ(
      ErrorOf(std::string(kStar) + "switch: {architecture: cioq, cioq: {output_queue_bytes: 0}}\n"),
      R"(x.yaml:2:57: switch.cioq.output_queue_bytes: expected a size of at least 1 bytes, got "0")");
  // From --set: the override is named.
  EXPECT_EQ(ErrorOf(kStar, {"switch.architecture=cioq", "switch.alpha=1/8"}),
            "x.yaml (from --set switch.alpha=1/8): switch.alpha: applies to architecture "
            "shared_buffer only; a cioq switch bounds each queue with "
            "switch.cioq.input_queue_bytes and switch.cioq.output_queue_bytes");
}

// A 100G star with 1 us links: auto headroom 2 * 1us * 100G / 8 + 3 * 1082 =
// 28246 B per port; full frames are 1062 B.
TEST(CioqConfig, QueuesTooSmallFailTheBuild) {
  const std::string base = std::string(kStar) + "switch:\n  architecture: cioq\n";
  EXPECT_EQ(BuildErrorOf(base + "  cioq: {output_queue_bytes: 1000}\n"),
            "x.yaml:4:10: switch.cioq.output_queue_bytes: 1000 bytes cannot hold one full "
            "frame (1062 bytes: host.mtu + host.header_bytes)");
  EXPECT_EQ(BuildErrorOf(base + "  cioq: {input_queue_bytes: 29000}\n"),
            "x.yaml:4:10: switch.cioq.input_queue_bytes: 29000 bytes leave less than one frame "
            "(1062 bytes) "
            "below the PFC headroom of 28246 bytes of port 0 of switch node 3 (100000000000 b/s, "
            "1000000 ps delay); a lossless input queue needs at least 29308 bytes");
  EXPECT_EQ(BuildErrorOf(base + "  cioq: {input_queue_bytes: 29308}\n"), "(no error)");
  // Without lossless priorities no headroom is needed, only room for a frame.
  EXPECT_EQ(BuildErrorOf(base + "  cioq: {input_queue_bytes: 29000}\n  pfc: {enabled: false}\n"),
            "(no error)");
  EXPECT_NE(BuildErrorOf(base + "  cioq: {input_queue_bytes: 1000}\n  pfc: {enabled: false}\n")
                .find("switch.cioq.input_queue_bytes: 1000 bytes cannot hold one full frame"),
            std::string::npos);
}

// Flooding to a lost MAC entry is a shared-buffer switch model only.
TEST(CioqConfig, MacEntryLossNeedsTheSharedBufferSwitch) {
  const std::string faults = "faults:\n  - {type: mac_entry_loss, host: 1, at: 1us}\n";
  EXPECT_EQ(BuildErrorOf(std::string(kStar) + "switch: {architecture: cioq}\n" + faults),
            "x.yaml:4:5: faults.0: mac_entry_loss needs switch.architecture shared_buffer (the "
            "CIOQ switch does not model MAC tables or flooding)");
  EXPECT_EQ(BuildErrorOf(std::string(kStar) + faults), "(no error)");
}

TEST(CioqConfig, BuildsCioqSwitchesOnly) {
  Simulation sim(
      ParseCioqScenario("topology: {type: fat_tree, k: 4}\nswitch: {architecture: cioq}\n"));
  const Fabric& f = sim.fabric();
  EXPECT_TRUE(f.switches.empty());
  ASSERT_EQ(f.cioq_switches.size(), 20u);
  for (const Node& n : f.nodes) {
    EXPECT_EQ(n.is_switch, n.kind == NodeKind::kCioq);
    if (n.is_switch) {
      EXPECT_EQ(f.cioq_switches[n.index].num_ports(), 4);
    }
  }
  // The XOFF level is the input queue minus the port's headroom.
  EXPECT_EQ(f.cioq_switches[0].XoffThreshold(0), 100'000 - 28'246);
  Simulation shared(ParseCioqScenario("topology: {type: fat_tree, k: 4}\n"));
  EXPECT_TRUE(shared.fabric().cioq_switches.empty());
  EXPECT_EQ(shared.fabric().switches.size(), 20u);
}

// ---------------------------------------------------------------------------
// The crossbar's round-robin search.

TEST(CioqArbiter, NextRequesterWrapsFromThePointer) {
  std::vector<uint64_t> req{0};
  EXPECT_EQ(NextRequester(req, 12, 0), -1);
  req[0] = 1u << 3 | 1u << 7;
  EXPECT_EQ(NextRequester(req, 12, 0), 3);
  EXPECT_EQ(NextRequester(req, 12, 3), 3);
  EXPECT_EQ(NextRequester(req, 12, 4), 7);
  EXPECT_EQ(NextRequester(req, 12, 8), 3);   // wraps
  EXPECT_EQ(NextRequester(req, 12, 11), 3);  // the last input
  req[0] = 1u << 11;
  EXPECT_EQ(NextRequester(req, 12, 11), 11);
  EXPECT_EQ(NextRequester(req, 12, 0), 11);
}

TEST(CioqArbiter, NextRequesterSpansWords) {
  // 130 inputs: three words.
  std::vector<uint64_t> req(3, 0);
  req[0] = uint64_t{1} << 5;
  req[2] = uint64_t{1} << 1;  // input 129
  EXPECT_EQ(NextRequester(req, 130, 6), 129);
  EXPECT_EQ(NextRequester(req, 130, 129), 129);
  EXPECT_EQ(NextRequester(req, 130, 0), 5);
  req[2] = 0;
  EXPECT_EQ(NextRequester(req, 130, 6), 5);  // wraps across two empty words
  req[1] = uint64_t{1} << 63;                // input 127
  EXPECT_EQ(NextRequester(req, 130, 64), 127);
  EXPECT_EQ(NextRequester(req, 130, 128), 5);
}

// Served in turn: granting each found input and moving the pointer past it
// visits every requester once per round, in input order.
TEST(CioqArbiter, RoundRobinVisitsEveryRequesterOncePerRound) {
  std::vector<uint64_t> req{0b1011'0010};
  std::vector<int> order;
  int next = 0;
  for (int i = 0; i < 8; ++i) {
    const int in = NextRequester(req, 8, next);
    order.push_back(in);
    next = (in + 1) % 8;
  }
  EXPECT_EQ(order, (std::vector<int>{1, 4, 5, 7, 1, 4, 5, 7}));
}

}  // namespace
}  // namespace test_cioq_config
}  // namespace rocesim
