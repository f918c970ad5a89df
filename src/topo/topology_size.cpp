#include "topo/topology_size.h"

#include <unistd.h>

#include <limits>

namespace rocesim {
namespace {

// From the peak resident size of `rocesim run --check` on fat trees (13.6 MB
// at k = 16, 58.6 MB at k = 32: about 850 bytes per port once hosts and
// switches are spread over their ports), rounded down so that the estimate
// stays a lower bound and only a fabric that cannot fit is refused.
constexpr int64_t kBytesPerPort = 768;
constexpr int64_t kBytesPerHost = 512;
constexpr int64_t kBytesPerSwitch = 1024;
constexpr int64_t kBytesPerRouteEntry = 4;  // Routing::Entry, one per switch x edge

// Saturating: a configuration the size check refuses may overflow int64.
int64_t Mul(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}
int64_t Add(int64_t a, int64_t b) {
  int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<int64_t>::max() : r;
}

}  // namespace

TopologySize SizeOfTopology(const TopologyConfig& cfg) {
  TopologySize s;
  const auto role = [&](std::string_view name, int64_t count, int64_t ports, std::string_view key) {
    s.roles.push_back({name, count, ports, key});
    s.switches = Add(s.switches, count);
    s.ports = Add(s.ports, Mul(count, ports));
  };
  switch (cfg.kind) {
    case TopologyKind::kStar:
      s.hosts = cfg.hosts;
      role("switch", 1, cfg.hosts, "hosts");
      s.edge_switches = 1;
      break;
    case TopologyKind::kDumbbell:
      s.hosts = int64_t{cfg.hosts_left} + cfg.hosts_right;
      role("left switch", 1, int64_t{cfg.hosts_left} + 1, "hosts_left");
      role("right switch", 1, int64_t{cfg.hosts_right} + 1, "hosts_right");
      s.edge_switches = 2;
      break;
    case TopologyKind::kLeafSpine: {
      const int64_t uplinks = int64_t{cfg.spines} * cfg.links_per_spine;
      s.hosts = int64_t{cfg.leaves} * cfg.hosts_per_leaf;
      role("leaf", cfg.leaves, cfg.hosts_per_leaf + uplinks,
           cfg.hosts_per_leaf >= uplinks ? "hosts_per_leaf" : "spines");
      role("spine", cfg.spines, int64_t{cfg.leaves} * cfg.links_per_spine, "leaves");
      s.edge_switches = cfg.leaves;
      // A leaf reaches another leaf's hosts over every uplink.
      s.widest_ecmp = uplinks;
      s.ecmp_key = cfg.spines >= cfg.links_per_spine ? "spines" : "links_per_spine";
      break;
    }
    case TopologyKind::kFatTree: {
      const int64_t k = cfg.k;
      s.hosts = k * k * k / 4;
      role("tor", k * k / 2, k, "k");
      role("agg", k * k / 2, k, "k");
      role("core", k * k / 4, k, "k");
      s.edge_switches = k * k / 2;
      s.widest_ecmp = k / 2;  // a ToR's uplinks, an aggregation switch's
      s.ecmp_key = "k";
      break;
    }
    case TopologyKind::kRail: {
      const int64_t per_group =
          cfg.servers_per_rail_group > 0 ? cfg.servers_per_rail_group : cfg.servers;
      const int64_t groups = cfg.servers / per_group;
      const int64_t uplinks = int64_t{cfg.spines} * cfg.links_per_spine;
      const int64_t leaves = groups * cfg.gpus_per_server;
      s.hosts = int64_t{cfg.servers} * cfg.gpus_per_server;
      role("rail leaf", leaves, per_group + uplinks,
           per_group >= uplinks ? "servers_per_rail_group" : "spines");
      role("spine", cfg.spines, leaves * cfg.links_per_spine, "servers");
      s.edge_switches = leaves;
      s.widest_ecmp = uplinks;
      s.ecmp_key = cfg.spines >= cfg.links_per_spine ? "spines" : "links_per_spine";
      break;
    }
    case TopologyKind::kFile:
      break;
  }
  s.ports = Add(s.ports, s.hosts);  // each host's one port
  return s;
}

int64_t EstimatedFabricBytes(const TopologySize& size) {
  // In double: a refused configuration may overflow int64 here.
  const double bytes = static_cast<double>(size.ports) * kBytesPerPort +
                       static_cast<double>(size.hosts) * kBytesPerHost +
                       static_cast<double>(size.switches) * kBytesPerSwitch +
                       static_cast<double>(size.switches) *
                           static_cast<double>(size.edge_switches) * kBytesPerRouteEntry;
  return bytes >= 9e18 ? int64_t{9'000'000'000'000'000'000} : static_cast<int64_t>(bytes);
}

int64_t PhysicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<int64_t>(pages) * page_size;
}

}  // namespace rocesim
