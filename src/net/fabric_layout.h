// The fabric's structure, computed once from the scenario and never changed:
// its nodes, every port's link (who is at the other end, rate, delay, error
// rate), the adjacency that routing searches, the ECMP tables of the intact
// fabric, and the ports that faults name. A serial run builds its Fabric's
// ports from it; the partitions of a parallel run (sim/partitioned_run.h)
// share one read-only copy and each builds only the ports it holds, while
// the partitioner (sim/partition.h) cuts the layout before any partition is
// built. Anything that needs a port it may not hold (a flow's path for its
// ideal FCT, a host's link rate) reads the layout instead.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "core/time.h"
#include "scenario/scenario.h"
#include "topo/routing.h"
#include "topo/topology.h"

namespace rocesim {

using PortId = uint32_t;

// A scenario that validates as a file but cannot be built (e.g. a buffer too
// small for its reserved and headroom carve-outs).
struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws BuildError("WHERE: FIELD: MSG"): what the scenario asks for at
// `field` (a dotted path, "switch.buffer", "faults.0") cannot be built. WHERE
// is where the file wrote it, or its nearest written section
// (Scenario::Locate), as the reader's own errors say.
[[noreturn]] void FailBuild(const Scenario& scenario, std::string_view field, std::string_view msg);

// Which model handles a node's frames.
enum class NodeKind : uint8_t {
  kHost,          // Fabric::nics
  kSharedBuffer,  // Fabric::switches (net/switch.h)
  kCioq,          // Fabric::cioq_switches (net/cioq_switch.h, seed 002 §4.1)
};

struct Node {
  bool is_switch = false;  // either switch kind (routing, faults, monitors)
  NodeKind kind = NodeKind::kHost;
  // Into the vector of its kind. Every switch of a fabric has the same
  // architecture, so a switch's index is also its switch index in Routing.
  uint32_t index = 0;
  PortId first_port = 0;
  uint16_t num_ports = 0;
};

// One side of a link, as cabled.
struct PortLink {
  uint32_t node = 0;   // owning node
  PortId peer = 0;     // the port at the other end
  uint16_t local = 0;  // index among the owning node's ports
  int64_t rate_bps = 0;
  Time delay = 0;
  double error_rate = 0;  // probability a frame sent on it is lost
};

struct FabricLayout {
  std::vector<Node> nodes;
  std::vector<PortLink> ports;        // by PortId: each node's ports contiguous, in link order
  std::vector<uint32_t> host_nodes;   // host id -> node id
  std::vector<int32_t> switch_index;  // node -> switch index, -1 for hosts
  std::vector<NodeTier> tiers;        // node -> its tier (nodes.csv)
  uint32_t num_switches = 0;
  // adjacency[node]: (local port, neighbour node), what Routing::Build searches.
  std::vector<std::vector<std::pair<uint16_t, uint32_t>>> adjacency;
  Routing routing;                  // every link up
  std::vector<PortId> fault_ports;  // per fault: its link's port (link_down, packet_loss), else 0
  // The window of the canonical synchronisation scheme: topology.sync_window,
  // or SyncWindow when that is auto.
  Time quantum = 0;

  // The port a host's NIC sends on.
  PortId HostPort(uint32_t host) const { return nodes[host_nodes[host]].first_port; }
  uint32_t PeerNode(PortId port) const { return ports[ports[port].peer].node; }
  // The ports of links a partitioning must not cut: those a link_down fault
  // takes down (frames handed over in the window of the failure would
  // otherwise still land).
  std::vector<PortId> UncuttablePorts(const Scenario& scenario) const;
};

// Walks the ECMP path that frames with five-tuple key `key` take from host
// `src` toward host `dst` under `routing`: calls visit(switch node, egress
// port) at each switch in turn, for at most `max_switches` switches, and
// returns the node the walk stopped at (dst's node once the path is whole).
template <typename Visit>
uint32_t WalkEcmpPath(const FabricLayout& l, const Routing& routing, uint32_t src, uint32_t dst,
                      uint64_t key, uint32_t max_switches, Visit&& visit) {
  PortId port = l.HostPort(src);
  for (uint32_t hop = 0; hop < max_switches; ++hop) {
    const uint32_t node = l.PeerNode(port);
    const Node& next = l.nodes[node];
    if (!next.is_switch) return node;
    port = next.first_port + routing.SelectByKey(next.index, dst, key);
    visit(node, port);
  }
  return l.PeerNode(port);
}

// How many threads search the forwarding tables (which do not depend on how
// many), at setup and when a serial run's link_down fault recomputes them:
// the cores this process's affinity mask allows when it is narrower than
// the machine (taskset, a rank bound by mpirun); else the machine's cores,
// shared by the MPI ranks started on it, each of which builds its own copy
// (OpenMPI and MPICH say how many there are).
uint32_t TableThreads();

// The salt of every switch's ECMP hash: the run's seed, mixed with
// switch.ecmp_seed through a bijective 64-bit finaliser (SplitMix64's), so
// ecmp_seed 0 leaves the seed's salt and no choice of ecmp_seed cancels the
// seed (a plain XOR gave every run with ecmp_seed == seed the salt 0).
uint64_t EcmpSalt(const Scenario& scenario);

// The window of the canonical synchronisation scheme (sim/partition.h): the
// smallest non-zero delay of a link between two switches, or, in a fabric
// without such links (a star), of any link; 1 us if every link has zero
// delay. A partitioning never cuts a link shorter than it, so every cut's
// lookahead is at least the window. It depends on the scenario alone: a
// serial run ends after the same windows as a partitioned one.
//
// Why switch links and not every link: host links are often the shortest
// (a rack's cables against the fabric's), and a window as short as them
// would cost a partitioned run a barrier per host-link delay although a cut
// between switches leaves the far side a fabric link's delay to learn of a
// frame. Hosts on shorter links stay with their switch instead; a fabric
// then cannot be cut into more partitions than it has switches (or groups
// of switches joined by zero-delay links).
//
// This is the default (topology.sync_window: auto). Switch links of two
// lengths (short inside pods, long to the cores) give the shorter, though a
// cut by pods cuts only the longer: topology.sync_window sets the window
// instead, and links shorter than it are then never cut (a start-up note
// says when a run's cut would allow a longer window: WindowNote in
// sim/partition.h).
Time SyncWindow(const FabricLayout& layout);

// Lays out `scenario`'s fabric. Throws BuildError for a topology rocesim
// cannot model (a multi-homed host, too many ports) or a fault that names a
// node or link the topology lacks.
std::shared_ptr<const FabricLayout> LayoutFabric(const Scenario& scenario);

}  // namespace rocesim
