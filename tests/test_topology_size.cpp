// Tests of the topology size computed from a configuration (topo/topology_size.h)
// against the topology actually built, and of the reader's refusals that use it.
#include <gtest/gtest.h>

#include <algorithm>

#include "scenario/scenario_reader.h"
#include "sim_test_support.h"
#include "topo/topology.h"
#include "topo/topology_size.h"

namespace rocesim {
namespace test_topology_size {
namespace {

TopologyConfig ConfigOf(const std::string& topology_yaml) {
  return ParseScenarioText("topology: " + topology_yaml + "\n", "x.yaml", "", {}, std::nullopt)
      .topology;
}

// Every count SizeOfTopology predicts equals the built graph's.
void ExpectSizeMatchesBuild(const std::string& topology_yaml) {
  SCOPED_TRACE(topology_yaml);
  const TopologyConfig cfg = ConfigOf(topology_yaml);
  const TopologySize size = SizeOfTopology(cfg);
  const Topology topo = BuildTopology(cfg);
  std::vector<int64_t> degree(topo.num_nodes, 0);
  for (const TopoLink& l : topo.links) {
    degree[l.a]++;
    degree[l.b]++;
  }
  int64_t switches = 0, max_switch_degree = 0;
  for (uint32_t n = 0; n < topo.num_nodes; ++n) {
    if (!topo.is_switch[n]) continue;
    ++switches;
    max_switch_degree = std::max(max_switch_degree, degree[n]);
  }
  EXPECT_EQ(size.hosts, static_cast<int64_t>(topo.host_nodes.size()));
  EXPECT_EQ(size.switches, switches);
  EXPECT_EQ(size.ports, static_cast<int64_t>(topo.links.size()) * 2);
  int64_t role_max = 0;
  for (const SwitchRole& r : size.roles) role_max = std::max(role_max, r.ports);
  EXPECT_EQ(role_max, max_switch_degree);
}

TEST(TopologySize, MatchesTheBuiltGraph) {
  ExpectSizeMatchesBuild("{type: star, hosts: 7}");
  ExpectSizeMatchesBuild("{type: dumbbell, hosts_left: 3, hosts_right: 5}");
  ExpectSizeMatchesBuild("{type: leaf_spine, leaves: 3, spines: 2, hosts_per_leaf: 4}");
  ExpectSizeMatchesBuild(
      "{type: leaf_spine, leaves: 2, spines: 5, hosts_per_leaf: 2, links_per_spine: 2}");
  ExpectSizeMatchesBuild("{type: fat_tree, k: 6}");
  ExpectSizeMatchesBuild(
      "{type: rail, servers: 4, gpus_per_server: 2, spines: 3, servers_per_rail_group: 2}");
}

TEST(TopologySize, EstimateCountsPortsHostsSwitchesAndRoutes) {
  // Star of 4: 8 ports, 4 hosts, 1 switch, a 1 x 1 routing table.
  EXPECT_EQ(EstimatedFabricBytes(SizeOfTopology(ConfigOf("{type: star, hosts: 4}"))),
            8 * 768 + 4 * 512 + 1024 + 4);
  // Fat tree k = 8: 768 ports (384 links), 128 hosts, 80 switches x 32 edges of routes.
  EXPECT_EQ(EstimatedFabricBytes(SizeOfTopology(ConfigOf("{type: fat_tree, k: 8}"))),
            768 * 768 + 128 * 512 + 80 * 1024 + 80 * 32 * 4);
  EXPECT_GT(PhysicalMemoryBytes(), 0);
}

TEST(TopologySizeErrors, TooManyPortsNamesTheFieldAndTheLimit) {
  EXPECT_EQ(test::ScenarioErrorOf("topology: {type: star, hosts: 65536}"),
            "x.yaml:1:31: topology.hosts: each switch would have 65536 ports; a node has at "
            "most 65535");
  EXPECT_EQ(test::ScenarioErrorOf("topology: {type: dumbbell, hosts_left: 65535}"),
            "x.yaml:1:40: topology.hosts_left: each left switch would have 65536 ports; a node "
            "has at most 65535");
  EXPECT_EQ(test::ScenarioErrorOf(
                "topology: {type: leaf_spine, leaves: 70000, spines: 1, hosts_per_leaf: 1}"),
            "x.yaml:1:38: topology.leaves: each spine would have 70000 ports; a node has at "
            "most 65535");
  // Within the limit, the same star parses.
  EXPECT_EQ(ConfigOf("{type: star, hosts: 65535}").hosts, 65535);
}

// A next-hop set holds at most 255 ports: a leaf with more uplinks is
// refused while reading, naming the field, not when its tables are built.
TEST(TopologySizeErrors, TooManyEqualCostPortsNamesTheField) {
  EXPECT_EQ(test::ScenarioErrorOf(
                "topology: {type: leaf_spine, leaves: 2, spines: 256, hosts_per_leaf: 1}"),
            "x.yaml:1:49: topology.spines: a switch would have 256 equal-cost ports towards one "
            "destination; ECMP spreads over at most 255");
  EXPECT_NE(test::ScenarioErrorOf("topology: {type: leaf_spine, leaves: 2, spines: 2, "
                                  "hosts_per_leaf: 1, links_per_spine: 200}")
                .find("topology.links_per_spine: a switch would have 400 equal-cost ports"),
            std::string::npos);
  // 255 uplinks build.
  EXPECT_EQ(ConfigOf("{type: leaf_spine, leaves: 2, spines: 255, hosts_per_leaf: 1}").spines, 255);
}

TEST(TopologySizeErrors, FabricLargerThanMemoryIsRefusedWithItsEstimate) {
  // k = 2000: 2e9 hosts and a 2e6 x 2e6 routing table, far beyond any machine.
  const std::string err = test::ScenarioErrorOf("topology: {type: fat_tree, k: 2000}");
  EXPECT_NE(err.find("x.yaml:1:31: topology.k: the fabric (2000000000 hosts, 5000000 switches"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("GB of memory"), std::string::npos) << err;
}

}  // namespace
}  // namespace test_topology_size
}  // namespace rocesim
