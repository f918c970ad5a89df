// GPU servers and the rail-optimized topology (issue "AI training on RoCE
// fabrics"): topology.gpus_per_server and topology.nvlink in the scenario
// reader; the rail builder's nodes, links and host-to-leaf wiring
// (topo/topology.h BuildRail); routes that stay on the rail leaf for
// same-rail traffic within a rail group and cross a spine otherwise; the
// partitioner keeping every server's hosts in one partition (sim/partition.h);
// and a rail run on 2 threads (and 2 MPI ranks where mpirun exists) writing
// the serial run's results byte for byte.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "net/fabric_layout.h"
#include "scenario/scenario_reader.h"
#include "sim/partition.h"
#include "tests/cli_test_support.h"
#include "topo/topology.h"

namespace rocesim {
namespace test_rail_topology {
namespace {

namespace fs = std::filesystem;

Scenario ParseRailScenario(const std::string& yaml) {
  return ParseScenarioText(yaml, "x.yaml", "", {}, std::nullopt);
}

std::string ErrorOf(const std::string& yaml) {
  return test::ScenarioErrorOf(yaml);
}

// 4 servers x 4 GPUs in 2 rail groups of 2 servers, 2 spines: hosts 0-15,
// leaves 16-23 (group 0's rails 0-3, then group 1's), spines 24-25.
constexpr char kRail[] =
    "{type: rail, servers: 4, gpus_per_server: 4, servers_per_rail_group: 2, spines: 2}";

// ---- builder ----

TEST(RailTopology, CountsAndHostToLeafWiring) {
  TopologyConfig c;
  c.kind = TopologyKind::kRail;
  c.servers = 6;
  c.gpus_per_server = 4;
  c.servers_per_rail_group = 3;
  c.spines = 3;
  c.links_per_spine = 2;
  const Topology t = BuildRail(c);
  const uint32_t hosts = 24, leaves = 2 * 4, spines = 3;
  EXPECT_EQ(t.num_nodes, hosts + leaves + spines);
  ASSERT_EQ(t.host_nodes.size(), hosts);
  for (uint32_t h = 0; h < hosts; ++h) {
    EXPECT_EQ(t.host_nodes[h], h) << "hosts come first, server-major";
    EXPECT_FALSE(t.is_switch[h]);
  }
  for (uint32_t n = hosts; n < t.num_nodes; ++n) EXPECT_TRUE(t.is_switch[n]);
  EXPECT_EQ(t.links.size(), hosts + leaves * spines * 2);

  // Each host has one link, to the leaf of its server's rail group and its GPU's rail.
  std::vector<int> host_links(hosts, 0);
  std::vector<std::multiset<uint32_t>> leaf_spines(leaves);
  for (const TopoLink& l : t.links) {
    if (l.a < hosts) {
      const uint32_t server = l.a / 4, gpu = l.a % 4, group = server / 3;
      EXPECT_EQ(l.b, hosts + group * 4 + gpu) << "host " << l.a;
      EXPECT_EQ(l.rate_bps, c.host_rate_bps);
      ++host_links[l.a];
    } else {
      ASSERT_GE(l.a, hosts);
      ASSERT_LT(l.a, hosts + leaves);
      ASSERT_GE(l.b, hosts + leaves) << "leaves link to spines only";
      EXPECT_EQ(l.rate_bps, c.fabric_rate_bps);
      leaf_spines[l.a - hosts].insert(l.b);
    }
  }
  for (uint32_t h = 0; h < hosts; ++h) EXPECT_EQ(host_links[h], 1) << h;
  for (uint32_t leaf = 0; leaf < leaves; ++leaf)
    for (uint32_t s = 0; s < spines; ++s)
      EXPECT_EQ(leaf_spines[leaf].count(hosts + leaves + s), 2u) << "leaf " << leaf;
}

TEST(RailTopology, OneRailGroupByDefault) {
  const Scenario sc =
      ParseRailScenario("topology: {type: rail, servers: 3, gpus_per_server: 8, spines: 1}\n");
  EXPECT_EQ(sc.topology.kind, TopologyKind::kRail);
  EXPECT_EQ(sc.topology.servers_per_rail_group, 3);
  EXPECT_EQ(ExpectedHostCount(sc.topology), 24);
  const Topology t = BuildTopology(sc.topology);
  EXPECT_EQ(t.num_nodes, 24u + 8 + 1);  // 8 rail leaves, 1 spine
  EXPECT_EQ(t.links.size(), 24u + 8);
}

// ---- routes ----

// The switches the ECMP path from `src` to `dst` crosses, for many flow keys.
std::set<std::vector<uint32_t>> Paths(const FabricLayout& l, uint32_t src, uint32_t dst) {
  std::set<std::vector<uint32_t>> out;
  for (uint64_t key = 0; key < 64; ++key) {
    std::vector<uint32_t> hops;
    const uint32_t end = WalkEcmpPath(l, l.routing, src, dst, key * 0x9E3779B97F4A7C15ULL, 8,
                                      [&](uint32_t node, PortId) { hops.push_back(node); });
    EXPECT_EQ(end, l.host_nodes[dst]);
    out.insert(hops);
  }
  return out;
}

TEST(RailTopology, SameRailStaysOnTheLeafOtherTrafficCrossesASpine) {
  const std::shared_ptr<const FabricLayout> layout =
      LayoutFabric(ParseRailScenario(std::string("topology: ") + kRail + "\n"));
  const FabricLayout& l = *layout;
  // GPU 1 of server 0 (host 1) to GPU 1 of server 1 (host 5): same group, same rail.
  EXPECT_EQ(Paths(l, 1, 5), (std::set<std::vector<uint32_t>>{{17}}));
  // To GPU 2 of server 1 (host 6): leaf 17, either spine, leaf 18.
  EXPECT_EQ(Paths(l, 1, 6), (std::set<std::vector<uint32_t>>{{17, 24, 18}, {17, 25, 18}}));
  // To GPU 1 of server 2 (host 9), same rail in the other group: leaf 21.
  EXPECT_EQ(Paths(l, 1, 9), (std::set<std::vector<uint32_t>>{{17, 24, 21}, {17, 25, 21}}));
  // GPUs of one server sit on different rails: through a spine too.
  EXPECT_EQ(Paths(l, 1, 2), (std::set<std::vector<uint32_t>>{{17, 24, 18}, {17, 25, 18}}));
}

// The links a run of one flow sent anything on, keyed by their two nodes
// (lower first): in how many directions.
std::map<std::pair<uint32_t, uint32_t>, uint64_t> UsedLinks(const std::string& flow) {
  const test::SimRun r =
      test::RunYaml(std::string("topology: ") + kRail +
                    "\nduration: 1ms\ntraffic:\n  - type: flows\n    flows: [" + flow + "]\n");
  EXPECT_EQ(r.summary["flows"]["completed"], 1);
  const FabricLayout& l = *r.fabric().layout;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> out;
  for (PortId p = 0; p < l.ports.size(); ++p) {
    const uint32_t a = l.ports[p].node, b = l.PeerNode(p);
    if (r.fabric().ports[p].tx_bytes > 0) out[{std::min(a, b), std::max(a, b)}] += 1;
  }
  return out;
}

TEST(RailTopology, SameRailFlowUsesItsTwoHostLinksOnly) {
  // Data one way, ACKs the other: host 1 - leaf 17 - host 5 and nothing else.
  const auto used = UsedLinks("{src: 1, dst: 5, size: 100KB, start: 0us}");
  EXPECT_EQ(used, (std::map<std::pair<uint32_t, uint32_t>, uint64_t>{{{1, 17}, 2}, {{5, 17}, 2}}));
  // Cross-rail: the host links, and leaf 17 and leaf 18 to a spine.
  const auto cross = UsedLinks("{src: 1, dst: 6, size: 100KB, start: 0us}");
  EXPECT_TRUE(cross.count({1, 17}) && cross.count({6, 18}));
  int spine_links = 0;
  for (const auto& [link, directions] : cross) spine_links += link.second >= 24;
  EXPECT_GE(spine_links, 2);
}

// ---- scenario file ----

TEST(RailScenario, GpusPerServerAndNvlinkDefaults) {
  const Scenario plain = ParseRailScenario("topology: {type: star, hosts: 4}\n");
  EXPECT_EQ(plain.topology.gpus_per_server, 1);
  EXPECT_EQ(plain.topology.nvlink_rate_bps, 3'600'000'000'000);
  EXPECT_EQ(plain.topology.nvlink_latency, kMicrosecond);
  const Scenario sc = ParseRailScenario(
      "topology: {type: leaf_spine, leaves: 2, hosts_per_leaf: 8, gpus_per_server: 8,\n"
      "           nvlink: {rate: 1.8Tbps, latency: 500ns}}\n");
  EXPECT_EQ(sc.topology.gpus_per_server, 8);
  EXPECT_EQ(sc.topology.nvlink_rate_bps, 1'800'000'000'000);
  EXPECT_EQ(sc.topology.nvlink_latency, 500 * kNanosecond);
  // nvlink may be set with one GPU per server (it is then unused).
  EXPECT_EQ(ParseRailScenario("topology: {type: star, hosts: 3, nvlink: {latency: 2us}}\n")
                .topology.nvlink_latency,
            2 * kMicrosecond);
  // Any topology type, a topology file included (bench's k=8 fat tree: 128 hosts).
  const Scenario file = ParseScenarioText(
      "topology: {type: file, file: fattree_k8.txt, gpus_per_server: 8}\n", "x.yaml",
      std::string(ROCESIM_SOURCE_DIR) + "/bench/hpcc", {}, std::nullopt);
  EXPECT_EQ(file.topology.gpus_per_server, 8);
}

TEST(RailScenario, ErrorsNameFileLineAndField) {
  EXPECT_EQ(ErrorOf("topology: {type: leaf_spine, leaves: 2, hosts_per_leaf: 3, "
                    "gpus_per_server: 4}\n"),
            "x.yaml:1:77: topology.gpus_per_server: expected a divisor of the topology's 6 hosts, "
            "got 4: servers are groups of gpus_per_server consecutive host ids");
  EXPECT_EQ(ErrorOf("topology:\n  type: rail\n  servers: 6\n  gpus_per_server: 2\n"
                    "  servers_per_rail_group: 4\n"),
            "x.yaml:5:27: topology.servers_per_rail_group: expected a divisor of servers (6), got "
            "4: rail groups are equal blocks of consecutive servers");
  EXPECT_EQ(ErrorOf("topology: {type: leaf_spine, servers: 4}\n"),
            "x.yaml:1:30: topology.servers applies to type rail, not leaf_spine");
  EXPECT_EQ(ErrorOf("topology: {type: fat_tree, servers_per_rail_group: 4}\n"),
            "x.yaml:1:28: topology.servers_per_rail_group applies to type rail, not fat_tree");
  EXPECT_EQ(ErrorOf("topology: {type: rail, servers: 4, gpus_per_server: 2, hosts_per_leaf: 2}\n"),
            "x.yaml:1:56: topology.hosts_per_leaf applies to type leaf_spine, not rail");
  EXPECT_EQ(ErrorOf("topology: {type: star, spines: 2}\n"),
            "x.yaml:1:24: topology.spines applies to type leaf_spine or rail, not star");
  EXPECT_EQ(ErrorOf("topology: {type: rail, servers: 4}\n"),
            "x.yaml:1:11: topology: missing required key 'gpus_per_server' (the number of rails: "
            "GPU i of every server has its own NIC on rail i)");
  EXPECT_EQ(ErrorOf("topology: {type: rail, gpus_per_server: 4}\n"),
            "x.yaml:1:11: topology: missing required key 'servers' (the number of GPU servers)");
  EXPECT_EQ(
      ErrorOf("topology: {type: rail, servers: 2, gpus_per_server: 0}\n"),
      R"(x.yaml:1:53: topology.gpus_per_server: expected an integer from 1 to 1048576, got "0")");
  EXPECT_EQ(ErrorOf("topology: {type: star, nvlink: {rate: 1Tbps, delay: 1us}}\n"),
            "x.yaml:1:46: topology.nvlink: unknown key 'delay'; allowed keys are: rate, latency");
}

// ---- partitioning ----

// Every server's hosts in one partition.
void ExpectServersWhole(const FabricLayout& l, const Partitioning& p, uint32_t gpus) {
  for (uint32_t h = 0; h < l.host_nodes.size(); ++h)
    EXPECT_EQ(p.node_part[l.host_nodes[h]], p.node_part[l.host_nodes[h - h % gpus]])
        << "host " << h << " left its server " << h / gpus << ": " << p.Describe(0);
}

Partitioning Cut(const std::string& topology, uint32_t parts, std::string traffic = "") {
  if (traffic.empty()) traffic = "traffic:\n  - {type: all_to_all, size: 10KB}\n";
  const Scenario sc = ParseRailScenario("topology: " + topology + "\n" + traffic);
  const std::shared_ptr<const FabricLayout> l = LayoutFabric(sc);
  Partitioning p = PartitionFabric(*l, sc, parts);
  ExpectServersWhole(*l, p, static_cast<uint32_t>(sc.topology.gpus_per_server));
  return p;
}

TEST(RailPartition, RailGroupsAreCutWhole) {
  const Partitioning p = Cut(kRail, 2);
  EXPECT_EQ(p.by, "rail groups");
  for (const PartitionSize& s : p.sizes) {
    EXPECT_EQ(s.hosts, 8u);
    EXPECT_EQ(s.switches, 5u);  // a group's 4 rail leaves and one spine
  }
  // Only leaf-spine links to the other partition's spine: 8 leaves x 1.
  EXPECT_EQ(p.cut_links, 8u);
}

TEST(RailPartition, OneRailGroupGoesToMetisWithServersWhole) {
  for (uint32_t parts : {2u, 3u, 4u}) {
    const Partitioning p = Cut("{type: rail, servers: 8, gpus_per_server: 4, spines: 4}", parts);
    EXPECT_EQ(p.by, "METIS");
    uint32_t hosts = 0;
    for (const PartitionSize& s : p.sizes) {
      EXPECT_EQ(s.hosts % 4, 0u) << "whole servers only";
      hosts += s.hosts;
    }
    EXPECT_EQ(hosts, 32u);
  }
}

TEST(RailPartition, LeafGroupsSplittingAServerGoToMetis) {
  // 6 hosts per leaf, 4 GPUs per server: server 1 (hosts 4-7) spans leaves 0 and 1.
  const Partitioning split =
      Cut("{type: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 6, gpus_per_server: 4}", 2);
  EXPECT_EQ(split.by, "METIS");
  // 8 hosts per leaf: servers fit the leaves, so the leaf-group cut applies.
  const Partitioning whole =
      Cut("{type: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 8, gpus_per_server: 4}", 2);
  EXPECT_EQ(whole.by, "pods / leaf groups");
  // A k=4 fat tree has 4 hosts per pod: servers of 8 span two pods.
  EXPECT_EQ(Cut("{type: fat_tree, k: 4, gpus_per_server: 8}", 2).by, "METIS");
  EXPECT_EQ(Cut("{type: fat_tree, k: 4, gpus_per_server: 2}", 2).by, "pods / leaf groups");
}

TEST(RailPartition, TooFewServersToSeparateIsRefused) {
  // A star of 2 servers x 2 GPUs: its servers and its switch, 3 parts at most.
  EXPECT_EQ(Cut("{type: star, hosts: 4, gpus_per_server: 2}", 3).sizes.size(), 3u);
  try {
    Cut("{type: star, hosts: 4, gpus_per_server: 2}", 4);
    ADD_FAILURE() << "4 partitions of 3 separable parts";
  } catch (const PartitionError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot cut the fabric into 4 partitions: it has 3 separable parts (each GPU "
              "server's 2 hosts stay together)");
  }
}

// ---- the example and the command line ----

TEST(RailExample, AllToAllCompletes) {
  const test::SimRun r =
      test::RunScenario(LoadScenario(test::ExamplePath("rail-alltoall.yaml"), {}, std::nullopt));
  EXPECT_EQ(r.summary["flows"]["completed"], 32 * 31);
  EXPECT_EQ(r.summary["flows"]["total"], 32 * 31);
  test::ExpectConserved(r.summary);
}

// `rocesim run` of a rail scenario on 2 threads (and 2 MPI ranks, where
// mpirun exists) writes the serial run's results: every CSV byte for byte,
// and summary.json but for its `run` object (wall and CPU time, memory).
class RailCli : public test::CliTest {};

TEST_F(RailCli, PartitionedRunIsTheSameAsSerial) {
  const std::string scenario = dir_ + "rail.yaml";
  std::ofstream(scenario) << "name: rail\nseed: 3\nduration: 2ms\n"
                          << "topology: " << kRail << "\n"
                          << "switch: {pfc: {enabled: true, priorities: [3]}}\n"
                          << "host: {cc: dcqcn}\n"
                          << "monitors: {interval: 20us}\n"
                          << "traffic:\n"
                          << "  - {type: all_to_all, size: 64KB, start: 10us}\n"
                          << "  - {type: permutation, size: 200KB, start: 20us}\n";
  RunInto("serial", scenario, "");
  RunInto("threads", scenario, "--threads 2");
  EXPECT_GE(ExpectSameResults("serial", "threads").size(), 5u);
  const nlohmann::json summary =
      nlohmann::json::parse(test::ReadFile(dir_ + "threads/summary.json"));
  EXPECT_EQ(summary["flows"]["completed"], 16 * 15 + 16);
  // The cut it used, printed without -q.
  const std::string out =
      RunInto("cut", scenario, "--threads 2 --set monitors.interval=0", "", /*quiet=*/false);
  EXPECT_NE(out.find("partitions 2 (rail groups)"), std::string::npos) << out;
  if (!test::HaveMpirun()) return;
  RunInto("mpi", scenario, "", test::MpirunPrefix(2));
  ExpectSameResults("serial", "mpi");
}

}  // namespace
}  // namespace test_rail_topology
}  // namespace rocesim
