#include "sim/partition_load.h"

#include "net/fabric_layout.h"
#include "transport/flow.h"
#include "workload/generators.h"

namespace rocesim {

namespace {
// Adds the data frames of flow `id` (as Simulation::BuildFlows numbers it).
void AddFlow(const FabricLayout& layout, int64_t mtu, const FlowSpec& s, uint32_t id,
             FabricLoad& load) {
  const auto src = static_cast<uint32_t>(s.src), dst = static_cast<uint32_t>(s.dst);
  const uint64_t key = Routing::FlowKey(src, dst, s.sport != 0 ? s.sport : QpSourcePort(id));
  const auto frames = static_cast<uint64_t>((s.size_bytes + mtu - 1) / mtu);
  // Its two hosts and the switches on its path, as FlowRoutes walks it
  // (a shortest path visits each switch at most once), and the port
  // each of them sends it out of.
  load.node_frames[layout.host_nodes[src]] += frames;
  load.port_frames[layout.HostPort(src)] += frames;
  load.node_frames[WalkEcmpPath(layout, layout.routing, src, dst, key, layout.num_switches,
                                [&](uint32_t node, PortId out) {
                                  load.node_frames[node] += frames;
                                  load.port_frames[out] += frames;
                                })] += frames;
}

FabricLoad NoLoad(const FabricLayout& layout) {
  return FabricLoad{std::vector<uint64_t>(layout.nodes.size(), 0),
                    std::vector<uint64_t>(layout.ports.size(), 0)};
}
}  // namespace

FabricLoad EstimateFabricLoad(const FabricLayout& layout, const Scenario& scenario) {
  // One entry at a time: only one expansion is held at once.
  FabricLoad load = NoLoad(layout);
  const std::vector<int64_t> host_rates = HostLinkRates(layout);
  uint32_t id = 0;
  for (size_t i = 0; i < scenario.traffic.size(); ++i)
    for (const FlowSpec& s :
         ExpandTraffic(scenario.traffic[i], i, scenario.seed, host_rates, scenario.host.mtu_bytes))
      AddFlow(layout, scenario.host.mtu_bytes, s, id++, load);
  return load;
}

FabricLoad EstimateFabricLoad(const FabricLayout& layout, const Scenario& scenario,
                              const std::vector<ExpandedTraffic>& traffic) {
  FabricLoad load = NoLoad(layout);
  uint32_t id = 0;
  for (const ExpandedTraffic& x : traffic)
    for (const FlowSpec& s : x.flows) AddFlow(layout, scenario.host.mtu_bytes, s, id++, load);
  return load;
}

}  // namespace rocesim
