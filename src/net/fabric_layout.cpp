#include "net/fabric_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "core/setup_progress.h"
#include "core/usable_cores.h"
#include "net/switch_buffers.h"
#include "topo/topology.h"

namespace rocesim {

void FailBuild(const Scenario& scenario, std::string_view field, std::string_view msg) {
  const std::string where = scenario.Locate(field);
  if (where.empty()) throw BuildError(fmt::format("{}: {}", field, msg));
  throw BuildError(fmt::format("{}: {}: {}", where, field, msg));
}

namespace {
// Resolves link_down and packet_loss faults to the port of their link, and
// checks that every fault names what exists.
std::vector<PortId> ResolveFaultPorts(const FabricLayout& l, const Scenario& scenario) {
  std::vector<PortId> out(scenario.faults.size(), 0);
  const auto num_nodes = static_cast<int>(l.nodes.size());
  for (size_t i = 0; i < scenario.faults.size(); ++i) {
    const FaultSpec& fs = scenario.faults[i];
    const std::string field = fmt::format("faults.{}", i);
    if (fs.kind == FaultKind::kMacEntryLoss) {
      // The MAC entry that goes is the host's ToR's: the switch it is cabled to.
      const Node& tor = l.nodes[l.PeerNode(l.HostPort(static_cast<uint32_t>(fs.host)))];
      if (!tor.is_switch)
        FailBuild(scenario, field,
                  fmt::format("mac_entry_loss: host {} is not attached to a switch", fs.host));
      // Flooding (src/net/switch_flood.cpp) is modelled in the shared-buffer switch only.
      if (tor.kind != NodeKind::kSharedBuffer)
        FailBuild(scenario, field,
                  "mac_entry_loss needs switch.architecture shared_buffer (the CIOQ switch does "
                  "not model MAC tables or flooding)");
      continue;
    }
    if (fs.kind != FaultKind::kLinkDown && fs.kind != FaultKind::kPacketLoss) continue;
    for (int n : {fs.node_a, fs.node_b})
      if (n >= num_nodes)
        FailBuild(scenario, field,
                  fmt::format("node {} does not exist (the topology has nodes 0 to {})", n,
                              num_nodes - 1));
    const Node& a = l.nodes[fs.node_a];
    if (fs.port >= 0) {
      if (fs.port >= a.num_ports)
        FailBuild(
            scenario, field,
            fmt::format("node {} has ports 0 to {}, not {}", fs.node_a, a.num_ports - 1, fs.port));
      out[i] = a.first_port + static_cast<PortId>(fs.port);
      continue;
    }
    bool found = false;
    for (uint16_t p = 0; p < a.num_ports && !found; ++p)
      if (l.PeerNode(a.first_port + p) == static_cast<uint32_t>(fs.node_b)) {
        out[i] = a.first_port + p;
        found = true;
      }
    if (!found)
      FailBuild(scenario, field,
                fmt::format("no link joins nodes {} and {}", fs.node_a, fs.node_b));
  }
  return out;
}
}  // namespace

uint32_t TableThreads() {
  const uint32_t cores = std::max(1u, std::thread::hardware_concurrency());
  if (const uint32_t usable = UsableCores(); usable < cores) return usable;
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"})
    if (const char* v = std::getenv(name)) {
      const long ranks = std::strtol(v, nullptr, 10);
      if (ranks > 1) return std::max<uint32_t>(1, cores / static_cast<uint32_t>(ranks));
    }
  return cores;
}

std::vector<PortId> FabricLayout::UncuttablePorts(const Scenario& scenario) const {
  std::vector<PortId> out;
  for (size_t i = 0; i < scenario.faults.size(); ++i)
    if (scenario.faults[i].kind == FaultKind::kLinkDown) out.push_back(fault_ports[i]);
  return out;
}

uint64_t EcmpSalt(const Scenario& scenario) {
  uint64_t z = scenario.sw.ecmp_seed;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return scenario.seed ^ z ^ (z >> 31);
}

Time SyncWindow(const FabricLayout& l) {
  Time between_switches = kTimeMax, any = kTimeMax;
  for (const PortLink& p : l.ports) {
    if (p.delay <= 0) continue;
    any = std::min(any, p.delay);
    if (l.nodes[p.node].is_switch && l.nodes[l.ports[p.peer].node].is_switch)
      between_switches = std::min(between_switches, p.delay);
  }
  if (between_switches != kTimeMax) return between_switches;
  return any != kTimeMax ? any : kMicrosecond;
}

std::shared_ptr<const FabricLayout> LayoutFabric(const Scenario& scenario) {
  const Topology topo = BuildTopology(scenario.topology);
  auto layout = std::make_shared<FabricLayout>();
  FabricLayout& l = *layout;

  // Ports: each node's ports are contiguous, numbered in link order.
  std::vector<uint32_t> degree(topo.num_nodes, 0);
  for (const TopoLink& link : topo.links) {
    degree[link.a]++;
    degree[link.b]++;
  }
  l.nodes.resize(topo.num_nodes);
  l.switch_index.assign(topo.num_nodes, -1);
  const NodeKind switch_kind = scenario.sw.architecture == SwitchArchitecture::kCioq
                                   ? NodeKind::kCioq
                                   : NodeKind::kSharedBuffer;
  PortId next = 0;
  for (uint32_t n = 0; n < topo.num_nodes; ++n) {
    if (degree[n] > 0xFFFF)
      FailBuild(scenario, "topology", fmt::format("node {} has too many ports", n));
    const bool is_switch = topo.is_switch[n];
    l.nodes[n] = Node{is_switch, is_switch ? switch_kind : NodeKind::kHost, 0, next,
                      static_cast<uint16_t>(degree[n])};
    if (is_switch) {
      l.switch_index[n] = static_cast<int32_t>(l.num_switches);
      l.nodes[n].index = l.num_switches++;
    }
    next += degree[n];
  }
  l.host_nodes = topo.host_nodes;
  l.tiers = topo.tier;
  for (uint32_t h = 0; h < topo.host_nodes.size(); ++h) {
    const uint32_t n = topo.host_nodes[h];
    l.nodes[n].index = h;
    if (degree[n] != 1)
      FailBuild(scenario, "topology",
                fmt::format("host node {} has {} links; rocesim models single-homed hosts", n,
                            degree[n]));
  }
  // A kLinkArrive event names its port in 24 bits (Fabric::ScheduleArrival).
  if (next >= (1u << 24))
    FailBuild(scenario, "topology",
              fmt::format("{} ports; rocesim supports at most {}", next, 1u << 24));
  l.ports.resize(next);
  l.adjacency.resize(topo.num_nodes);
  std::vector<uint16_t> used(topo.num_nodes, 0);
  for (const TopoLink& link : topo.links) {
    const PortId pa = l.nodes[link.a].first_port + used[link.a];
    const PortId pb = l.nodes[link.b].first_port + used[link.b];
    for (auto [self, peer, node] : {std::tuple{pa, pb, link.a}, std::tuple{pb, pa, link.b}}) {
      PortLink& p = l.ports[self];
      p.node = node;
      p.peer = peer;
      p.local = used[node]++;
      p.rate_bps = link.rate_bps;
      p.delay = link.delay;
      p.error_rate = link.error_rate;
      l.adjacency[node].emplace_back(p.local, node == link.a ? link.b : link.a);
    }
  }
  l.quantum = scenario.topology.sync_window > 0 ? scenario.topology.sync_window : SyncWindow(l);
  CheckSwitchBuffers(l, scenario);  // before the forwarding tables: a refusal comes at once
  Routing::BuildProgress progress;
  if (SetupListened())
    progress = [](uint32_t done, uint32_t total) { ReportSetup("forwarding tables", done, total); };
  l.routing.Build(l.adjacency, l.host_nodes, l.switch_index, EcmpSalt(scenario), progress,
                  TableThreads());
  l.fault_ports = ResolveFaultPorts(l, scenario);
  return layout;
}

}  // namespace rocesim
