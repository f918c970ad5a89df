// Topology builders: each produces the same plain graph (nodes, which are
// switches, links with rate and delay) that the simulation builder wires up.
// Hosts always get host ids 0..H-1 in the order of `host_nodes`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"
#include "scenario/scenario.h"

namespace rocesim {

struct TopoLink {
  uint32_t a = 0;
  uint32_t b = 0;
  int64_t rate_bps = 0;
  Time delay = 0;
  double error_rate = 0;  // probability a frame is lost on this link (each direction)
};

// A node's tier in its topology (nodes.csv): fat tree host / tor / agg /
// core, leaf_spine host / leaf / spine, rail host / rail (a rail group's
// leaf for one GPU index) / spine, star and dumbbell host / tor, and
// host / switch for a topology file, which says no more.
enum class NodeTier : uint8_t { kHost, kTor, kAgg, kCore, kLeaf, kSpine, kRail, kSwitch };
std::string_view NodeTierName(NodeTier tier);

struct Topology {
  uint32_t num_nodes = 0;
  std::vector<bool> is_switch;
  std::vector<NodeTier> tier;        // per node
  std::vector<uint32_t> host_nodes;  // host id -> node id
  std::vector<TopoLink> links;
};

// star: hosts 0..N-1 on switch N.
Topology BuildStar(const TopologyConfig& cfg);
// dumbbell: hosts_left on switch A, hosts_right on switch B, A-B one fabric link.
Topology BuildDumbbell(const TopologyConfig& cfg);
// leaf_spine: leaves x hosts_per_leaf hosts; every leaf to every spine with
// links_per_spine parallel links (oversubscription follows from the rates).
Topology BuildLeafSpine(const TopologyConfig& cfg);
// fat_tree: k-ary 3-tier fat tree (Al-Fares et al.): k pods of k/2 edge and
// k/2 aggregation switches, (k/2)^2 cores, k^3/4 hosts.
Topology BuildFatTree(const TopologyConfig& cfg);
// rail: a rail-optimized fabric (NVIDIA DGX SuperPOD H100 reference
// architecture's compute fabric; Wang et al., "Rail-only", arXiv:2307.12169,
// §2): servers x gpus_per_server hosts,
// host = server * G + gpu. Rail group g (servers_per_rail_group consecutive
// servers) has one leaf per rail i, node hosts + g * G + i, cabled to GPU i
// of each of its servers; every leaf links to every spine with
// links_per_spine parallel links. Same-rail traffic within a group turns at
// its leaf; everything else crosses a spine.
Topology BuildRail(const TopologyConfig& cfg);
// file: the HPCC simulator's topology format, already parsed.
Topology BuildFromFile(const std::string& path);

Topology BuildTopology(const TopologyConfig& cfg);

}  // namespace rocesim
