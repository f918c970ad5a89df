#include "topo/routing_check.h"

#include <algorithm>
#include <stdexcept>

namespace rocesim {

std::optional<Routing> BuiltWithout(const Routing::Adjacency& adjacency,
                                    const std::vector<uint32_t>& host_nodes,
                                    const std::vector<int32_t>& switch_index, uint64_t salt,
                                    std::span<const Routing::Link> down) {
  Routing::Adjacency without = adjacency;
  for (const Routing::Link& l : down) {
    std::erase_if(without[l.node_a], [&](const auto& e) { return e.first == l.port_a; });
    std::erase_if(without[l.node_b], [&](const auto& e) { return e.first == l.port_b; });
  }
  Routing routing;
  try {
    routing.Build(without, host_nodes, switch_index, salt);
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
  return routing;
}

std::optional<std::string> FirstDifference(const Routing& a, const Routing& b,
                                           const std::vector<int32_t>& switch_index,
                                           uint32_t num_hosts) {
  for (uint32_t node = 0; node < switch_index.size(); ++node) {
    if (switch_index[node] < 0) continue;
    const auto sw = static_cast<uint32_t>(switch_index[node]);
    if (a.Salt(sw) != b.Salt(sw)) return "switch node " + std::to_string(node) + "'s salt";
    for (uint32_t h = 0; h < num_hosts; ++h) {
      const std::span<const uint16_t> x = a.NextHops(sw, h), y = b.NextHops(sw, h);
      if (!std::equal(x.begin(), x.end(), y.begin(), y.end()))
        return "switch node " + std::to_string(node) + " towards host " + std::to_string(h) + ": " +
               std::to_string(x.size()) + " next hops against " + std::to_string(y.size()) +
               (x.size() == y.size() ? ", not the same" : "");
    }
  }
  return std::nullopt;
}

}  // namespace rocesim
