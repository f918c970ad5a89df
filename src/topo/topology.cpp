#include "topo/topology.h"

#include "topo/hpcc_topology_file.h"

namespace rocesim {

namespace {
// Appends `count` nodes of one tier and returns the id of the first.
uint32_t AddNodes(Topology& t, uint32_t count, NodeTier tier) {
  const bool is_switch = tier != NodeTier::kHost;
  const uint32_t first = t.num_nodes;
  t.num_nodes += count;
  t.is_switch.resize(t.num_nodes, is_switch);
  t.tier.resize(t.num_nodes, tier);
  if (!is_switch)
    for (uint32_t i = 0; i < count; ++i) t.host_nodes.push_back(first + i);
  return first;
}
void Link(Topology& t, uint32_t a, uint32_t b, int64_t rate, Time delay) {
  t.links.push_back(TopoLink{a, b, rate, delay, 0});
}
}  // namespace

std::string_view NodeTierName(NodeTier tier) {
  switch (tier) {
    case NodeTier::kHost:
      return "host";
    case NodeTier::kTor:
      return "tor";
    case NodeTier::kAgg:
      return "agg";
    case NodeTier::kCore:
      return "core";
    case NodeTier::kLeaf:
      return "leaf";
    case NodeTier::kSpine:
      return "spine";
    case NodeTier::kRail:
      return "rail";
    case NodeTier::kSwitch:
      break;
  }
  return "switch";
}

Topology BuildStar(const TopologyConfig& cfg) {
  Topology t;
  const uint32_t hosts = AddNodes(t, static_cast<uint32_t>(cfg.hosts), NodeTier::kHost);
  const uint32_t sw = AddNodes(t, 1, NodeTier::kTor);
  for (int i = 0; i < cfg.hosts; ++i)
    Link(t, hosts + static_cast<uint32_t>(i), sw, cfg.host_rate_bps, cfg.host_delay);
  return t;
}

Topology BuildDumbbell(const TopologyConfig& cfg) {
  Topology t;
  const uint32_t hosts =
      AddNodes(t, static_cast<uint32_t>(cfg.hosts_left + cfg.hosts_right), NodeTier::kHost);
  const uint32_t left = AddNodes(t, 1, NodeTier::kTor);
  const uint32_t right = AddNodes(t, 1, NodeTier::kTor);
  for (int i = 0; i < cfg.hosts_left + cfg.hosts_right; ++i)
    Link(t, hosts + static_cast<uint32_t>(i), i < cfg.hosts_left ? left : right, cfg.host_rate_bps,
         cfg.host_delay);
  Link(t, left, right, cfg.fabric_rate_bps, cfg.fabric_delay);
  return t;
}

Topology BuildLeafSpine(const TopologyConfig& cfg) {
  Topology t;
  const uint32_t hosts =
      AddNodes(t, static_cast<uint32_t>(cfg.leaves * cfg.hosts_per_leaf), NodeTier::kHost);
  const uint32_t leaves = AddNodes(t, static_cast<uint32_t>(cfg.leaves), NodeTier::kLeaf);
  const uint32_t spines = AddNodes(t, static_cast<uint32_t>(cfg.spines), NodeTier::kSpine);
  for (int l = 0; l < cfg.leaves; ++l) {
    for (int h = 0; h < cfg.hosts_per_leaf; ++h)
      Link(t, hosts + static_cast<uint32_t>(l * cfg.hosts_per_leaf + h),
           leaves + static_cast<uint32_t>(l), cfg.host_rate_bps, cfg.host_delay);
    for (int s = 0; s < cfg.spines; ++s)
      for (int k = 0; k < cfg.links_per_spine; ++k)
        Link(t, leaves + static_cast<uint32_t>(l), spines + static_cast<uint32_t>(s),
             cfg.fabric_rate_bps, cfg.fabric_delay);
  }
  return t;
}

Topology BuildRail(const TopologyConfig& cfg) {
  Topology t;
  const auto gpus = static_cast<uint32_t>(cfg.gpus_per_server);
  const auto servers = static_cast<uint32_t>(cfg.servers);
  const auto per_group = static_cast<uint32_t>(
      cfg.servers_per_rail_group > 0 ? cfg.servers_per_rail_group : cfg.servers);
  const uint32_t groups = servers / per_group;  // the reader checks that it divides
  // Nodes: hosts server-major, then leaves group-major, then spines, so that a
  // rail group's hosts and leaves are contiguous blocks as a leaf_spine's
  // leaf groups are (the structural cut in sim/partition.cpp relies on it).
  const uint32_t hosts = AddNodes(t, servers * gpus, NodeTier::kHost);
  const uint32_t leaves = AddNodes(t, groups * gpus, NodeTier::kRail);
  const uint32_t spines = AddNodes(t, static_cast<uint32_t>(cfg.spines), NodeTier::kSpine);
  for (uint32_t g = 0; g < groups; ++g) {
    for (uint32_t rail = 0; rail < gpus; ++rail) {
      const uint32_t leaf = leaves + g * gpus + rail;
      for (uint32_t s = g * per_group; s < (g + 1) * per_group; ++s)
        Link(t, hosts + s * gpus + rail, leaf, cfg.host_rate_bps, cfg.host_delay);
      for (int sp = 0; sp < cfg.spines; ++sp)
        for (int k = 0; k < cfg.links_per_spine; ++k)
          Link(t, leaf, spines + static_cast<uint32_t>(sp), cfg.fabric_rate_bps, cfg.fabric_delay);
    }
  }
  return t;
}

Topology BuildFatTree(const TopologyConfig& cfg) {
  Topology t;
  const uint32_t k = static_cast<uint32_t>(cfg.k);
  const uint32_t half = k / 2;
  const uint32_t hosts = AddNodes(t, k * k * k / 4, NodeTier::kHost);
  const uint32_t edges = AddNodes(t, k * half, NodeTier::kTor);
  const uint32_t aggs = AddNodes(t, k * half, NodeTier::kAgg);
  const uint32_t cores = AddNodes(t, half * half, NodeTier::kCore);
  for (uint32_t pod = 0; pod < k; ++pod) {
    for (uint32_t e = 0; e < half; ++e) {
      const uint32_t edge = edges + pod * half + e;
      for (uint32_t h = 0; h < half; ++h)
        Link(t, hosts + (pod * half + e) * half + h, edge, cfg.host_rate_bps, cfg.host_delay);
      for (uint32_t a = 0; a < half; ++a)
        Link(t, edge, aggs + pod * half + a, cfg.fabric_rate_bps, cfg.fabric_delay);
    }
    // Aggregation switch a of every pod reaches cores a*k/2 .. a*k/2 + k/2 - 1.
    for (uint32_t a = 0; a < half; ++a)
      for (uint32_t c = 0; c < half; ++c)
        Link(t, aggs + pod * half + a, cores + a * half + c, cfg.core_rate_bps, cfg.core_delay);
  }
  return t;
}

Topology BuildFromFile(const std::string& path) {
  const HpccTopology file = ReadHpccTopologyFile(path);
  Topology t;
  t.num_nodes = static_cast<uint32_t>(file.nodes);
  t.is_switch = file.is_switch;
  for (uint32_t n = 0; n < t.num_nodes; ++n)
    t.tier.push_back(t.is_switch[n] ? NodeTier::kSwitch : NodeTier::kHost);
  for (uint32_t n = 0; n < t.num_nodes; ++n)
    if (!t.is_switch[n]) t.host_nodes.push_back(n);
  for (const auto& l : file.links)
    t.links.push_back(TopoLink{static_cast<uint32_t>(l.a), static_cast<uint32_t>(l.b), l.rate_bps,
                               l.delay, l.error_rate});
  return t;
}

Topology BuildTopology(const TopologyConfig& cfg) {
  Topology t;
  switch (cfg.kind) {
    case TopologyKind::kStar:
      t = BuildStar(cfg);
      break;
    case TopologyKind::kDumbbell:
      t = BuildDumbbell(cfg);
      break;
    case TopologyKind::kLeafSpine:
      t = BuildLeafSpine(cfg);
      break;
    case TopologyKind::kFatTree:
      t = BuildFatTree(cfg);
      break;
    case TopologyKind::kRail:
      t = BuildRail(cfg);
      break;
    case TopologyKind::kFile:
      return BuildFromFile(cfg.file);  // per-link error rates
  }
  for (TopoLink& l : t.links) l.error_rate = cfg.error_rate;
  return t;
}

}  // namespace rocesim
