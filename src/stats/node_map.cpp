#include "stats/node_map.h"

#include <fmt/format.h>

#include <map>

#include "core/checked_write.h"
#include "core/units.h"

namespace rocesim {

std::string NodesCsv(const FabricLayout& l) {
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out), "node,kind,tier,index,name\n");
  std::map<NodeTier, uint32_t> next_index;
  for (uint32_t n = 0; n < l.nodes.size(); ++n) {
    const NodeTier tier = n < l.tiers.size()
                              ? l.tiers[n]
                              : (l.nodes[n].is_switch ? NodeTier::kSwitch : NodeTier::kHost);
    // Hosts are numbered by host id (nodes in host-id order for every topology).
    const uint32_t index = l.nodes[n].is_switch ? next_index[tier]++ : l.nodes[n].index;
    const std::string_view name = NodeTierName(tier);
    fmt::format_to(std::back_inserter(out), "{},{},{},{},{}{}\n", n,
                   l.nodes[n].is_switch ? "switch" : "host", name, index, name, index);
  }
  return std::string(out.data(), out.size());
}

std::string LinksCsv(const FabricLayout& l) {
  fmt::memory_buffer out;
  fmt::format_to(std::back_inserter(out),
                 "node_a,port_a,node_b,port_b,rate_bps,delay_ps,error_rate\n");
  for (PortId p = 0; p < l.ports.size(); ++p) {
    const PortLink& a = l.ports[p];
    if (a.peer < p) continue;  // each link once, from its lower port
    const PortLink& b = l.ports[a.peer];
    fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{},{}\n", a.node, a.local, b.node,
                   b.local, a.rate_bps, a.delay, FormatFraction(a.error_rate));
  }
  return std::string(out.data(), out.size());
}

void WriteNodeMap(const FabricLayout& layout, const std::string& dir) {
  WriteFileChecked(dir + "/nodes.csv", NodesCsv(layout));
  WriteFileChecked(dir + "/links.csv", LinksCsv(layout));
}

}  // namespace rocesim
