// Shortest-path ECMP forwarding. Every host hangs off one switch port (its
// edge switch), so the hosts of one edge share their routes at every other
// switch: for every switch and destination edge, the set of local ports on a
// shortest path is precomputed once (BFS from each edge switch), and the
// edge itself forwards to the host's port. Tables grow with switches x edges,
// not switches x hosts (a k=32 fat tree: 1,280 x 512 entries, not x 8,192).
// Identical port sets are stored once, so a fat tree's tables hold a handful
// of distinct sets per switch. A packet picks among the set with a
// hash of its five-tuple (src IP, dst IP, UDP sport, UDP dport 4791, UDP) and
// the switch's own salt, so one QP keeps one path and switches do not all
// make the same choice (no polarisation).
//
// The tables are immutable once built and shared by copies of a Routing: the
// partitions of a parallel run (sim/partitioned_run.h) all forward by one
// set. A link_down fault's convergence derives new tables from the old
// (Rerouted): only the destinations whose shortest paths the change
// lengthens or shortens are searched again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/packet.h"

namespace rocesim {

struct Fabric;

class Routing {
 public:
  // adjacency[node] lists (local port, neighbour node); hosts are nodes
  // host_nodes[0..H-1]. Throws std::runtime_error if a host is unreachable.
  // `progress`, when set, hears (edges done, edges) after each destination
  // edge's search: a 65,536-host fabric's tables take seconds to build.
  // `threads` search the edges in parallel (each at least 256 edges; the
  // tables are the same for any count).
  using Adjacency = std::vector<std::vector<std::pair<uint16_t, uint32_t>>>;
  using BuildProgress = std::function<void(uint32_t done, uint32_t total)>;
  void Build(const Adjacency& adjacency, const std::vector<uint32_t>& host_nodes,
             const std::vector<int32_t>& switch_index, uint64_t salt,
             const BuildProgress& progress = {}, uint32_t threads = 1);

  // A link by its two ends' nodes and local ports.
  struct Link {
    uint32_t node_a = 0;
    uint16_t port_a = 0;
    uint32_t node_b = 0;
    uint16_t port_b = 0;
    bool operator==(const Link&) const = default;
  };
  // These tables, built for `adjacency` (the whole fabric, as given to Build)
  // without the links `before`, changed to route around the links `after`
  // instead: the next hops Build gives for `adjacency` without `after`'s
  // links, at every switch towards every host (where a set sits in the
  // tables may differ). Links that come back up are added first, then those
  // that went down are taken out, one at a time; a destination edge is
  // searched again (by `threads`) only when a change moves some switch nearer
  // to it or farther from it, else only the ends' sets change. A fat tree's
  // link failure searches one edge (edge to aggregation) or a pod's edges
  // (aggregation to core) of all of them (topo/routing_update.cpp);
  // `progress` hears (edges searched, edges to search). None when a host is
  // cut off (its own link is down, or no path joins two edges), as Build
  // would throw.
  std::optional<Routing> Rerouted(const Adjacency& adjacency,
                                  const std::vector<uint32_t>& host_nodes,
                                  std::span<const Link> before, std::span<const Link> after,
                                  uint32_t threads, const BuildProgress& progress = {}) const;

  // The five-tuple key a QP's packets carry (computed once per QP and direction).
  static uint64_t FlowKey(uint32_t src, uint32_t dst, uint16_t sport);
  // Global port a switch forwards `pkt` to.
  uint32_t SelectPort(const Fabric& f, uint32_t node, const Packet& pkt) const;
  // Local port index chosen at switch `sw` for a packet with that flow key.
  uint16_t SelectByKey(uint32_t sw, uint32_t dst, uint64_t flow_key) const {
    return SelectByKey(sw, salt_[sw], dst, flow_key);
  }
  // The same with the switch's salt (Salt(sw)) at hand: the shared-buffer
  // switch keeps it beside its other per-frame fields. Inline: every switch
  // hop of every packet asks.
  uint16_t SelectByKey(uint32_t sw, uint64_t salt, uint32_t dst, uint64_t flow_key) const {
    const HostRoute host = hosts_[dst];
    if (group_switch_[host.group] == sw) return host.port;
    const Entry e = table_[static_cast<size_t>(sw) * num_groups_ + host.group];
    if (e.count == 1) return port_sets_[e.offset];
    // The switch's salt decorrelates its choice from its neighbours' (no polarisation).
    const uint64_t h = Mix(flow_key ^ salt);
    // h % count; a fat tree's counts are powers of two, where a mask gives the
    // same pick without a division.
    const uint32_t count = e.count;
    const uint64_t pick = (count & (count - 1)) == 0 ? h & (count - 1) : h % count;
    return port_sets_[e.offset + pick];
  }
  // Switch `sw`'s ECMP hash salt.
  uint64_t Salt(uint32_t sw) const { return salt_[sw]; }
  // The switch index of switch node `node` (what SelectByKey takes).
  uint32_t SwitchIndex(uint32_t node) const {
    return static_cast<uint32_t>(tables_->switch_index[node]);
  }
  // Every local port on a shortest path from switch `sw` to host `dst`.
  std::span<const uint16_t> NextHops(uint32_t sw, uint32_t dst) const {
    const HostRoute& host = hosts_[dst];
    if (group_switch_[host.group] == sw) return {&host.port, 1};
    const Entry& e = table_[static_cast<size_t>(sw) * num_groups_ + host.group];
    return {port_sets_ + e.offset, e.count};
  }
  // Local port index chosen at switch `sw` for a flow's five-tuple.
  uint16_t SelectLocal(uint32_t sw, uint32_t src, uint32_t dst, uint16_t sport) const {
    return SelectByKey(sw, dst, FlowKey(src, dst, sport));
  }

 private:
  // The 64-bit finaliser of MurmurHash3: every input bit affects every output bit.
  static uint64_t Mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    return x;
  }

 public:
  // What Build computes (public for the builder's helpers in routing.cpp).
  // 4 bytes: the table is the largest per-switch structure (k=32: 655 K entries).
  struct Entry {
    uint32_t offset : 24;  // into port_sets_ (distinct sets only: small)
    uint32_t count : 8;    // equal-cost ports (Build rejects more than 255)
  };
  // Where a host hangs off: its edge's group and the edge's local port to it
  // (one load per hop for both).
  struct HostRoute {
    uint32_t group = 0;
    uint16_t port = 0;
  };
  // What Build computes; copies of this Routing share it.
  struct Tables {
    uint32_t num_groups = 0;             // edge switches with hosts
    std::vector<int32_t> switch_index;   // node -> switch index, -1 for hosts
    std::vector<HostRoute> hosts;        // by host
    std::vector<uint32_t> group_switch;  // group -> switch index of the edge
    std::vector<Entry> table;            // [switch * num_groups + group], not for the edge
    std::vector<uint16_t> port_sets;     // concatenated local port lists
    std::vector<Entry> sets;             // each distinct list in port_sets, once
    std::vector<uint64_t> salt;          // per switch
  };

 private:
  // Points the cached arrays below at `tables`.
  void Adopt(std::shared_ptr<const Tables> tables);

  std::shared_ptr<const Tables> tables_;
  // Tables' arrays, cached: a hop reads them without going through tables_.
  uint32_t num_groups_ = 0;
  const HostRoute* hosts_ = nullptr;
  const uint32_t* group_switch_ = nullptr;
  const Entry* table_ = nullptr;
  const uint16_t* port_sets_ = nullptr;
  const uint64_t* salt_ = nullptr;
};

}  // namespace rocesim
