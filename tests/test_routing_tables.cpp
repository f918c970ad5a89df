// Routing::Build's tables against the definition they implement (topo/
// routing.h): at every switch and for every destination host, the next hops
// are exactly the local ports to neighbouring switches one hop nearer the
// host's edge switch, in the switch's port order, found here by a plain
// breadth-first search from the host over the whole graph. The build's
// shortcuts (switch-only search, batched writes, the per-switch cache of the
// last set) must not change one entry. Also: its progress reports.
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "net/fabric_layout.h"
#include "scenario/scenario_reader.h"

namespace rocesim {
namespace {

std::shared_ptr<const FabricLayout> Layout(const std::string& topology) {
  return LayoutFabric(
      ParseScenarioText("topology: " + topology + "\n", "t.yaml", "", {}, std::nullopt));
}

// Hop distance of every node from `from`; only switches pass a search on.
std::vector<int> Distances(const FabricLayout& l, uint32_t from) {
  std::vector<int> dist(l.adjacency.size(), -1);
  std::deque<uint32_t> queue{from};
  dist[from] = 0;
  while (!queue.empty()) {
    const uint32_t u = queue.front();
    queue.pop_front();
    if (u != from && l.switch_index[u] < 0) continue;
    for (auto [port, v] : l.adjacency[u])
      if (dist[v] < 0) {
        dist[v] = dist[u] + 1;
        queue.push_back(v);
      }
  }
  return dist;
}

void ExpectTablesMatchTheDefinition(const FabricLayout& l) {
  for (uint32_t host = 0; host < l.host_nodes.size(); ++host) {
    const std::vector<int> dist = Distances(l, l.host_nodes[host]);
    for (uint32_t node = 0; node < l.adjacency.size(); ++node) {
      const int32_t sw = l.switch_index[node];
      if (sw < 0) continue;
      std::vector<uint16_t> expected;
      for (auto [port, v] : l.adjacency[node])
        if (dist[v] == dist[node] - 1 && (l.switch_index[v] >= 0 || v == l.host_nodes[host]))
          expected.push_back(port);
      const auto hops = l.routing.NextHops(static_cast<uint32_t>(sw), host);
      EXPECT_EQ(std::vector<uint16_t>(hops.begin(), hops.end()), expected)
          << "switch node " << node << " towards host " << host;
    }
  }
}

TEST(RoutingTables, FatTreeMatchesShortestPathDefinition) {
  ExpectTablesMatchTheDefinition(*Layout("{type: fat_tree, k: 6}"));
}

TEST(RoutingTables, LeafSpineWithParallelLinksMatches) {
  ExpectTablesMatchTheDefinition(
      *Layout("{type: leaf_spine, leaves: 5, spines: 3, hosts_per_leaf: 3, links_per_spine: 2}"));
}

TEST(RoutingTables, RailFabricMatches) {
  ExpectTablesMatchTheDefinition(*Layout(
      "{type: rail, servers: 8, gpus_per_server: 4, servers_per_rail_group: 4, spines: 4}"));
}

TEST(RoutingTables, HpccFileFatTreeMatches) {
  ExpectTablesMatchTheDefinition(
      *Layout("{type: file, file: " ROCESIM_SOURCE_DIR "/bench/hpcc/fattree_k8.txt}"));
}

// More destination edges than one batch of the build (16): k = 8 has 32.
TEST(RoutingTables, FatTreeAcrossBuildBatchesMatches) {
  ExpectTablesMatchTheDefinition(*Layout("{type: fat_tree, k: 8}"));
}

TEST(RoutingTables, BuildReportsEachDestinationEdge) {
  const auto l = Layout("{type: fat_tree, k: 4}");  // 8 edges
  Routing r;
  std::vector<std::pair<uint32_t, uint32_t>> seen;
  r.Build(l->adjacency, l->host_nodes, l->switch_index, 1,
          [&](uint32_t done, uint32_t total) { seen.emplace_back(done, total); });
  ASSERT_EQ(seen.size(), 8u);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(seen[i], std::make_pair(i + 1, 8u));
}

}  // namespace
}  // namespace rocesim
