// Tests of the scenario reader (scenario/scenario_reader.h) and the HPCC topology
// file reader it uses: every field reaching the Scenario struct, defaults, each
// class of error and its message (location, field path, expected/found), --set
// overrides and yaml_as_run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "tests/sim_test_support.h"
#include "topo/hpcc_topology_file.h"

namespace rocesim {
namespace test_scenario_reader {
namespace {

constexpr char kMinimal[] = "topology: {type: star, hosts: 4}\n";

Scenario ParseReaderScenario(const std::string& yaml, const std::vector<std::string>& sets = {},
                             std::optional<uint64_t> seed = std::nullopt,
                             const std::string& base_dir = "") {
  return ParseScenarioText(yaml, "x.yaml", base_dir, sets, seed);
}

// The ScenarioError message for `yaml`, or "" (and a test failure) if it parses.
std::string ErrorOf(const std::string& yaml, const std::vector<std::string>& sets = {},
                    const std::string& base_dir = "") {
  try {
    ParseReaderScenario(yaml, sets, std::nullopt, base_dir);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return "";
}

std::string WriteTempFile(const std::string& name, const std::string& contents) {
  const std::string path = test::TestTempDir() + name;
  std::ofstream(path) << contents;
  return path;
}

constexpr char kFullScenario[] = R"(name: full
seed: 42
duration: 2.5ms
topology:
  type: leaf_spine
  leaves: 3
  spines: 2
  hosts_per_leaf: 4
  links_per_spine: 2
  host_link: {rate: 25Gbps, delay: 500ns}
  fabric_link: {rate: 100Gbps, delay: 2us}
  core_link: {rate: 400Gbps, delay: 3us}
  ifg_bytes: 24
switch:
  buffer: 16MB
  alpha: 1/8
  reserved: 2KiB
  pfc: {enabled: false, priorities: [3, 4], quanta: 1000, xon_offset: 3KB, headroom: 100KB}
  ecn: {enabled: false, kmin: 10KB, kmax: 100KB, pmax: 20%, wred_drop: 1MB}
  dscp_map: {26: 3, 48: 6}
  strict_priorities: [7, 6]
  dwrr_weights: [1, 2, 3, 4, 5, 6, 7, 8]
  ecmp_seed: 99
host:
  mtu: 4KiB
  header_bytes: 58
  ack_every: 4
  rto: 2ms
  cnp_interval: 4us
  control_priority: 7
  dscp_of_priority: [1, 2, 3, 4, 5, 6, 7, 8]
  ecn_capable: false
  cc: none
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 11, size: 1MB, start: 10us, priority: 4, tag: bulk}
      - {src: 5, dst: 1, size: 1000}
  - type: incast
    senders: [1, 2, 3]
    receiver: 0
    size: 500KB
    start: 1us
    priority: 2
  - type: incast
    senders: 2-11
    receiver: 1
    size: 1KB
monitors:
  interval: 10us
  start: 1us
  end: 2ms
output:
  dir: results/full
  hpcc_compat: true
)";

TEST(ScenarioReader, FullScenarioFillsEveryField) {
  const Scenario s = ParseReaderScenario(kFullScenario);
  EXPECT_EQ(s.name, "full");
  EXPECT_EQ(s.source_file, "x.yaml");
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(s.duration, 2'500 * kMicrosecond);

  const TopologyConfig& t = s.topology;
  EXPECT_EQ(t.kind, TopologyKind::kLeafSpine);
  EXPECT_EQ(t.leaves, 3);
  EXPECT_EQ(t.spines, 2);
  EXPECT_EQ(t.hosts_per_leaf, 4);
  EXPECT_EQ(t.links_per_spine, 2);
  EXPECT_EQ(ExpectedHostCount(t), 12);
  EXPECT_EQ(t.host_rate_bps, 25'000'000'000);
  EXPECT_EQ(t.host_delay, 500 * kNanosecond);
  EXPECT_EQ(t.fabric_rate_bps, 100'000'000'000);
  EXPECT_EQ(t.fabric_delay, 2 * kMicrosecond);
  EXPECT_EQ(t.core_rate_bps, 400'000'000'000);
  EXPECT_EQ(t.core_delay, 3 * kMicrosecond);
  EXPECT_EQ(t.ifg_bytes, 24);

  const SwitchConfig& sw = s.sw;
  EXPECT_EQ(sw.buffer_bytes, 16'000'000);
  EXPECT_DOUBLE_EQ(sw.alpha, 0.125);
  EXPECT_EQ(sw.reserved_bytes, 2048);
  EXPECT_FALSE(sw.pfc.enabled);
  EXPECT_EQ(sw.pfc.priorities, (std::vector<int>{3, 4}));
  EXPECT_EQ(sw.pfc.quanta, 1000);
  EXPECT_EQ(sw.pfc.xon_offset_bytes, 3000);
  EXPECT_EQ(sw.pfc.headroom_bytes, 100'000);
  EXPECT_FALSE(sw.ecn.enabled);
  EXPECT_EQ(sw.ecn.kmin_bytes, 10'000);
  EXPECT_EQ(sw.ecn.kmax_bytes, 100'000);
  EXPECT_DOUBLE_EQ(sw.ecn.pmax, 0.2);
  EXPECT_EQ(sw.ecn.wred_drop_bytes, 1'000'000);
  EXPECT_EQ(sw.dscp_to_priority[26], 3);
  EXPECT_EQ(sw.dscp_to_priority[48], 6);
  EXPECT_EQ(sw.dscp_to_priority[27], 3);  // default dscp / 8 elsewhere
  EXPECT_EQ(sw.dscp_to_priority[8], 1);
  EXPECT_EQ(sw.dscp_to_priority[63], 7);
  EXPECT_EQ(sw.strict_priorities, (std::vector<int>{7, 6}));
  EXPECT_EQ(sw.dwrr_weights, (std::array<int, 8>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(sw.ecmp_seed, 99u);

  const HostConfig& h = s.host;
  EXPECT_EQ(h.mtu_bytes, 4096);
  EXPECT_EQ(h.header_bytes, 58);
  EXPECT_EQ(h.ack_every, 4);
  EXPECT_EQ(h.rto, 2 * kMillisecond);
  EXPECT_EQ(h.cnp_interval, 4 * kMicrosecond);
  EXPECT_EQ(h.control_priority, 7);
  EXPECT_EQ(h.dscp_of_priority, (std::array<uint8_t, 8>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_FALSE(h.ecn_capable);
  EXPECT_EQ(h.cc, CcKind::kNone);

  ASSERT_EQ(s.traffic.size(), 3u);
  const TrafficSpec& flows = s.traffic[0];
  EXPECT_EQ(flows.kind, TrafficKind::kFlows);
  ASSERT_EQ(flows.flows.size(), 2u);
  EXPECT_EQ(flows.flows[0].src, 0);
  EXPECT_EQ(flows.flows[0].dst, 11);
  EXPECT_EQ(flows.flows[0].size_bytes, 1'000'000);
  EXPECT_EQ(flows.flows[0].start, 10 * kMicrosecond);
  EXPECT_EQ(flows.flows[0].priority, 4);
  EXPECT_EQ(flows.flows[0].tag, "bulk");
  EXPECT_EQ(flows.flows[1].src, 5);
  EXPECT_EQ(flows.flows[1].dst, 1);
  EXPECT_EQ(flows.flows[1].size_bytes, 1000);
  EXPECT_EQ(flows.flows[1].start, 0);
  EXPECT_EQ(flows.flows[1].priority, 3);
  EXPECT_EQ(flows.flows[1].tag, "");

  const TrafficSpec& incast = s.traffic[1];
  EXPECT_EQ(incast.kind, TrafficKind::kIncast);
  EXPECT_EQ(incast.senders, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(incast.receiver, 0);
  EXPECT_EQ(incast.size_bytes, 500'000);
  EXPECT_EQ(incast.start, kMicrosecond);
  EXPECT_EQ(incast.priority, 2);
  EXPECT_EQ(s.traffic[2].senders, (std::vector<int>{2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(s.traffic[2].priority, 3);

  EXPECT_EQ(s.monitors.interval, 10 * kMicrosecond);
  EXPECT_EQ(s.monitors.start, kMicrosecond);
  EXPECT_EQ(s.monitors.end, 2 * kMillisecond);
  EXPECT_EQ(s.output.dir, "results/full");
  EXPECT_TRUE(s.output.hpcc_compat);
}

TEST(ScenarioReader, YamlAsRunReproducesTheScenario) {
  const Scenario s = ParseReaderScenario(kFullScenario);
  const Scenario again = ParseReaderScenario(s.yaml_as_run);
  EXPECT_EQ(again.yaml_as_run, s.yaml_as_run);
  EXPECT_EQ(again.sw.pfc.priorities, s.sw.pfc.priorities);
  EXPECT_EQ(again.traffic[2].senders, s.traffic[2].senders);
  EXPECT_EQ(again.monitors.end, s.monitors.end);
}

// A flow (or a collective's buffer) of more than 1 TiB is refused where it is
// written (the fuzzer's INT64_MAX flow overflowed the packet count); a size
// the MTU cuts into more packets than a QP numbers is refused at build.
// What only building the fabric finds wrong is reported where the file wrote
// the field (or its section, when the field was left at its default), as the
// reader's own errors are: file, line, column, field.
TEST(ScenarioReader, BuildErrorsSayWhereTheFileWroteTheField) {
  const Scenario sc = ParseReaderScenario(
      "topology: {type: star, hosts: 4}\n"
      "switch:\n"
      "  pfc: {enabled: true}\n"
      "  buffer: 10KB\n"
      "faults:\n"
      "  - {type: link_down, a: 0, b: 4, at: 1us}\n");
  EXPECT_EQ(sc.Locate("switch.buffer"), "x.yaml:4:3");
  EXPECT_EQ(sc.Locate("switch.alpha"), "x.yaml:2:1");  // a default: its section
  EXPECT_EQ(sc.Locate("faults.0"), "x.yaml:6:5");
  EXPECT_EQ(sc.Locate("monitors.nodes"), "x.yaml");  // nothing written on the way
  try {
    Simulation sim(sc);
    ADD_FAILURE() << "built";
  } catch (const BuildError& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 27), "x.yaml:4:3: switch.buffer: ");
  }
  const Scenario no_link = ParseReaderScenario(
      "topology: {type: star, hosts: 4}\nfaults:\n  - {type: link_down, a: 0, b: 1, at: 1us}\n");
  try {
    Simulation sim(no_link);
    ADD_FAILURE() << "built";
  } catch (const BuildError& e) {
    EXPECT_EQ(std::string(e.what()), "x.yaml:3:5: faults.0: no link joins nodes 0 and 1");
  }
  // A field given by --set is named by its override.
  const Scenario set = ParseReaderScenario(kMinimal, {"switch.buffer=10KB"});
  EXPECT_EQ(set.Locate("switch.buffer"), "x.yaml (from --set switch.buffer=10KB)");
}

TEST(ScenarioReader, FlowSizesAreAtMostOneTebibyte) {
  EXPECT_EQ(
      ErrorOf("topology: {type: star, hosts: 4}\n"
              "traffic: [{type: flows, flows: [{src: 0, dst: 1, size: 9223372036854775807}]}]\n"),
      "x.yaml:2:56: traffic.0.flows.0.size: expected a size of at most 1099511627776 bytes, "
      "got \"9223372036854775807\"");
  EXPECT_EQ(ErrorOf("topology: {type: star, hosts: 4}\n"
                    "traffic: [{type: incast, senders: [0, 1], receiver: 2, size: 2TiB}]\n"),
            "x.yaml:2:62: traffic.0.size: expected a size of at most 1099511627776 bytes, got "
            "\"2TiB\"");
  const Scenario ok = ParseReaderScenario(
      "topology: {type: star, hosts: 4}\n"
      "traffic: [{type: flows, flows: [{src: 0, dst: 1, size: 1TiB}]}]\n");
  EXPECT_EQ(ok.traffic[0].flows[0].size_bytes, int64_t{1} << 40);
  const Scenario tiny_mtu = ParseReaderScenario(
      "topology: {type: star, hosts: 4}\nhost: {mtu: 4}\n"
      "traffic: [{type: flows, flows: [{src: 0, dst: 1, size: 1TiB}]}]\n");
  try {
    Simulation sim(tiny_mtu);
    ADD_FAILURE() << "built";
  } catch (const BuildError& e) {
    EXPECT_EQ(std::string(e.what()),
              "x.yaml:2:8: host.mtu: flow 0 (0 -> 1): 1099511627776 bytes are 274877906944 "
              "packets of the 4-byte MTU, more than the 4294967295 a QP numbers");
  }
}

TEST(ScenarioReader, Defaults) {
  const Scenario s = ParseReaderScenario(kMinimal);
  const Scenario d;
  EXPECT_EQ(s.name, d.name);
  EXPECT_EQ(s.seed, d.seed);
  EXPECT_EQ(s.duration, d.duration);
  EXPECT_EQ(s.topology.kind, TopologyKind::kStar);
  EXPECT_EQ(s.topology.hosts, 4);
  EXPECT_EQ(s.topology.host_rate_bps, d.topology.host_rate_bps);
  EXPECT_EQ(s.sw.buffer_bytes, d.sw.buffer_bytes);
  EXPECT_EQ(s.sw.pfc.priorities, d.sw.pfc.priorities);
  EXPECT_EQ(s.sw.pfc.headroom_bytes, -1);
  EXPECT_EQ(s.sw.ecn.kmax_bytes, d.sw.ecn.kmax_bytes);
  for (int dscp = 0; dscp < 64; ++dscp) EXPECT_EQ(s.sw.dscp_to_priority[dscp], dscp / 8);
  EXPECT_EQ(s.host.mtu_bytes, d.host.mtu_bytes);
  EXPECT_EQ(s.host.dscp_of_priority, d.host.dscp_of_priority);
  EXPECT_TRUE(s.traffic.empty());
  EXPECT_EQ(s.monitors.end, kTimeMax);
  EXPECT_EQ(s.output.dir, "");
  EXPECT_FALSE(s.output.hpcc_compat);
}

TEST(ScenarioReader, EmptySectionsMeanDefaults) {
  const Scenario s = ParseReaderScenario(std::string(kMinimal) + "switch:\nhost:\ntraffic:\n");
  EXPECT_EQ(s.sw.buffer_bytes, SwitchConfig().buffer_bytes);
  EXPECT_EQ(s.sw.dscp_to_priority[63], 7);
}

TEST(ScenarioReader, AlphaByRate) {
  const Scenario s =
      ParseReaderScenario(std::string(kMinimal) +
                          "switch: {alpha_by_rate: [{rate: 100Gbps, alpha: 1/8}, {rate: 400Gbps, "
                          "alpha: 50%}]}\n");
  ASSERT_EQ(s.sw.alpha_by_rate.size(), 2u);
  EXPECT_EQ(s.sw.alpha_by_rate[0].rate_bps, 100'000'000'000);
  EXPECT_DOUBLE_EQ(s.sw.alpha_by_rate[0].alpha, 0.125);
  EXPECT_EQ(s.sw.alpha_by_rate[1].rate_bps, 400'000'000'000);
  EXPECT_DOUBLE_EQ(s.sw.alpha_by_rate[1].alpha, 0.5);
}

// Names and tags end up in summary.json and the CSVs: bytes that are not
// UTF-8 are a scenario error naming the field, not a JSON library's message
// at the end of the run. Valid multi-byte text passes.
TEST(ScenarioReaderErrors, TextMustBeUtf8) {
  const std::string bad = ErrorOf("name: bad\xff\n" + std::string(kMinimal));
  EXPECT_NE(bad.find("x.yaml:1:7: name: expected UTF-8 text, got the byte 0xFF at position 4"),
            std::string::npos)
      << bad;
  const std::string overlong = ErrorOf(std::string(kMinimal) +
                                       "traffic: [{type: incast, senders: [1], receiver: 0, "
                                       "size: 1KB, tag: \"a\xc0\xaf\"}]\n");
  EXPECT_NE(overlong.find("traffic.0.tag: expected UTF-8 text"), std::string::npos) << overlong;
  EXPECT_EQ(ParseReaderScenario("name: \"r\xc3\xa9seau \xe2\x86\x92 \xf0\x9f\x9a\x80\"\n" +
                                std::string(kMinimal))
                .name,
            "r\xc3\xa9seau \xe2\x86\x92 \xf0\x9f\x9a\x80");
}

TEST(ScenarioReader, HeadroomAuto) {
  EXPECT_EQ(ParseReaderScenario(std::string(kMinimal) + "switch: {pfc: {headroom: auto}}")
                .sw.pfc.headroom_bytes,
            -1);
}

// topology.sync_window: auto (0: the shortest link between switches,
// FabricLayout) or a time of at least 1 ps.
TEST(ScenarioReader, SyncWindow) {
  EXPECT_EQ(ParseReaderScenario(kMinimal).topology.sync_window, 0);
  EXPECT_EQ(ParseReaderScenario("topology: {type: star, hosts: 4, sync_window: auto}")
                .topology.sync_window,
            0);
  EXPECT_EQ(ParseReaderScenario("topology: {type: star, hosts: 4, sync_window: 2us}")
                .topology.sync_window,
            2 * kMicrosecond);
}

TEST(ScenarioReader, HostCounts) {
  EXPECT_EQ(ExpectedHostCount(ParseReaderScenario("topology: {type: star, hosts: 17}").topology),
            17);
  EXPECT_EQ(ExpectedHostCount(
                ParseReaderScenario("topology: {type: dumbbell, hosts_left: 5, hosts_right: 2}")
                    .topology),
            7);
  EXPECT_EQ(ExpectedHostCount(ParseReaderScenario("topology: {type: fat_tree, k: 8}").topology),
            128);
  EXPECT_EQ(ExpectedHostCount(ParseReaderScenario("topology: {type: fat_tree}").topology), 16);
}

// ---- errors -----------------------------------------------------------------

TEST(ScenarioReaderErrors, LocationPathExpectedAndFound) {
  const std::string err = ErrorOf(std::string(kMinimal) + R"(switch:
  ecn:
    kmin: abc
)");
  EXPECT_EQ(err,
            R"(x.yaml:4:11: switch.ecn.kmin: expected a size like "200KB" or "4KiB", got "abc")");
}

TEST(ScenarioReaderErrors, HpccCompatIsABool) {
  const std::string err = ErrorOf(std::string(kMinimal) + "output:\n  hpcc_compat: yes please\n");
  EXPECT_NE(err.find("x.yaml:3:16: output.hpcc_compat: expected true or false"), std::string::npos)
      << err;
}

TEST(ScenarioReaderErrors, WrongTypes) {
  EXPECT_EQ(
      ErrorOf(std::string(kMinimal) + "switch:\n  alpha: {a: 1}\n"),
      R"(x.yaml:3:10: switch.alpha: expected a fraction like "1/16", "0.0625" or "6.25%", got a map)");
  EXPECT_EQ(ErrorOf("topology: {type: star, hosts: 1.5}"),
            R"(x.yaml:1:31: topology.hosts: expected an integer from 1 to 1048576, got "1.5")");
  EXPECT_EQ(ErrorOf(std::string(kMinimal) + "host: {ack_every: many}"),
            R"(x.yaml:2:19: host.ack_every: expected an integer >= 1, got "many")");
  EXPECT_EQ(ErrorOf(std::string(kMinimal) + "host: {ecn_capable: maybe}"),
            R"(x.yaml:2:21: host.ecn_capable: expected true or false, got "maybe")");
  EXPECT_EQ(ErrorOf(std::string(kMinimal) + "name: [a, b]"),
            R"(x.yaml:2:7: name: expected a string, got a list)");
  EXPECT_EQ(ErrorOf(std::string(kMinimal) + "switch: 5"),
            R"(x.yaml:2:9: switch: expected a map, got "5")");
  EXPECT_EQ(ErrorOf(std::string(kMinimal) + "traffic: {type: flows}"),
            R"(x.yaml:2:10: traffic: expected a list of traffic entries, got a map)");
  EXPECT_EQ(ErrorOf(std::string(kMinimal) + "seed: -1"),
            R"(x.yaml:2:7: seed: expected a non-negative integer, got "-1")");
  EXPECT_EQ(ErrorOf("- 1\n- 2\n"),
            "x.yaml:1:1: expected a map of settings at the top level, got a list");
}

TEST(ScenarioReaderErrors, UnknownKeyWithSuggestion) {
  EXPECT_EQ(ErrorOf(std::string(kMinimal) + "switch:\n  alph: 1/8\n"),
            "x.yaml:3:3: switch: unknown key 'alph'; did you mean 'alpha'?");
  EXPECT_EQ(ErrorOf(std::string(kMinimal) + "swich: {}\n"),
            "x.yaml:2:1: unknown key 'swich'; did you mean 'switch'?");
  EXPECT_EQ(ErrorOf("topology: {type: leaf_spine, hosts_per: 3}"),
            "x.yaml:1:30: topology: unknown key 'hosts_per'; did you mean 'hosts_per_leaf'?");
  EXPECT_EQ(ErrorOf(std::string(kMinimal) + "monitors: {zzzzzzz: 1}\n"),
            "x.yaml:2:12: monitors: unknown key 'zzzzzzz'; allowed keys are: interval, start, end, "
            "nodes, deadlock, pcap");
  EXPECT_EQ(ErrorOf("topology: {type: star, host_link: {rate: 1Gbps, dealy: 1us}}"),
            "x.yaml:1:49: topology.host_link: unknown key 'dealy'; did you mean 'delay'?");
}

TEST(ScenarioReaderErrors, DuplicateKey) {
  EXPECT_EQ(ErrorOf(std::string(kMinimal) + "seed: 1\nseed: 2\n"),
            "x.yaml:3:1: key 'seed' appears twice");
}

TEST(ScenarioReaderErrors, TopologyTypeFields) {
  EXPECT_EQ(ErrorOf("topology: {type: star, k: 4}"),
            "x.yaml:1:24: topology.k applies to type fat_tree, not star");
  EXPECT_EQ(ErrorOf("topology: {hosts: 4}"),
            "x.yaml:1:11: topology: missing required key 'type' (one of star, dumbbell, "
            "leaf_spine, fat_tree, rail, file)");
  EXPECT_EQ(
      ErrorOf("topology: {type: fattree}"),
      R"(x.yaml:1:18: topology.type: expected one of star, dumbbell, leaf_spine, fat_tree, rail, file, got "fattree"; did you mean 'fat_tree'?)");
  EXPECT_EQ(ErrorOf("name: x\n"), "x.yaml:1:1: missing required key 'topology'");
  EXPECT_EQ(ErrorOf(""), "x.yaml: missing required key 'topology'");
}

TEST(ScenarioReaderErrors, Ranges) {
  const std::string m = kMinimal;
  const auto has = [](const std::string& err, const std::string& needle) {
    EXPECT_NE(err.find(needle), std::string::npos) << err;
  };
  has(ErrorOf("topology: {type: star, hosts: 0}"), "topology.hosts: expected an integer from 1");
  has(ErrorOf("topology: {type: fat_tree, k: 5}"),
      R"(topology.k: expected an even integer >= 2, got "5")");
  has(ErrorOf("topology: {type: fat_tree, k: 0}"), "topology.k: expected an integer from 2");
  has(ErrorOf("topology: {type: star, host_link: {rate: -100Gbps}}"),
      R"(topology.host_link.rate: expected a rate like "100Gbps" or "40Gb/s", got "-100Gbps" (negative values are not allowed))");
  has(ErrorOf("topology: {type: star, host_link: {rate: 0Gbps}}"), "must be greater than 0");
  has(ErrorOf(m + "switch: {ecn: {pmax: 1.5}}"),
      R"(switch.ecn.pmax: expected a fraction from 0 to 1, got "1.5")");
  has(ErrorOf(m + "switch: {ecn: {kmin: 300KB}}"),
      "x.yaml:2:22: switch.ecn.kmin: expected kmin <= kmax, got kmin = 300000 bytes and kmax = "
      "200000 bytes");
  has(ErrorOf(m + "switch: {alpha: 0}"), R"(switch.alpha: expected a fraction greater than 0)");
  has(ErrorOf(m + "switch: {alpha_by_rate: [{rate: 100Gbps, alpha: 0}]}"),
      R"(switch.alpha_by_rate.0.alpha: expected a fraction greater than 0)");
  has(ErrorOf(m + "switch: {alpha_by_rate: [{rate: 100Gbps, alpha: 1/8}, {rate: 100G, alpha: 1}]}"),
      "switch.alpha_by_rate.1: this rate is listed twice");
  has(ErrorOf(m + "switch: {architecture: cioq, alpha_by_rate: [{rate: 100Gbps, alpha: 1}]}"),
      "applies to architecture shared_buffer only");
  has(ErrorOf(m + "switch: {pfc: {priorities: [8]}}"),
      R"(switch.pfc.priorities.0: expected an integer from 0 to 7, got "8")");
  has(ErrorOf(m + "switch: {pfc: {priorities: [3, 3]}}"), "priority 3 is listed twice");
  has(ErrorOf(m + "switch: {pfc: {quanta: 70000}}"), "expected an integer from 1 to 65535");
  has(ErrorOf(m + "switch: {pfc: {headroom: [1]}}"), R"(expected "auto" or a size)");
  EXPECT_EQ(ErrorOf("topology: {type: star, sync_window: 0us}"),
            R"(x.yaml:1:37: topology.sync_window: expected a time greater than 0, got "0us")");
  has(ErrorOf("topology: {type: star, sync_window: soon}"),
      R"(topology.sync_window: expected "auto" or a time like "1us")");
  has(ErrorOf("topology: {type: star, sync_window: [1us]}"),
      R"(topology.sync_window: expected "auto" or a time like "1us")");
  has(ErrorOf(m + "switch: {dscp_map: {64: 1}}"),
      R"(switch.dscp_map: expected an integer from 0 to 63, got "64")");
  has(ErrorOf(m + "switch: {dscp_map: {26: 9}}"),
      R"(switch.dscp_map.26: expected an integer from 0 to 7, got "9")");
  has(ErrorOf(m + "switch: {dwrr_weights: [1, 1]}"), "exactly 8 integers >= 1");
  has(ErrorOf(m + "switch: {dwrr_weights: [1, 1, 1, 1, 1, 1, 1, 0]}"),
      "switch.dwrr_weights.7: expected an integer >= 1");
  has(ErrorOf(m + "host: {dscp_of_priority: [0, 8, 16, 24, 32, 40, 48, 64]}"),
      "host.dscp_of_priority.7: expected an integer from 0 to 63");
  has(ErrorOf(m + "host: {mtu: 0}"), "host.mtu: expected a size of at least 1 bytes");
  has(ErrorOf(m + "host: {ack_every: 0}"), "host.ack_every: expected an integer >= 1");
  has(ErrorOf(m + "host: {control_priority: 8}"), "expected an integer from 0 to 7");
  has(ErrorOf(m + "duration: 0"), R"(duration: expected a time greater than 0, got "0")");
  has(ErrorOf(m + "duration: 10"), "a unit is required");
  has(ErrorOf(m + "monitors: {start: 2ms, end: 1ms}"), "monitors.end: expected a time not before");
  // A sample reads every port: 1 ps would never finish.
  has(ErrorOf(m + "monitors: {interval: 1ps}"),
      "monitors.interval: expected 0 (off) or at least 100ns");
  has(ErrorOf(m + "monitors: {interval: 99ns}"), "got \"99ns\"");
}

TEST(ScenarioReaderErrors, CongestionControl) {
  EXPECT_EQ(
      ErrorOf(std::string(kMinimal) + "host: {cc: dcqnc}"),
      R"(x.yaml:2:12: host.cc: expected one of none, dcqcn, timely, dctcp, hpcc, ldcp, got "dcqnc"; did you mean 'dcqcn'?)");
  EXPECT_EQ(
      ErrorOf(std::string(kMinimal) + "host: {dcqcn: {rate_ai: -1Mbps}}"),
      R"(x.yaml:2:25: host.dcqcn.rate_ai: expected a rate like "100Gbps" or "40Gb/s", got "-1Mbps" (negative values are not allowed))");
  EXPECT_EQ(
      ErrorOf(std::string(kMinimal) + "host: {dcqcn: {preset: hpc}}"),
      R"(x.yaml:2:24: host.dcqcn.preset: expected one of paper, hpcc-sim, got "hpc"; did you mean 'hpcc-sim'?)");
  EXPECT_EQ(ErrorOf(std::string(kMinimal) + "host: {timely: {t_low: 2ms, t_high: 1ms}}"),
            "x.yaml:2:16: host.timely: expected t_low <= t_high");
}

TEST(ScenarioReader, CongestionControlBlocks) {
  // A preset fills the block first; explicit keys override it in any order.
  const Scenario sc = ParseReaderScenario(
      std::string(kMinimal) +
      "host:\n  cc: dcqcn\n  dcqcn: {rate_ai: 5Mbps, preset: hpcc-sim}\n"
      "  timely: {preset: patched, beta: 0.5}\n"
      "traffic: [{type: flows, flows: [{src: 0, dst: 1, size: 1KB, cc: hpcc}]}]\n");
  EXPECT_EQ(sc.host.cc, CcKind::kDcqcn);
  EXPECT_EQ(sc.host.dcqcn.rate_ai_bps, 5'000'000);
  EXPECT_EQ(sc.host.dcqcn.increase_timer, 300 * kMicrosecond);  // from the hpcc-sim preset
  EXPECT_EQ(sc.host.dcqcn.mode, DcqcnMode::kAckEcnEcho);
  EXPECT_TRUE(sc.host.timely.patched);
  EXPECT_DOUBLE_EQ(sc.host.timely.beta, 0.5);
  ASSERT_EQ(sc.traffic.size(), 1u);
  EXPECT_EQ(sc.traffic[0].flows[0].cc, CcKind::kHpcc);
}

TEST(ScenarioReaderErrors, Traffic) {
  const std::string m = kMinimal;  // 4 hosts: 0-3
  EXPECT_EQ(
      ErrorOf(m + "traffic:\n  - type: flows\n    flows:\n      - {src: 0, dst: 4, size: 1KB}\n"),
      R"(x.yaml:5:23: traffic.0.flows.0.dst: expected a host id from 0 to 3 (the topology has 4 hosts), got "4")");
  EXPECT_EQ(ErrorOf(m + "traffic: [{type: flows, flows: [{src: 1, dst: 1, size: 1KB}]}]"),
            R"(x.yaml:2:47: traffic.0.flows.0.dst: expected a host other than src (1), got "1")");
  EXPECT_EQ(ErrorOf(m + "traffic: [{type: flows, flows: [{src: 0, dst: 1}]}]"),
            "x.yaml:2:33: traffic.0.flows.0: missing required key 'size'");
  EXPECT_EQ(ErrorOf(m + "traffic: [{type: flows, flows: [{src: 0, dst: 1, size: 0}]}]"),
            R"(x.yaml:2:56: traffic.0.flows.0.size: expected a size of at least 1 bytes, got "0")");
  EXPECT_EQ(ErrorOf(m + "traffic: [{type: flows, receiver: 0, flows: []}]"),
            "x.yaml:2:25: traffic.0.receiver applies to type incast, not flows");
  EXPECT_EQ(ErrorOf(m + "traffic: [{flows: []}]"),
            "x.yaml:2:11: traffic.0: missing required key 'type' (one of flows, incast, flow_file, "
            "poisson, hotspot, permutation, all_to_all, microburst, collective, dependency_file, "
            "aicb_workload)");
  EXPECT_EQ(ErrorOf(m + "traffic: [{type: incast, senders: [0, 1], receiver: 1, size: 1KB}]"),
            "x.yaml:2:35: traffic.0.senders: the receiver (1) cannot also be a sender");
  EXPECT_EQ(
      ErrorOf(m + "traffic: [{type: incast, senders: 1-4, receiver: 0, size: 1KB}]"),
      R"(x.yaml:2:35: traffic.0.senders: expected host ids from 0 to 3 (the topology has 4 hosts), got "1-4")");
  EXPECT_EQ(
      ErrorOf(m + "traffic: [{type: incast, senders: 3-1, receiver: 0, size: 1KB}]"),
      R"(x.yaml:2:35: traffic.0.senders: expected a list of host ids or a range like "1-16", got "3-1")");
  EXPECT_EQ(ErrorOf(m + "traffic: [{type: incast, senders: [], receiver: 0, size: 1KB}]"),
            "x.yaml:2:35: traffic.0.senders: expected at least one sender, got a list");
  EXPECT_EQ(ErrorOf(m + "traffic: [{type: incast, senders: [1], size: 1KB}]"),
            "x.yaml:2:11: traffic.0: missing required key 'receiver'");
}

TEST(ScenarioReaderErrors, YamlSyntax) {
  const std::string err = ErrorOf("topology: {type: star\nname: [\n");
  EXPECT_TRUE(err.starts_with("x.yaml:")) << err;
  EXPECT_NE(err.find("invalid YAML"), std::string::npos) << err;
  EXPECT_EQ(ErrorOf("a: b\n c: d\n"), "x.yaml:2:3: invalid YAML: illegal map value");
}

TEST(ScenarioReaderErrors, MissingScenarioFile) {
  try {
    LoadScenario("no_such_dir/x.yaml", {}, std::nullopt);
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(),
                 "cannot open scenario file 'no_such_dir/x.yaml': No such file or directory");
  }
}

// ---- overrides ----------------------------------------------------------------

TEST(ScenarioReaderOverrides, SetScalarListAndIndex) {
  const std::string yaml = std::string(kMinimal) +
                           "switch: {alpha: 1/16}\n"
                           "traffic:\n"
                           "  - {type: incast, senders: [1, 2], receiver: 0, size: 1MB}\n"
                           "  - {type: flows, flows: [{src: 0, dst: 1, size: 1KB}]}\n";
  const Scenario s =
      ParseReaderScenario(yaml,
                          {"switch.alpha=1/2", "switch.pfc.priorities=[3,4]", "traffic.0.size=2MB",
                           "traffic.1.flows.0.dst=3", "host.mtu=4KiB", "name=over"},
                          7);
  EXPECT_DOUBLE_EQ(s.sw.alpha, 0.5);
  EXPECT_EQ(s.sw.pfc.priorities, (std::vector<int>{3, 4}));
  EXPECT_EQ(s.traffic[0].size_bytes, 2'000'000);
  EXPECT_EQ(s.traffic[1].flows[0].dst, 3);
  EXPECT_EQ(s.host.mtu_bytes, 4096);
  EXPECT_EQ(s.name, "over");
  EXPECT_EQ(s.seed, 7u);

  // yaml_as_run carries the overrides and reproduces the run on its own.
  EXPECT_NE(s.yaml_as_run.find("2MB"), std::string::npos) << s.yaml_as_run;
  EXPECT_NE(s.yaml_as_run.find("seed: 7"), std::string::npos) << s.yaml_as_run;
  const Scenario again = ParseReaderScenario(s.yaml_as_run);
  EXPECT_DOUBLE_EQ(again.sw.alpha, 0.5);
  EXPECT_EQ(again.sw.pfc.priorities, (std::vector<int>{3, 4}));
  EXPECT_EQ(again.traffic[0].size_bytes, 2'000'000);
  EXPECT_EQ(again.host.mtu_bytes, 4096);
  EXPECT_EQ(again.seed, 7u);
  EXPECT_EQ(again.yaml_as_run, s.yaml_as_run);
}

TEST(ScenarioReaderOverrides, SeedOverrideReplacesFileSeed) {
  EXPECT_EQ(ParseReaderScenario(std::string(kMinimal) + "seed: 3\n", {}, 11).seed, 11u);
  EXPECT_EQ(ParseReaderScenario(std::string(kMinimal) + "seed: 3\n", {"seed=5"}).seed, 5u);
  EXPECT_EQ(ParseReaderScenario(std::string(kMinimal) + "seed: 3\n", {"seed=5"}, 6).seed, 6u);
}

TEST(ScenarioReaderOverrides, ErrorsNameTheOverride) {
  EXPECT_EQ(
      ErrorOf(kMinimal, {"switch.alpha=abc"}),
      R"(x.yaml (from --set switch.alpha=abc): switch.alpha: expected a fraction like "1/16", "0.0625" or "6.25%", got "abc")");
  EXPECT_EQ(ErrorOf(kMinimal, {"switch.alph=1"}),
            "x.yaml (from --set switch.alph=1): switch: unknown key 'alph'; did you mean 'alpha'?");
  EXPECT_EQ(ErrorOf(kMinimal, {"switch.ecn.foo.bar=1"}),
            "x.yaml (from --set switch.ecn.foo.bar=1): switch.ecn: unknown key 'foo'; allowed keys "
            "are: enabled, mark_on, kmin, kmax, pmax, wred_drop, buf_max, by_rate");
  // A later override inside an earlier one is attributed to the later one.
  EXPECT_EQ(ErrorOf(kMinimal, {"switch={alpha: 1/8}", "switch.buffer=big"}).substr(0, 42),
            "x.yaml (from --set switch.buffer=big): swi");
}

TEST(ScenarioReaderOverrides, MalformedOverrides) {
  const std::string yaml = std::string(kMinimal) + "traffic: [{type: flows, flows: []}]\n";
  EXPECT_EQ(ErrorOf(yaml, {"switch.alpha"}),
            "invalid --set 'switch.alpha': expected key.path=value");
  EXPECT_EQ(ErrorOf(yaml, {"=1"}),
            "invalid --set '=1': empty key in the path; expected key.path=value");
  EXPECT_EQ(ErrorOf(yaml, {"switch..alpha=1"}),
            "invalid --set 'switch..alpha=1': empty key in the path; expected key.path=value");
  EXPECT_EQ(ErrorOf(yaml, {"traffic.3.size=1MB"}),
            "invalid --set 'traffic.3.size=1MB': index 3 is out of range: traffic has 1 entries");
  EXPECT_EQ(ErrorOf(yaml, {"traffic.x=1"}),
            "invalid --set 'traffic.x=1': traffic is a list; 'x' is not an index");
  EXPECT_EQ(
      ErrorOf(yaml, {"topology.type.x=1"}),
      "invalid --set 'topology.type.x=1': topology.type is a single value, not a map or list");
  const std::string bad_yaml = ErrorOf(yaml, {"name=[1"});
  EXPECT_TRUE(bad_yaml.starts_with("invalid --set 'name=[1': the value is not valid YAML"))
      << bad_yaml;
}

TEST(ScenarioReaderOverrides, CreatesMissingMaps) {
  const Scenario s = ParseReaderScenario(kMinimal, {"switch.ecn.kmin=1KB", "output.dir=out/x"});
  EXPECT_EQ(s.sw.ecn.kmin_bytes, 1000);
  EXPECT_EQ(s.output.dir, "out/x");
}

// ---- topology files -------------------------------------------------------------

constexpr char kSmallTopo[] =
    "5 2 4\n"
    "3 4\n"
    "0 3 100Gbps 1000ns 0.000000\n"
    "1 3 100Gbps 0.001ms 0\n"
    "2 4 100Gbps 1us 0\n"
    "3 4 400Gbps 1us 0.01\n";

TEST(HpccTopologyFile, Parses) {
  const HpccTopology t = ParseHpccTopology(kSmallTopo, "t.txt");
  EXPECT_EQ(t.nodes, 5);
  EXPECT_EQ(t.switch_ids, (std::vector<int>{3, 4}));
  EXPECT_EQ(t.is_switch, (std::vector<bool>{false, false, false, true, true}));
  EXPECT_EQ(t.HostCount(), 3);
  ASSERT_EQ(t.links.size(), 4u);
  EXPECT_EQ(t.links[1].a, 1);
  EXPECT_EQ(t.links[1].b, 3);
  EXPECT_EQ(t.links[1].delay, kMicrosecond);
  EXPECT_EQ(t.links[3].rate_bps, 400'000'000'000);
  EXPECT_DOUBLE_EQ(t.links[3].error_rate, 0.01);
}

TEST(HpccTopologyFile, NoSwitches) {
  const HpccTopology t = ParseHpccTopology("2 0 1\n\n0 1 10Gbps 1us 0\n", "t.txt");
  EXPECT_EQ(t.HostCount(), 2);
  EXPECT_EQ(t.links.size(), 1u);
}

TEST(HpccTopologyFile, Errors) {
  const auto err = [](const std::string& text) -> std::string {
    try {
      ParseHpccTopology(text, "t.txt");
    } catch (const TopologyFileError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(err("3 1\n2\n"), R"(t.txt:1: expected "<nodes> <switches> <links>", got 2 fields)");
  EXPECT_EQ(err("3 4 0\n"), "t.txt:1: switch count 4 exceeds node count 3");
  EXPECT_EQ(err("3 1 1\n5\n0 2 1Gbps 1us 0\n"),
            "t.txt:2: switch id 5 out of range: the file declares 3 nodes (0-2)");
  EXPECT_EQ(err("3 1 1\n2\n0 7 1Gbps 1us 0\n"),
            "t.txt:3: node id 7 out of range: the file declares 3 nodes (0-2)");
  EXPECT_EQ(err("3 1 1\n2\n2 2 1Gbps 1us 0\n"), "t.txt:3: link from node 2 to itself");
  EXPECT_EQ(err("3 1 1\n2\n0 2 fast 1us 0\n"),
            R"(t.txt:3: expected a rate like "100Gbps" or "40Gb/s", got "fast")");
  EXPECT_EQ(
      err("3 1 1\n2\n0 2 1Gbps 1000 0\n"),
      R"(t.txt:3: expected a time like "1us" or "2.5ms", got "1000" (a unit is required: ps, ns, us, ms or s))");
  EXPECT_EQ(err("3 1 2\n2\n0 2 1Gbps 1us 0\n"),
            "t.txt:3: the file declares 2 links but has only 1 link lines");
  EXPECT_EQ(err("3 1 1\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n"),
            "t.txt:4: more link lines than the 1 declared");
  EXPECT_EQ(err("3 1 1\n2\n0 2 1Gbps 1us\n"),
            R"(t.txt:3: expected "<a> <b> <rate> <delay> <error rate>", got 4 fields)");
  EXPECT_EQ(err("3 1 1\n2\n0 2 1Gbps 1us 2\n"),
            R"(t.txt:3: expected an error rate from 0 to 1 like "0.000000", got "2")");
  EXPECT_EQ(err(""), R"(t.txt:1: empty file; expected "<nodes> <switches> <links>" on line 1)");
  // A node count far beyond the links (nodes without a link) is refused
  // before the fabric's per-node arrays are built.
  EXPECT_EQ(err("2000000000 1 1\n0\n0 1 100Gbps 1us 0\n"),
            "t.txt:1: 2000000000 nodes but 1 links: at most 2 nodes can have a link (each host "
            "needs one)");
}

TEST(HpccTopologyFile, ReadsBenchFile) {
  const char* path = "/work/shared/bench/fattree_k8.txt";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "bench file not present";
  const HpccTopology t = ReadHpccTopologyFile(path);
  EXPECT_EQ(t.nodes, 208);
  EXPECT_EQ(t.HostCount(), 128);
  EXPECT_EQ(t.links.size(), 384u);
}

TEST(ScenarioReaderTopologyFile, RelativeToScenarioDirectory) {
  const std::string dir = test::TestTempDir();
  WriteTempFile("small.txt", kSmallTopo);
  const std::string scenario_path =
      WriteTempFile("s.yaml",
                    "topology: {type: file, file: small.txt}\n"
                    "traffic: [{type: flows, flows: [{src: 0, dst: 2, size: 1KB}]}]\n");
  const Scenario s = LoadScenario(scenario_path, {}, std::nullopt);
  EXPECT_EQ(s.topology.kind, TopologyKind::kFile);
  EXPECT_EQ(s.topology.file_hosts, 3);
  EXPECT_EQ(ExpectedHostCount(s.topology), 3);
  EXPECT_TRUE(std::filesystem::equivalent(s.topology.file, dir + "small.txt"));
  EXPECT_EQ(s.source_file, scenario_path);
  // The resolved path is written into yaml_as_run so it works from anywhere.
  EXPECT_EQ(ParseReaderScenario(s.yaml_as_run).topology.file, s.topology.file);

  // Host ids are checked against the file's host count.
  const std::string err = ErrorOf(
      "topology: {type: file, file: small.txt}\n"
      "traffic: [{type: flows, flows: [{src: 0, dst: 3, size: 1KB}]}]\n",
      {}, dir);
  EXPECT_NE(err.find("expected a host id from 0 to 2 (the topology has 3 hosts)"),
            std::string::npos)
      << err;
}

TEST(ScenarioReaderTopologyFile, Errors) {
  const std::string dir = test::TestTempDir();
  std::string err = ErrorOf("topology: {type: file, file: missing_topo.txt}", {}, dir);
  EXPECT_TRUE(err.starts_with("x.yaml:1:30: topology.file: cannot open topology file '")) << err;
  EXPECT_NE(err.find("missing_topo.txt': No such file or directory"), std::string::npos) << err;

  WriteTempFile("bad_topo.txt", "3 1 1\n2\n0 9 1Gbps 1us 0\n");
  err = ErrorOf("topology:\n  type: file\n  file: bad_topo.txt\n", {}, dir);
  EXPECT_TRUE(err.starts_with("x.yaml:3:9: topology.file: ")) << err;
  EXPECT_NE(err.find("bad_topo.txt:3: node id 9 out of range"), std::string::npos) << err;

  EXPECT_EQ(ErrorOf("topology: {type: file}"),
            "x.yaml:1:11: topology: missing required key 'file' (the HPCC topology file for type "
            "file)");
  EXPECT_EQ(ErrorOf("topology: {type: star, file: a.txt}"),
            "x.yaml:1:24: topology.file applies to type file, not star");
}

}  // namespace
}  // namespace test_scenario_reader
}  // namespace rocesim
