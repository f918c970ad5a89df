// The size of a topology computed from its configuration alone, so that the
// scenario reader can refuse a fabric rocesim cannot build (a switch with more
// ports than a node can number, more memory than the machine has) naming the
// field that made it so, instead of failing deep inside the build
// (std::bad_alloc, "node has too many ports").
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"

namespace rocesim {

// Node::num_ports and every local port index are uint16_t (net/fabric_layout.h).
inline constexpr int64_t kMaxPortsPerNode = 0xFFFF;

// One kind of switch in a generated topology and the configuration key whose
// value grows its port count most (what an error about it names).
struct SwitchRole {
  std::string_view name;  // "switch", "leaf", "spine", ...
  int64_t count = 0;      // switches of this role
  int64_t ports = 0;      // ports on each
  std::string_view key;   // topology.<key> to name when `ports` is too many
};

struct TopologySize {
  int64_t hosts = 0;
  int64_t switches = 0;
  int64_t ports = 0;          // both ends of every link
  int64_t edge_switches = 0;  // switches hosts hang off (routing table columns)
  std::vector<SwitchRole> roles;
  // The most equal-cost next hops one switch has towards one destination,
  // and the topology.<key> that sets it.
  int64_t widest_ecmp = 1;
  std::string_view ecmp_key = "type";
};

// A next-hop set holds at most this many ports (topo/routing.h).
inline constexpr int64_t kMaxEcmpWays = 255;

// Every type but kFile (whose size is in its file). Counts in int64: a
// configuration the reader accepted field by field may still overflow int.
TopologySize SizeOfTopology(const TopologyConfig& cfg);

// A lower bound on the bytes the built fabric takes (ports with their queues,
// NICs, switches, the routing table of switches x edge switches); measured
// on fat trees (k = 16, 32), see the constants in topology_size.cpp.
int64_t EstimatedFabricBytes(const TopologySize& size);

// The machine's physical memory in bytes (sysconf), 0 if unknown.
int64_t PhysicalMemoryBytes();

}  // namespace rocesim
