#include "sim/partition.h"

#include <fmt/format.h>
#include <metis.h>

#include <algorithm>
#include <numeric>

#include "core/units.h"
#include "net/fabric_layout.h"
#include "sim/partition_load.h"

namespace rocesim {

namespace {
// Union-find over nodes, merging the ends of zero-delay links.
struct Components {
  std::vector<uint32_t> parent;
  explicit Components(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0u); }
  uint32_t Find(uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void Join(uint32_t a, uint32_t b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

// The nodes that no cut may separate, joined: the ends of links shorter than
// the window (`f.quantum`: zero-delay links among them) and of `uncuttable`
// ports (FabricLayout::UncuttablePorts), and each GPU server's hosts, which
// share its intra-server (NVLink) domain, modelled at the hosts without
// links to cut.
Components UncutComponents(const FabricLayout& f, const Scenario& scenario,
                           const std::vector<PortId>& uncuttable) {
  Components comp(f.nodes.size());
  for (const PortLink& p : f.ports)
    if (p.delay < f.quantum) comp.Join(p.node, f.ports[p.peer].node);
  for (const uint32_t port : uncuttable)
    comp.Join(f.ports[port].node, f.ports[f.ports[port].peer].node);
  const auto gpus = static_cast<uint32_t>(scenario.topology.gpus_per_server);
  if (gpus > 1)
    for (uint32_t h = 0; h + gpus <= f.host_nodes.size(); h += gpus)
      for (uint32_t g = 1; g < gpus; ++g) comp.Join(f.host_nodes[h], f.host_nodes[h + g]);
  return comp;
}
// METIS may leave a partition empty when the graph has few more vertices
// than partitions (its balance constraints cannot all be met): each empty
// partition takes the lightest vertex (`weight`'s first constraint, ports;
// the first of equals) of the partition with the most vertices (the first
// of equals), so that every partition holds a node whenever there are as
// many vertices as partitions. The same on every rank.
void FillEmptyParts(std::vector<idx_t>& part, const std::vector<idx_t>& weight, idx_t ncon,
                    uint32_t parts) {
  std::vector<size_t> count(parts, 0);
  for (const idx_t p : part) ++count[static_cast<size_t>(p)];
  for (uint32_t empty = 0; empty < parts; ++empty) {
    if (count[empty] != 0) continue;
    const auto from =
        static_cast<idx_t>(std::max_element(count.begin(), count.end()) - count.begin());
    if (count[static_cast<size_t>(from)] < 2) return;  // fewer vertices than partitions
    size_t lightest = part.size();
    for (size_t v = 0; v < part.size(); ++v)
      if (part[v] == from &&
          (lightest == part.size() ||
           weight[v * static_cast<size_t>(ncon)] < weight[lightest * static_cast<size_t>(ncon)]))
        lightest = v;
    part[lightest] = static_cast<idx_t>(empty);
    --count[static_cast<size_t>(from)];
    ++count[empty];
  }
}

// Deals `items` (their loads given) over the partitions, as many to each as
// an even split gives (partition p gets items [p n / parts, (p + 1) n /
// parts) of a plain split), heaviest first, each to the partition with
// the least load (`part_load`, updated) that still has room: equal counts,
// loads as even as a greedy deal makes them. Ties go to the lower index, so
// every rank of an MPI job deals the same way.
std::vector<uint32_t> DealByLoad(const std::vector<uint64_t>& items,
                                 std::vector<uint64_t>* part_load) {
  const auto n = static_cast<uint32_t>(items.size());
  const auto parts = static_cast<uint32_t>(part_load->size());
  std::vector<uint32_t> room(parts);
  for (uint32_t p = 0; p < parts; ++p)
    room[p] = static_cast<uint32_t>(uint64_t{p + 1} * n / parts - uint64_t{p} * n / parts);
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return items[a] > items[b]; });
  std::vector<uint32_t> out(n);
  for (const uint32_t i : order) {
    uint32_t best = parts;
    for (uint32_t p = 0; p < parts; ++p)
      if (room[p] > 0 && (best == parts || (*part_load)[p] < (*part_load)[best])) best = p;
    out[i] = best;
    --room[best];
    (*part_load)[best] += items[i];
  }
  return out;
}

// Generated fat trees, leaf-spines and rail fabrics are cut by their
// structure: whole pods (a pod's hosts, edge and aggregation switches),
// whole leaf groups (a leaf and its hosts) or whole rail groups (a group's
// servers and its one leaf per rail), spread evenly over the partitions,
// with the core switches or spines dealt out evenly among them. Every
// partition then has the same number of hosts and switches, and only the
// links to core switches / spines of other partitions are cut. A rail group
// is a leaf group with G leaves: its leaves connect only its own servers
// and the spines, so cutting between groups cuts leaf-spine links only, as
// for a leaf-spine, and keeps whole servers together by construction
// (cutting by rail instead would split every server). Empty when the
// structure does not apply (another topology, more partitions than groups
// or top switches, a GPU server that would straddle two groups, or a link
// that must not be cut: METIS cuts around it). Node numbering as
// topo/topology.cpp builds it.
std::vector<uint32_t> StructuralCut(const FabricLayout& f, const Scenario& scenario, uint32_t parts,
                                    const std::vector<uint64_t>& load) {
  const TopologyConfig& t = scenario.topology;
  std::vector<uint32_t> part(f.nodes.size());
  // groups: pods or leaves; per group its hosts, then one or two switch
  // layers of `per_group` switches each; then `top` shared switches.
  uint32_t groups = 0, hosts_per_group = 0, switches_per_group = 0, layers = 0, top = 0;
  if (t.kind == TopologyKind::kFatTree) {
    const auto k = static_cast<uint32_t>(t.k);
    groups = k;
    hosts_per_group = k * k / 4;
    switches_per_group = k / 2;
    layers = 2;  // edge, aggregation
    top = k * k / 4;
  } else if (t.kind == TopologyKind::kLeafSpine) {
    groups = static_cast<uint32_t>(t.leaves);
    hosts_per_group = static_cast<uint32_t>(t.hosts_per_leaf);
    switches_per_group = 1;
    layers = 1;
    top = static_cast<uint32_t>(t.spines);
  } else if (t.kind == TopologyKind::kRail) {
    const auto gpus = static_cast<uint32_t>(t.gpus_per_server);
    const auto per_group =
        static_cast<uint32_t>(t.servers_per_rail_group > 0 ? t.servers_per_rail_group : t.servers);
    groups = static_cast<uint32_t>(t.servers) / per_group;
    hosts_per_group = per_group * gpus;
    switches_per_group = gpus;  // one leaf per rail
    layers = 1;
    top = static_cast<uint32_t>(t.spines);
  } else {
    return {};
  }
  // A server whose GPUs sit in two groups (hosts per pod or leaf not a
  // multiple of G) could be split: METIS, which keeps servers whole, instead.
  if (hosts_per_group % static_cast<uint32_t>(t.gpus_per_server) != 0) return {};
  if (groups < parts || top < parts ||
      f.nodes.size() != groups * (hosts_per_group + layers * switches_per_group) + top)
    return {};
  // Which group sits where does not change the cut (every group links to
  // every top switch the same way), so groups, and then top switches, go
  // where the work is least (DealByLoad).
  std::vector<uint64_t> group_load(groups, 0);
  uint32_t n = 0;
  for (uint32_t g = 0; g < groups; ++g)
    for (uint32_t h = 0; h < hosts_per_group; ++h) group_load[g] += load[n++];
  for (uint32_t l = 0; l < layers; ++l)
    for (uint32_t g = 0; g < groups; ++g)
      for (uint32_t i = 0; i < switches_per_group; ++i) group_load[g] += load[n++];
  const std::vector<uint64_t> top_load(load.begin() + n, load.end());
  std::vector<uint64_t> part_load(parts, 0);
  const std::vector<uint32_t> group_part = DealByLoad(group_load, &part_load);
  const std::vector<uint32_t> top_part = DealByLoad(top_load, &part_load);
  n = 0;
  for (uint32_t g = 0; g < groups; ++g)
    for (uint32_t h = 0; h < hosts_per_group; ++h) part[n++] = group_part[g];
  for (uint32_t l = 0; l < layers; ++l)
    for (uint32_t g = 0; g < groups; ++g)
      for (uint32_t i = 0; i < switches_per_group; ++i) part[n++] = group_part[g];
  for (uint32_t c = 0; c < top; ++c) part[n++] = top_part[c];
  return part;
}

// Every GPU server's hosts in one partition: its intra-server transfers are
// modelled at its hosts and cannot cross partitions. Both cuts above keep
// servers whole; this is the check that they did.
void CheckServersWhole(const FabricLayout& f, const Scenario& scenario,
                       const std::vector<uint32_t>& node_part) {
  const auto gpus = static_cast<uint32_t>(scenario.topology.gpus_per_server);
  if (gpus <= 1) return;
  for (uint32_t h = 0; h < f.host_nodes.size(); ++h) {
    const uint32_t first = h - h % gpus;  // GPU 0 of h's server
    if (node_part[f.host_nodes[h]] != node_part[f.host_nodes[first]])
      throw PartitionError(fmt::format(
          "the partitioning splits GPU server {}: host {} is in partition {}, host {} in "
          "partition {} (a server's hosts must share one partition)",
          h / gpus, first, node_part[f.host_nodes[first]], h, node_part[f.host_nodes[h]]));
  }
}
}  // namespace

Partitioning PartitionFabric(const FabricLayout& f, const Scenario& scenario, uint32_t parts,
                             const FabricLoad* estimate) {
  const std::vector<PortId> uncuttable = f.UncuttablePorts(scenario);
  FabricLoad own;
  if (parts <= 1) {  // nothing to balance or to cut
    own = FabricLoad{std::vector<uint64_t>(f.nodes.size(), 0), {}};
    estimate = &own;
  } else if (estimate == nullptr) {
    own = EstimateFabricLoad(f, scenario);
    estimate = &own;
  }
  const FabricLoad& traffic = *estimate;
  const std::vector<uint64_t>& load = traffic.node_frames;
  Partitioning out;
  out.parts = parts;
  const auto n = static_cast<uint32_t>(f.nodes.size());
  out.node_part.assign(n, 0);
  bool cut_by_structure = false;
  bool dealt = false;  // the vertices dealt by load, not cut by METIS (below)
  // A link shorter than the window (FabricLayout::quantum: a zero-delay
  // link, a host link shorter than the switch links, or any link shorter
  // than topology.sync_window) must not be cut. A structural cut that would
  // cut one is not used: METIS cuts around it.
  const auto too_short = [&](const PortLink& p) { return p.delay < f.quantum; };
  if (parts > 1 && uncuttable.empty() &&
      std::none_of(f.ports.begin(), f.ports.end(),
                   [](const PortLink& p) { return p.delay == 0; })) {
    if (std::vector<uint32_t> part = StructuralCut(f, scenario, parts, load);
        !part.empty() && std::none_of(f.ports.begin(), f.ports.end(), [&](const PortLink& p) {
          return too_short(p) && part[p.node] != part[f.ports[p.peer].node];
        })) {
      out.node_part = std::move(part);
      cut_by_structure = true;
    }
  }
  if (parts > 1 && !cut_by_structure) {
    Components comp = UncutComponents(f, scenario, uncuttable);
    const auto gpus = static_cast<uint32_t>(scenario.topology.gpus_per_server);
    // Vertices: the components no cut may separate, numbered in node order.
    std::vector<idx_t> vertex(n, -1);
    idx_t vertices = 0;
    for (uint32_t i = 0; i < n; ++i)
      if (comp.Find(i) == i) vertex[i] = vertices++;
    if (static_cast<uint32_t>(vertices) < parts) {
      std::string zero;
      for (const PortLink& p : f.ports)
        if (p.delay == 0) {
          zero =
              fmt::format(" (links of zero delay cannot be cut: e.g. node {} port {} to node {})",
                          p.node, p.local, f.ports[p.peer].node);
          break;
        }
      if (zero.empty())
        for (const PortLink& p : f.ports)
          if (too_short(p)) {
            zero = fmt::format(
                " (links shorter than the {} ps window{} cannot be cut: e.g. node {} port {} to "
                "node {}, {} ps)",
                f.quantum,
                scenario.topology.sync_window > 0 ? " set by topology.sync_window"
                                                  : ", the shortest link between switches,",
                p.node, p.local, f.ports[p.peer].node, p.delay);
            break;
          }
      const std::string servers =
          gpus > 1 ? fmt::format(" (each GPU server's {} hosts stay together)", gpus) : "";
      throw PartitionError(
          fmt::format("cannot cut the fabric into {} partitions: it has {} separable parts{}{}",
                      parts, vertices, zero, servers));
    }
    // Two balance constraints per vertex: its ports (plus one per host: the
    // memory a partition holds) and its share of the frames (the time it
    // runs, sim/partition_load.h), scaled to 2^20 in all to fit METIS's
    // 32-bit sums. Without traffic, ports alone.
    const uint64_t total_load = std::accumulate(load.begin(), load.end(), uint64_t{0});
    idx_t ncon = total_load > 0 ? 2 : 1;
    std::vector<idx_t> weight(static_cast<size_t>(vertices * ncon), 0);
    std::vector<std::vector<std::pair<idx_t, idx_t>>> adj(static_cast<size_t>(vertices));
    for (uint32_t i = 0; i < n; ++i) {
      const auto v = static_cast<size_t>(vertex[comp.Find(i)] * ncon);
      weight[v] += f.nodes[i].num_ports + (f.nodes[i].is_switch ? 0 : 1);
      if (ncon == 2)
        weight[v + 1] +=
            static_cast<idx_t>((static_cast<unsigned __int128>(load[i]) << 20) / total_load);
    }
    // An edge weighs what cutting it costs: 1 per link, plus the frames its
    // links carry both ways (sim/partition_load.h) scaled to 2^16 over all
    // links, so METIS cuts where few frames cross rather than where few
    // links do (fat320 in 2: 9.2 M frames cross where the fewest links
    // carried 10.7 M each way).
    const uint64_t link_frames =
        std::accumulate(traffic.port_frames.begin(), traffic.port_frames.end(), uint64_t{0});
    for (PortId q = 0; q < f.ports.size(); ++q) {
      const PortLink& p = f.ports[q];
      const idx_t a = vertex[comp.Find(p.node)], b = vertex[comp.Find(f.ports[p.peer].node)];
      if (a == b) continue;
      idx_t cost = 1;
      if (link_frames > 0)
        cost += static_cast<idx_t>(
            (static_cast<unsigned __int128>(traffic.port_frames[q] + traffic.port_frames[p.peer])
             << 16) /
            link_frames);
      adj[static_cast<size_t>(a)].emplace_back(b, cost);
    }
    std::vector<idx_t> xadj{0}, adjncy, adjwgt;
    for (auto& edges : adj) {
      // Parallel links between two vertices become one edge of their summed cost.
      std::sort(edges.begin(), edges.end());
      for (size_t e = 0; e < edges.size(); ++e) {
        if (e > 0 && edges[e].first == edges[e - 1].first) {
          adjwgt.back() += edges[e].second;
          continue;
        }
        adjncy.push_back(edges[e].first);
        adjwgt.push_back(edges[e].second);
      }
      xadj.push_back(static_cast<idx_t>(adjncy.size()));
    }
    std::vector<idx_t> part(static_cast<size_t>(vertices), 0);
    if (2 * static_cast<idx_t>(parts) > vertices) {
      // Fewer than two vertices a partition: METIS's bisections meet empty
      // pieces (and say so on stdout) and leave partitions empty, while
      // nearly every link is cut whatever the cut. The vertices are dealt
      // instead: as many to each partition as an even split gives, by their
      // frames (ports when there is no traffic), heaviest first.
      std::vector<uint64_t> vertex_load(static_cast<size_t>(vertices), 0);
      for (idx_t v = 0; v < vertices; ++v)
        vertex_load[static_cast<size_t>(v)] =
            static_cast<uint64_t>(weight[static_cast<size_t>(v * ncon + ncon - 1)]);
      std::vector<uint64_t> part_load(parts, 0);
      const std::vector<uint32_t> deal = DealByLoad(vertex_load, &part_load);
      std::copy(deal.begin(), deal.end(), part.begin());
      dealt = true;
    } else {
      idx_t nparts = static_cast<idx_t>(parts), cut = 0;
      idx_t options[METIS_NOPTIONS];
      METIS_SetDefaultOptions(options);
      options[METIS_OPTION_SEED] = 1;  // the same cut every time
      options[METIS_OPTION_NUMBERING] = 0;
      const int rc = parts <= 8
                         ? METIS_PartGraphRecursive(&vertices, &ncon, xadj.data(), adjncy.data(),
                                                    weight.data(), nullptr, adjwgt.data(), &nparts,
                                                    nullptr, nullptr, options, &cut, part.data())
                         : METIS_PartGraphKway(&vertices, &ncon, xadj.data(), adjncy.data(),
                                               weight.data(), nullptr, adjwgt.data(), &nparts,
                                               nullptr, nullptr, options, &cut, part.data());
      if (rc != METIS_OK)
        throw PartitionError(
            fmt::format("METIS could not cut the fabric into {} partitions", parts));
      FillEmptyParts(part, weight, ncon, parts);
    }
    for (uint32_t i = 0; i < n; ++i)
      out.node_part[i] = static_cast<uint32_t>(part[static_cast<size_t>(vertex[comp.Find(i)])]);
  }
  CheckServersWhole(f, scenario, out.node_part);
  out.sizes.assign(parts, PartitionSize{});
  for (uint32_t i = 0; i < n; ++i) {
    PartitionSize& s = out.sizes[out.node_part[i]];
    (f.nodes[i].is_switch ? s.switches : s.hosts)++;
    s.ports += f.nodes[i].num_ports;
    s.load += load[i];
  }
  for (uint32_t p = 0; p < parts; ++p)
    if (out.sizes[p].switches + out.sizes[p].hosts == 0)
      throw PartitionError(
          fmt::format("cannot cut the fabric into {} partitions: partition {} is empty", parts, p));
  out.by = parts == 1                                      ? ""
           : dealt                                         ? "dealt by load"
           : !cut_by_structure                             ? "METIS"
           : scenario.topology.kind == TopologyKind::kRail ? "rail groups"
                                                           : "pods / leaf groups";
  out.far_part.resize(f.ports.size());
  for (PortId i = 0; i < f.ports.size(); ++i) {
    out.far_part[i] = out.node_part[f.PeerNode(i)];
    if (traffic.port_frames.empty()) continue;
    out.frame_hops += traffic.port_frames[i];
    if (out.far_part[i] != out.node_part[f.ports[i].node]) out.cut_frames += traffic.port_frames[i];
  }
  for (const PortLink& p : f.ports) {
    const uint32_t peer_node = f.ports[p.peer].node;
    if (out.node_part[p.node] == out.node_part[peer_node] || p.node > peer_node) continue;
    ++out.cut_links;
    out.lookahead = std::min(out.lookahead, p.delay);
  }
  // Both cuts keep every link shorter than the window whole; a frame on a
  // shorter cut link could land inside the window it was sent in.
  if (out.lookahead < f.quantum)
    throw std::logic_error(
        fmt::format("partitioning cut a link of {} ps, shorter than the {} ps "
                    "window (a bug in rocesim)",
                    out.lookahead, f.quantum));
  return out;
}

uint32_t AutoPartitionsPerThread(uint64_t links, uint32_t threads) {
  const uint64_t threads_in_all = std::max(threads, 1u);
  uint32_t per_thread = 1;
  while (per_thread < kAutoMaxPartitionsPerThread &&
         links > kAutoLinksPerPartition * threads_in_all * per_thread)
    per_thread *= 2;
  return per_thread;
}

uint32_t SeparableParts(const FabricLayout& layout, const Scenario& scenario) {
  Components comp = UncutComponents(layout, scenario, layout.UncuttablePorts(scenario));
  uint32_t parts = 0;
  for (uint32_t i = 0; i < layout.nodes.size(); ++i) parts += comp.Find(i) == i ? 1 : 0;
  return parts;
}

uint32_t FitAutoThreads(uint32_t share, uint32_t ranks, uint32_t partitions,
                        uint32_t separable_parts) {
  uint32_t threads = std::max(share, 1u);
  if (partitions != 0) threads = std::min(threads, partitions);
  return std::max(std::min(threads, separable_parts / std::max(ranks, 1u)), 1u);
}

Partitioning PartitionForRun(const FabricLayout& layout, const Scenario& scenario, uint32_t ranks,
                             uint32_t threads, uint32_t per_rank, const FabricLoad* load) {
  threads = std::max(threads, 1u);
  // One estimate serves every count tried.
  FabricLoad own;
  if (load == nullptr) {
    own = EstimateFabricLoad(layout, scenario);
    load = &own;
  }
  if (per_rank != 0)
    return PartitionFabric(layout, scenario, ranks * std::max(per_rank, threads), load);
  for (uint32_t per_thread = AutoPartitionsPerThread(layout.ports.size() / 2, ranks * threads);;
       per_thread /= 2) {
    try {
      return PartitionFabric(layout, scenario, ranks * threads * per_thread, load);
    } catch (const PartitionError&) {
      if (per_thread == 1) throw;
    }
  }
}

std::string WindowNote(const Partitioning& cut, Time window, const Scenario& scenario) {
  if (scenario.topology.sync_window > 0 || cut.lookahead == kTimeMax || cut.lookahead <= window)
    return "";
  const Time longer = cut.lookahead;
  const std::string ratio =
      longer % window == 0
          ? fmt::format("{}", longer / window)
          : fmt::format("{:.1f}", static_cast<double>(longer) / static_cast<double>(window));
  return fmt::format(
      "every link this run cuts is at least {} long; topology.sync_window: {} would synchronise "
      "{} times less often than the {} window (links shorter than the window are then never cut, "
      "and a serial run ends after the same longer windows)",
      FormatTime(longer), FormatTime(longer), ratio, FormatTime(window));
}

std::string Partitioning::Describe(Time window) const {
  std::string s = by.empty() ? fmt::format("partitions {}:", parts)
                             : fmt::format("partitions {} ({}):", parts, by);
  uint64_t total_load = 0;
  for (const PartitionSize& size : sizes) total_load += size.load;
  for (uint32_t p = 0; p < parts; ++p) {
    s += fmt::format("{} {} switches {} hosts {} ports", p == 0 ? "" : " |", sizes[p].switches,
                     sizes[p].hosts, sizes[p].ports);
    if (total_load > 0)
      s += fmt::format(" {:.0f}% of frames", 100.0 * static_cast<double>(sizes[p].load) /
                                                 static_cast<double>(total_load));
  }
  s += fmt::format("; cut {} links", cut_links);
  if (frame_hops > 0)
    s += fmt::format(" ({:.1f}% of the data frames' hops cross them)",
                     100.0 * static_cast<double>(cut_frames) / static_cast<double>(frame_hops));
  if (lookahead != kTimeMax)
    s +=
        fmt::format("; lookahead {} ps (smallest cut-link delay), window {} ps", lookahead, window);
  return s;
}

}  // namespace rocesim
