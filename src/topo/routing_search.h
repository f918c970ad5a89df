// The searches behind Routing's tables (topo/routing.h), shared by the
// build at setup (every destination edge) and by a link_down's update
// (topo/routing_update.cpp: only the edges whose shortest paths changed).
// Internal to topo/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "topo/routing.h"

namespace rocesim::routing_search {

using Adjacency = Routing::Adjacency;

// FNV-1a over a next-hop set: the dedup map is looked up once per switch and
// destination edge, the hottest step of building a large fabric's tables.
struct PortSetHash {
  size_t operator()(const std::vector<uint16_t>& set) const {
    uint64_t h = 0xCBF29CE484222325ULL;
    for (uint16_t p : set) h = (h ^ p) * 0x100000001B3ULL;
    return static_cast<size_t>(h);
  }
};

// A set's offset into the tables' port lists has 24 bits (Routing::Entry).
inline constexpr uint32_t kMaxPortSets = 1u << 24;
[[noreturn]] void ThrowTooManySets();

// The switch-only graph the searches walk: switch s's links are
// links[first[s] .. first[s + 1]), each (local port, neighbour switch index),
// in the switch's port order (its order in `adjacency`), leaving out the
// links `without`. Hosts are leaves a search never needs to visit: a host is
// reachable exactly when its edge switch is.
struct SwitchGraph {
  std::vector<uint32_t> first;
  std::vector<std::pair<uint16_t, uint32_t>> links;
  std::vector<uint32_t> switch_node;                  // switch index -> node, for errors
  const std::vector<uint32_t>* host_nodes = nullptr;  // host -> node, for errors
};
// Each switch's node, by switch index (switch_index inverted).
std::vector<uint32_t> SwitchNodes(const std::vector<int32_t>& switch_index);

SwitchGraph MakeSwitchGraph(const Adjacency& adjacency, const std::vector<int32_t>& switch_index,
                            const std::vector<uint32_t>& host_nodes,
                            std::span<const Routing::Link> without = {});

// Searches from each destination edge (group) of `groups` over `graph` and
// writes those groups' columns of t.table: each switch's set of neighbours
// one hop nearer the edge, in its port order. New distinct sets go at the end
// of t.port_sets (t.sets lists every distinct one, in order of first use);
// the other columns are left alone. `threads` share the groups (each at
// least 256); the tables are the same for any count. Throws
// std::runtime_error if an edge cannot reach another, or a switch has more
// than kMaxEcmpWays equal-cost ports. `progress` hears (groups searched,
// groups.size()).
void SearchGroups(const SwitchGraph& graph, Routing::Tables& t, std::span<const uint32_t> groups,
                  uint32_t threads, const Routing::BuildProgress& progress);

}  // namespace rocesim::routing_search
