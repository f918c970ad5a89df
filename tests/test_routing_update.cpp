// Routing::Rerouted (topo/routing_update.cpp) against Routing::Build: tables
// derived from the old ones after links go down and come back must give the
// next hops a fresh build of the fabric without the down links gives, at
// every switch towards every host, and be refused exactly when the build
// throws (a host cut off). Also: only the destination edges whose distances
// change are searched again (a fat tree's link failure: one edge or one pod's).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/fabric_layout.h"
#include "scenario/scenario_reader.h"
#include "topo/routing.h"
#include "topo/routing_check.h"

namespace rocesim {
namespace test_routing_update {
namespace {

using Adjacency = Routing::Adjacency;
using Link = Routing::Link;

struct Fabric {
  Adjacency adjacency;
  std::vector<uint32_t> host_nodes;
  std::vector<int32_t> switch_index;
  std::vector<Link> switch_links;  // every link between two switches
  std::vector<Link> host_links;    // every host's link (host end first)
};

// Connects nodes a and b with each one's next local port.
void Connect(Fabric& f, uint32_t a, uint32_t b) {
  const auto pa = static_cast<uint16_t>(f.adjacency[a].size());
  const auto pb = static_cast<uint16_t>(f.adjacency[b].size());
  f.adjacency[a].emplace_back(pa, b);
  f.adjacency[b].emplace_back(pb, a);
  const Link link{a, pa, b, pb};
  (f.switch_index[a] >= 0 && f.switch_index[b] >= 0 ? f.switch_links : f.host_links)
      .push_back(link);
}

Fabric FromLayout(const FabricLayout& l) {
  Fabric f;
  f.adjacency = l.adjacency;
  f.host_nodes = l.host_nodes;
  f.switch_index = l.switch_index;
  for (uint32_t a = 0; a < l.adjacency.size(); ++a)
    for (auto [pa, b] : l.adjacency[a]) {
      if (b < a) continue;  // each link once, from its lower node
      uint16_t pb = 0;
      for (auto [p, n] : l.adjacency[b])
        if (n == a && l.ports[l.nodes[b].first_port + p].peer == l.nodes[a].first_port + pa) pb = p;
      const Link link{a, pa, b, pb};
      (l.switch_index[a] >= 0 && l.switch_index[b] >= 0 ? f.switch_links : f.host_links)
          .push_back(link);
    }
  return f;
}

Fabric LayoutFabricOf(const std::string& topology) {
  return FromLayout(*LayoutFabric(ParseScenarioText(
      "topology: " + topology + "\nswitch: {buffer: 256MB}\n", "t.yaml", "", {}, std::nullopt)));
}

// `switches` switches on a random spanning tree plus `extra` random links
// (parallel links allowed), two hosts on each of the first half of them.
Fabric RandomFabric(uint32_t seed, uint32_t switches, uint32_t extra) {
  std::mt19937 rng(seed);
  Fabric f;
  const uint32_t edges = switches / 2, hosts = 2 * edges;
  f.adjacency.resize(switches + hosts);
  f.switch_index.assign(switches + hosts, -1);
  for (uint32_t s = 0; s < switches; ++s) f.switch_index[s] = static_cast<int32_t>(s);
  for (uint32_t s = 1; s < switches; ++s) Connect(f, s, static_cast<uint32_t>(rng() % s));
  for (uint32_t i = 0; i < extra; ++i) {
    const uint32_t a = rng() % switches, b = rng() % switches;
    if (a != b) Connect(f, a, b);
  }
  for (uint32_t h = 0; h < hosts; ++h) {
    f.host_nodes.push_back(switches + h);
    Connect(f, switches + h, h / 2);
  }
  return f;
}

// A fresh build of `f` without `down`, or none where the build throws.
std::optional<Routing> Built(const Fabric& f, const std::vector<Link>& down) {
  return BuiltWithout(f.adjacency, f.host_nodes, f.switch_index, 7, down);
}

void ExpectSameNextHops(const Fabric& f, const Routing& want, const Routing& got,
                        const std::string& what) {
  const std::optional<std::string> difference =
      FirstDifference(want, got, f.switch_index, static_cast<uint32_t>(f.host_nodes.size()));
  EXPECT_FALSE(difference) << what << ": " << *difference;
}

// What the comparisons rest on: a link down changes some next hop, and the
// difference is named.
TEST(RoutingUpdate, FirstDifferenceNamesWhereTwoTablesDisagree) {
  const Fabric f = LayoutFabricOf("{type: fat_tree, k: 4}");
  const auto hosts = static_cast<uint32_t>(f.host_nodes.size());
  const std::optional<Routing> base = Built(f, {});
  const std::optional<Routing> around = Built(f, {f.switch_links[0]});
  ASSERT_TRUE(base && around);
  EXPECT_FALSE(FirstDifference(*base, *base, f.switch_index, hosts));
  const std::optional<std::string> d = FirstDifference(*base, *around, f.switch_index, hosts);
  ASSERT_TRUE(d);
  EXPECT_NE(d->find("switch node "), std::string::npos) << *d;
  EXPECT_NE(d->find(" towards host "), std::string::npos) << *d;
}

// Every link between switches down alone, and back up.
void ExpectEachLinkDownAndUpMatches(const Fabric& f) {
  const std::optional<Routing> base = Built(f, {});
  ASSERT_TRUE(base);
  for (const Link& link : f.switch_links) {
    const std::vector<Link> down{link};
    const std::string what =
        "link node " + std::to_string(link.node_a) + " port " + std::to_string(link.port_a);
    const std::optional<Routing> want = Built(f, down);
    const std::optional<Routing> got = base->Rerouted(f.adjacency, f.host_nodes, {}, down, 1);
    ASSERT_EQ(want.has_value(), got.has_value()) << what;
    if (!want) continue;
    ExpectSameNextHops(f, *want, *got, what + " down");
    const std::optional<Routing> back = got->Rerouted(f.adjacency, f.host_nodes, down, {}, 1);
    ASSERT_TRUE(back) << what;
    ExpectSameNextHops(f, *base, *back, what + " up again");
  }
}

TEST(RoutingUpdate, FatTreeEachLinkDownAndUpMatchesAFreshBuild) {
  ExpectEachLinkDownAndUpMatches(LayoutFabricOf("{type: fat_tree, k: 4}"));
}

TEST(RoutingUpdate, LeafSpineWithParallelLinksMatchesAFreshBuild) {
  ExpectEachLinkDownAndUpMatches(LayoutFabricOf(
      "{type: leaf_spine, leaves: 5, spines: 3, hosts_per_leaf: 2, links_per_spine: 2}"));
}

TEST(RoutingUpdate, RailFabricMatchesAFreshBuild) {
  ExpectEachLinkDownAndUpMatches(LayoutFabricOf(
      "{type: rail, servers: 8, gpus_per_server: 4, servers_per_rail_group: 4, spines: 4}"));
}

TEST(RoutingUpdate, HpccFileFatTreeMatchesAFreshBuild) {
  ExpectEachLinkDownAndUpMatches(
      LayoutFabricOf("{type: file, file: " ROCESIM_SOURCE_DIR "/bench/hpcc/fattree_k8.txt}"));
}

// Random meshes (distances of every kind, bridges whose loss cuts edges
// apart), with links going down and coming back in random order, several at
// once: each step's tables come from the step before's, as a run's do.
TEST(RoutingUpdate, RandomMeshesThroughRandomFailuresMatchAFreshBuild) {
  int refused = 0, derived = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    const uint32_t switches = 6 + seed % 14;
    const Fabric f = RandomFabric(seed, switches, switches + seed % 9);
    std::mt19937 rng(seed * 7919);
    std::optional<Routing> current = Built(f, {});
    ASSERT_TRUE(current);
    std::vector<Link> routed_around;  // what `current` goes around
    std::vector<Link> down;
    for (int step = 0; step < 12; ++step) {
      // One to three links between switches change; now and then a host's
      // link is down too, for this step only.
      for (uint32_t changes = 1 + rng() % 3; changes > 0; --changes) {
        const Link l = f.switch_links[rng() % f.switch_links.size()];
        const auto it = std::find(down.begin(), down.end(), l);
        if (it == down.end()) {
          down.push_back(l);
        } else {
          down.erase(it);
        }
      }
      std::vector<Link> down_now = down;
      if (rng() % 8 == 0) down_now.push_back(f.host_links[rng() % f.host_links.size()]);
      const std::string what = "seed " + std::to_string(seed) + " step " + std::to_string(step);
      const std::optional<Routing> want = Built(f, down_now);
      const std::optional<Routing> got =
          current->Rerouted(f.adjacency, f.host_nodes, routed_around, down_now, 1 + step % 2);
      ASSERT_EQ(want.has_value(), got.has_value()) << what;
      if (!got) {
        ++refused;
        continue;  // the run keeps its routes
      }
      ++derived;
      ExpectSameNextHops(f, *want, *got, what);
      current = got;
      routed_around = down_now;
    }
  }
  // Both outcomes were exercised.

  EXPECT_GT(refused, 50);
  EXPECT_GT(derived, 250);
}

// What is searched again at k = 8 (32 edges, 4 per pod): an edge's uplink
// leaves only that edge further from one aggregation switch; an aggregation
// switch's core link leaves that core further from the pod's 4 edges. Every
// other edge's columns only lose (or regain) the port.
TEST(RoutingUpdate, AFatTreeLinkFailureSearchesOneEdgeOrOnePod) {
  const Fabric f = LayoutFabricOf("{type: fat_tree, k: 8}");
  const std::optional<Routing> base = Built(f, {});
  ASSERT_TRUE(base);
  uint32_t searched = 0;
  auto reroute = [&](const Routing& from, const std::vector<Link>& before,
                     const std::vector<Link>& after) {
    searched = 0;
    std::optional<Routing> r = from.Rerouted(f.adjacency, f.host_nodes, before, after, 1,
                                             [&](uint32_t, uint32_t all) { searched = all; });
    EXPECT_TRUE(r);
    return r;
  };
  // Sort the switch links by tier: an edge switch has hosts.
  std::vector<uint8_t> is_edge(f.adjacency.size(), 0);
  for (const Link& l : f.host_links)
    is_edge[l.node_a] = is_edge[l.node_b] = 1;  // the host's end too: never a switch link's
  int edge_links = 0, core_links = 0;
  for (const Link& l : f.switch_links) {
    const bool edge_link = is_edge[l.node_a] || is_edge[l.node_b];
    const uint32_t want = edge_link ? 1 : 4;
    const std::optional<Routing> around = reroute(*base, {}, {l});
    ASSERT_EQ(searched, want) << "node " << l.node_a << " port " << l.port_a;
    // The repair brings the same edges nearer again.
    const std::optional<Routing> back = reroute(*around, {l}, {});
    ASSERT_EQ(searched, want) << "node " << l.node_a << " port " << l.port_a << " repaired";
    ExpectSameNextHops(f, *base, *back, "repaired");
    ++(edge_link ? edge_links : core_links);
  }
  EXPECT_EQ(edge_links, 128);
  EXPECT_EQ(core_links, 128);
}

// Links that fail together converge one by one, each convergence around all
// of them (Simulation::RecomputeRoutes): the first builds the tables, the
// rest find them right and keep them (the same memory, nothing searched).
TEST(RoutingUpdate, LinksFailingTogetherAreRoutedAroundOnce) {
  const Fabric f = LayoutFabricOf("{type: fat_tree, k: 4}");
  const std::optional<Routing> base = Built(f, {});
  ASSERT_TRUE(base);
  const std::vector<Link> both{f.switch_links[0], f.switch_links[5]};
  const std::optional<Routing> first = base->Rerouted(f.adjacency, f.host_nodes, {}, both, 1);
  ASSERT_TRUE(first);
  ExpectSameNextHops(f, *Built(f, both), *first, "both down");
  bool searched = false;
  const std::vector<Link> swapped{both[1], both[0]};
  const std::optional<Routing> second = first->Rerouted(
      f.adjacency, f.host_nodes, both, swapped, 1, [&](uint32_t, uint32_t) { searched = true; });
  ASSERT_TRUE(second);
  EXPECT_FALSE(searched);
  const uint32_t sw = first->SwitchIndex(f.switch_links[0].node_a);
  EXPECT_EQ(first->NextHops(sw, 0).data(), second->NextHops(sw, 0).data());
}

}  // namespace
}  // namespace test_routing_update
}  // namespace rocesim
