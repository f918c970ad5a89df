// Topology builders and ECMP routing (issue: workloads and topologies at
// datacenter scale): node, switch and link counts of every builder, every
// host pair reachable, and the number of equal-cost paths ECMP can use.
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "topo/topology.h"

namespace rocesim {
namespace test_topology {
namespace {

int Count(const std::vector<bool>& v, bool value) {
  int n = 0;
  for (bool b : v) n += b == value;
  return n;
}

TEST(Topology, FatTreeCounts) {
  for (int k : {2, 4, 8, 12}) {
    TopologyConfig c;
    c.kind = TopologyKind::kFatTree;
    c.k = k;
    const Topology t = BuildFatTree(c);
    EXPECT_EQ(static_cast<int>(t.host_nodes.size()), k * k * k / 4) << k;
    EXPECT_EQ(Count(t.is_switch, true), 5 * k * k / 4) << k;  // k^2/2 edge + k^2/2 agg + k^2/4 core
    EXPECT_EQ(static_cast<int>(t.links.size()), 3 * k * k * k / 4) << k;
  }
  // Seed 002's 12-port 3-layer fat tree: 432 hosts.
  TopologyConfig c;
  c.kind = TopologyKind::kFatTree;
  c.k = 12;
  EXPECT_EQ(BuildFatTree(c).host_nodes.size(), 432u);
}

TEST(Topology, LeafSpineStarDumbbellCounts) {
  TopologyConfig c;
  c.leaves = 4;
  c.spines = 3;
  c.hosts_per_leaf = 8;
  c.links_per_spine = 2;
  const Topology ls = BuildLeafSpine(c);
  EXPECT_EQ(ls.host_nodes.size(), 32u);
  EXPECT_EQ(Count(ls.is_switch, true), 7);
  EXPECT_EQ(ls.links.size(), 32u + 4 * 3 * 2);
  c.hosts = 5;
  const Topology star = BuildStar(c);
  EXPECT_EQ(star.host_nodes.size(), 5u);
  EXPECT_EQ(star.links.size(), 5u);
  c.hosts_left = 3;
  c.hosts_right = 2;
  const Topology db = BuildDumbbell(c);
  EXPECT_EQ(db.host_nodes.size(), 5u);
  EXPECT_EQ(Count(db.is_switch, true), 2);
  EXPECT_EQ(db.links.size(), 6u);
}

TEST(Topology, HpccFileK8) {
  const Topology t = BuildFromFile(std::string(ROCESIM_SOURCE_DIR) + "/bench/hpcc/fattree_k8.txt");
  EXPECT_EQ(t.host_nodes.size(), 128u);
  EXPECT_EQ(Count(t.is_switch, true), 80);
  EXPECT_EQ(t.links.size(), 384u);
}

// Counts the distinct shortest paths ECMP may take from host `src` to `dst`
// by following every next hop in the routing tables.
uint64_t EcmpPaths(const Fabric& f, uint32_t src, uint32_t dst) {
  std::function<uint64_t(PortId)> walk = [&](PortId out) -> uint64_t {
    const Node& next = f.nodes[f.ports[f.ports[out].peer].node];
    if (!next.is_switch) return f.nics[next.index].port() == f.ports[out].peer && next.index == dst;
    uint64_t paths = 0;
    for (uint16_t local : f.routing.NextHops(next.index, dst))
      paths += walk(next.first_port + local);
    return paths;
  };
  return walk(f.nics[src].port());
}

TEST(Topology, FatTreeEveryPairReachableWithExpectedEcmpPaths) {
  const std::string yaml = "topology: {type: fat_tree, k: 4}\n";
  const Simulation sim(ParseScenarioText(yaml, "t.yaml", "", {}, std::nullopt));
  const Fabric& f = sim.fabric();
  // k = 4: hosts 0-1 share an edge, 0-3 a pod; (k/2)^2 = 4 paths across pods.
  for (uint32_t a = 0; a < 16; ++a) {
    for (uint32_t b = 0; b < 16; ++b) {
      if (a == b) continue;
      const uint64_t expected = a / 2 == b / 2 ? 1 : a / 4 == b / 4 ? 2 : 4;
      EXPECT_EQ(EcmpPaths(f, a, b), expected) << a << " -> " << b;
    }
  }
}

TEST(Topology, LeafSpineEcmpPathsCountParallelLinks) {
  const std::string yaml =
      "topology: {type: leaf_spine, leaves: 2, spines: 3, hosts_per_leaf: 2, links_per_spine: 2}\n";
  const Simulation sim(ParseScenarioText(yaml, "t.yaml", "", {}, std::nullopt));
  EXPECT_EQ(EcmpPaths(sim.fabric(), 0, 1), 1u);
  EXPECT_EQ(EcmpPaths(sim.fabric(), 0, 2), 3u * 2 * 2);  // 6 uplinks, then 2 links down each spine
}

TEST(Topology, EcmpSpreadsFlowsOverUplinks) {
  // Many QPs from one host to another pod: every one of the (k/2)^2 = 16
  // core paths of a k=8 fat tree carries some of them.
  const std::string yaml = "topology: {type: fat_tree, k: 8}\n";
  const Simulation sim(ParseScenarioText(yaml, "t.yaml", "", {}, std::nullopt));
  const Fabric& f = sim.fabric();
  std::set<std::pair<uint16_t, uint16_t>> used;
  const uint32_t edge = f.nodes[f.ports[f.ports[f.nics[0].port()].peer].node].index;
  for (uint16_t sport = 49152; sport < 49152 + 512; ++sport) {
    const uint16_t up = f.routing.SelectLocal(edge, 0, 127, sport);
    const PortId agg_in = f.ports[f.nodes[f.switches[edge].node()].first_port + up].peer;
    const Node& agg = f.nodes[f.ports[agg_in].node];
    used.insert({up, f.routing.SelectLocal(agg.index, 0, 127, sport)});
  }
  EXPECT_EQ(used.size(), 16u);
}

}  // namespace
}  // namespace test_topology
}  // namespace rocesim
