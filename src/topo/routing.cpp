#include "topo/routing.h"

#include <map>
#include <stdexcept>
#include <string>

#include "net/fabric.h"

namespace rocesim {

namespace {
constexpr uint64_t kRoceV2Port = 4791;
constexpr uint64_t kUdpProto = 17;
}  // namespace

void Routing::Build(const std::vector<std::vector<std::pair<uint16_t, uint32_t>>>& adjacency,
                    const std::vector<uint32_t>& host_nodes,
                    const std::vector<int32_t>& switch_index, uint64_t salt) {
  const size_t n = adjacency.size();
  auto tables = std::make_shared<Tables>();
  Tables& t = *tables;
  const auto num_hosts = static_cast<uint32_t>(host_nodes.size());
  t.switch_index = switch_index;
  size_t num_switches = 0;
  for (int32_t s : switch_index)
    if (s >= 0) ++num_switches;
  t.salt.resize(num_switches);
  for (size_t node = 0; node < n; ++node)
    if (switch_index[node] >= 0)
      t.salt[switch_index[node]] = Mix(salt ^ (node * 0x9E3779B97F4A7C15ULL));

  // Each host hangs off one switch port (its edge); hosts of one edge share
  // their routes everywhere else.
  std::vector<uint32_t> group_node;  // edge switch node per group
  std::map<uint32_t, uint32_t> group_of_node;
  t.hosts.assign(num_hosts, HostRoute{});
  for (uint32_t h = 0; h < num_hosts; ++h) {
    const auto& links = adjacency[host_nodes[h]];
    const bool attached = links.size() == 1 && switch_index[links[0].second] >= 0;
    if (!attached) {
      // Down (its link failed), or not cabled to a switch: nothing reaches it.
      const uint32_t other = host_nodes[h == 0 && num_hosts > 1 ? 1 : 0];
      throw std::runtime_error("topology: host node " + std::to_string(other) +
                               " cannot reach host node " + std::to_string(host_nodes[h]));
    }
    const uint32_t edge = links[0].second;
    for (auto [port, v] : adjacency[edge])
      if (v == host_nodes[h]) {
        t.hosts[h].port = port;
        break;
      }
    auto [it, fresh] = group_of_node.try_emplace(edge, static_cast<uint32_t>(group_node.size()));
    if (fresh) group_node.push_back(edge);
    t.hosts[h].group = it->second;
  }
  const auto num_groups = static_cast<uint32_t>(group_node.size());
  t.num_groups = num_groups;
  t.group_switch.resize(num_groups);
  for (uint32_t g = 0; g < num_groups; ++g)
    t.group_switch[g] = static_cast<uint32_t>(switch_index[group_node[g]]);
  t.table.assign(num_switches * num_groups, Entry{0, 0});

  std::map<std::vector<uint16_t>, uint32_t> dedup;
  std::vector<int32_t> dist(n);
  std::vector<uint32_t> frontier;
  std::vector<uint16_t> set;
  for (uint32_t g = 0; g < num_groups; ++g) {
    const uint32_t edge = group_node[g];
    std::fill(dist.begin(), dist.end(), -1);
    frontier.assign(1, edge);
    dist[edge] = 0;
    // BFS from the edge switch; only switches forward, so hosts are leaves.
    for (size_t i = 0; i < frontier.size(); ++i) {
      const uint32_t u = frontier[i];
      if (switch_index[u] < 0) continue;
      for (auto [port, v] : adjacency[u]) {
        (void)port;
        if (dist[v] < 0) {
          dist[v] = dist[u] + 1;
          frontier.push_back(v);
        }
      }
    }
    for (uint32_t other : host_nodes)
      if (dist[other] < 0) {
        uint32_t target = 0;
        while (t.hosts[target].group != g) ++target;
        throw std::runtime_error("topology: host node " + std::to_string(other) +
                                 " cannot reach host node " + std::to_string(host_nodes[target]));
      }
    // A shortest path to a host of this edge is one to the edge plus the
    // last hop, so every other switch's next hops are its neighbours one
    // step nearer the edge (the set and its order as if searched from the host).
    for (size_t node = 0; node < n; ++node) {
      const int32_t s = switch_index[node];
      if (s < 0 || dist[node] < 0 || node == edge) continue;
      set.clear();
      for (auto [port, v] : adjacency[node])
        if (dist[v] == dist[node] - 1 && switch_index[v] >= 0) set.push_back(port);
      if (set.size() > 255)
        throw std::runtime_error("topology: switch node " + std::to_string(node) + " has " +
                                 std::to_string(set.size()) +
                                 " equal-cost ports towards one destination (at most 255)");
      auto [it, fresh] = dedup.try_emplace(set, static_cast<uint32_t>(t.port_sets.size()));
      if (fresh) t.port_sets.insert(t.port_sets.end(), set.begin(), set.end());
      if (t.port_sets.size() >= (1u << 24))
        throw std::runtime_error("topology: too many distinct next-hop sets");
      t.table[static_cast<size_t>(s) * num_groups + g] =
          Entry{it->second, static_cast<uint32_t>(set.size())};
    }
  }
  tables_ = std::move(tables);
  num_groups_ = t.num_groups;
  hosts_ = t.hosts.data();
  group_switch_ = t.group_switch.data();
  table_ = t.table.data();
  port_sets_ = t.port_sets.data();
  salt_ = t.salt.data();
}

uint64_t Routing::FlowKey(uint32_t src, uint32_t dst, uint16_t sport) {
  return (uint64_t{src} << 32 | dst) ^ Mix(uint64_t{sport} << 32 | kRoceV2Port << 8 | kUdpProto);
}

uint32_t Routing::SelectPort(const Fabric& f, uint32_t node, const Packet& pkt) const {
  return f.nodes[node].first_port + SelectByKey(SwitchIndex(node), pkt.dst, pkt.flow_key);
}

}  // namespace rocesim
