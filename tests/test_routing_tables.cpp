// Routing::Build's tables against the definition they implement (topo/
// routing.h): at every switch and for every destination host, the next hops
// are exactly the local ports to neighbouring switches one hop nearer the
// host's edge switch, in the switch's port order, found here by a plain
// breadth-first search from the host over the whole graph. The build's
// shortcuts (switch-only search, batched writes, the per-switch cache of the
// last set) must not change one entry. Also: its progress reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/fabric_layout.h"
#include "scenario/scenario_reader.h"

namespace rocesim {
namespace test_routing_tables {
namespace {

// A buffer large enough for an 800-port spine's headroom (the layout checks
// every switch's buffer, net/switch_buffers.h).
std::shared_ptr<const FabricLayout> Layout(const std::string& topology) {
  return LayoutFabric(ParseScenarioText("topology: " + topology + "\nswitch: {buffer: 256MB}\n",
                                        "t.yaml", "", {}, std::nullopt));
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

// A build spread over threads (each at least 256 destination edges) merges
// its ranges' next-hop sets into the one-thread build's tables. 800 leaves:
// the leaves' uplink set is found by every range, each spine's one-port sets
// differ from range to range.
TEST(RoutingTables, ThreadsGiveTheOneThreadTables) {
  const auto l = Layout("{type: leaf_spine, leaves: 800, spines: 3, hosts_per_leaf: 1}");
  Routing one, three;
  one.Build(l->adjacency, l->host_nodes, l->switch_index, 1, {}, 1);
  std::vector<uint32_t> done;
  three.Build(
      l->adjacency, l->host_nodes, l->switch_index, 1,
      [&](uint32_t d, uint32_t total) {
        EXPECT_EQ(total, 800u);
        done.push_back(d);
      },
      3);
  ASSERT_FALSE(done.empty());
  EXPECT_EQ(done.back(), 800u);
  for (size_t i = 1; i < done.size(); ++i) EXPECT_LT(done[i - 1], done[i]);
  // The same next hops everywhere, and the same distinct sets in the same
  // places (an entry's offset from the first entry compared is the same).
  size_t compared = 0;
  const uint16_t *base_one = nullptr, *base_three = nullptr;
  for (uint32_t node = 0; node < l->switch_index.size(); ++node) {
    if (l->switch_index[node] < 0) continue;
    const uint32_t sw = one.SwitchIndex(node);
    for (uint32_t h = 0; h < l->host_nodes.size(); ++h) {
      const std::span<const uint16_t> a = one.NextHops(sw, h), b = three.NextHops(sw, h);
      ASSERT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()))
          << "switch node " << node << " host " << h;
      if (l->adjacency[l->host_nodes[h]][0].second == node) continue;  // the host's own port
      if (base_one == nullptr) {
        base_one = a.data();
        base_three = b.data();
      }
      ASSERT_EQ(a.data() - base_one, b.data() - base_three)
          << "switch node " << node << " host " << h;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 803u * 800u - 800u);
}

// A host no range can reach: every thread count names the same pair, the one
// the one-thread build meets first.
TEST(RoutingTables, ThreadsReportTheOneThreadError) {
  const auto l = Layout("{type: leaf_spine, leaves: 800, spines: 2, hosts_per_leaf: 1}");
  auto adjacency = l->adjacency;
  // Cut the last leaf's uplinks (both ends), leaving its host attached.
  const uint32_t leaf = l->adjacency[l->host_nodes.back()][0].second;
  for (auto [port, spine] : l->adjacency[leaf]) {
    if (l->switch_index[spine] < 0) continue;
    std::erase_if(adjacency[spine], [&](const auto& link) { return link.second == leaf; });
  }
  std::erase_if(adjacency[leaf],
                [&](const auto& link) { return l->switch_index[link.second] >= 0; });
  auto error = [&](uint32_t threads) -> std::string {
    Routing r;
    try {
      r.Build(adjacency, l->host_nodes, l->switch_index, 1, {}, threads);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string serial = error(1);
  EXPECT_EQ(serial, "topology: host node " + std::to_string(l->host_nodes.back()) +
                        " cannot reach host node " + std::to_string(l->host_nodes[0]));
  EXPECT_EQ(error(2), serial);
  EXPECT_EQ(error(3), serial);
}

}  // namespace
}  // namespace test_routing_tables
}  // namespace rocesim
