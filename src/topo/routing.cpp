#include "topo/routing.h"

#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include "net/fabric.h"
#include "topo/routing_search.h"

namespace rocesim {

namespace {
constexpr uint64_t kRoceV2Port = 4791;
constexpr uint64_t kUdpProto = 17;

}  // namespace

void Routing::Build(const Adjacency& adjacency, const std::vector<uint32_t>& host_nodes,
                    const std::vector<int32_t>& switch_index, uint64_t salt,
                    const BuildProgress& progress, uint32_t threads) {
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

  std::vector<uint32_t> all_groups(num_groups);
  std::iota(all_groups.begin(), all_groups.end(), 0u);
  routing_search::SearchGroups(routing_search::MakeSwitchGraph(adjacency, switch_index, host_nodes),
                               t, all_groups, threads, progress);
  Adopt(std::move(tables));
}

void Routing::Adopt(std::shared_ptr<const Tables> tables) {
  tables_ = std::move(tables);
  const Tables& t = *tables_;
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
