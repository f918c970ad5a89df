#include "topo/routing.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>

#include "net/fabric.h"
#include "topo/topology_size.h"

namespace rocesim {

namespace {
constexpr uint64_t kRoceV2Port = 4791;
constexpr uint64_t kUdpProto = 17;

// FNV-1a over a next-hop set: the dedup map is looked up once per switch and
// destination edge, the hottest step of building a large fabric's tables.
struct PortSetHash {
  size_t operator()(const std::vector<uint16_t>& set) const {
    uint64_t h = 0xCBF29CE484222325ULL;
    for (uint16_t p : set) h = (h ^ p) * 0x100000001B3ULL;
    return static_cast<size_t>(h);
  }
};
// The switch-only graph the searches walk: switch s's links are
// links[first[s] .. first[s + 1]), each (local port, neighbour switch index).
struct SwitchGraph {
  const std::vector<uint32_t>& first;
  const std::vector<std::pair<uint16_t, uint32_t>>& links;
  const std::vector<uint32_t>& switch_node;  // switch index -> node, for errors
  const std::vector<uint32_t>& host_nodes;   // host -> node, for errors
};

// One thread's share of the searches: destination edges [begin, end), the
// distinct next-hop sets they found (offsets in the table's entries for
// these edges point here until MergePortSets), in order of first use.
struct GroupRange {
  uint32_t begin = 0, end = 0;
  std::vector<uint16_t> port_sets;
  std::vector<Routing::Entry> distinct;  // each set's (offset, count) in port_sets
  std::exception_ptr error;              // the first edge's error, if any
};

constexpr uint32_t kGroupsPerThread = 256;  // fewer edges: not worth a thread
constexpr uint32_t kMaxPortSets = 1u << 24;

void ThrowTooManySets() {
  throw std::runtime_error("topology: too many distinct next-hop sets");
}

// Breadth-first search from each edge of `range` over the switches; every
// other switch's entry towards the edge is its set of neighbours one step
// nearer. Writes table columns [begin, end) only, so ranges run in parallel.
// `progress` (one thread's) hears the edges searched by all threads.
void SearchGroups(const SwitchGraph& graph, Routing::Tables& t, GroupRange& range,
                  std::atomic<uint32_t>& searched, const Routing::BuildProgress* progress) try {
  using Entry = Routing::Entry;
  const auto num_switches = static_cast<uint32_t>(graph.switch_node.size());
  const uint32_t num_groups = t.num_groups;
  const std::vector<uint32_t>& first = graph.first;
  const auto& links = graph.links;
  std::unordered_map<std::vector<uint16_t>, uint32_t, PortSetHash> dedup;
  std::vector<int32_t> dist(num_switches);
  std::vector<uint32_t> frontier;
  std::vector<uint16_t> set;
  constexpr uint32_t kBatch = 16;
  std::vector<Entry> batch(static_cast<size_t>(num_switches) * kBatch, Entry{0, 0});
  std::vector<Entry> last_entry(num_switches, Entry{0, 0});
  uint32_t batch_first = range.begin;
  for (uint32_t g = range.begin; g < range.end; ++g) {
    const uint32_t edge = t.group_switch[g];
    std::fill(dist.begin(), dist.end(), -1);
    frontier.assign(1, edge);
    dist[edge] = 0;
    for (size_t i = 0; i < frontier.size(); ++i) {
      const uint32_t u = frontier[i];
      for (uint32_t l = first[u]; l < first[u + 1]; ++l) {
        const uint32_t v = links[l].second;
        if (dist[v] < 0) {
          dist[v] = dist[u] + 1;
          frontier.push_back(v);
        }
      }
    }
    for (uint32_t other = 0; other < num_groups; ++other)
      if (dist[t.group_switch[other]] < 0) {
        uint32_t from = 0, to = 0;
        while (t.hosts[from].group != other) ++from;
        while (t.hosts[to].group != g) ++to;
        throw std::runtime_error("topology: host node " + std::to_string(graph.host_nodes[from]) +
                                 " cannot reach host node " + std::to_string(graph.host_nodes[to]));
      }
    // A shortest path to a host of this edge is one to the edge plus the
    // last hop, so every other switch's next hops are its neighbours one
    // step nearer the edge (the set and its order as if searched from the host).
    for (uint32_t s = 0; s < num_switches; ++s) {
      if (dist[s] < 0 || s == edge) continue;
      set.clear();
      for (uint32_t l = first[s]; l < first[s + 1]; ++l)
        if (dist[links[l].second] == dist[s] - 1) set.push_back(links[l].first);
      if (set.size() > static_cast<size_t>(kMaxEcmpWays))
        throw std::runtime_error("topology: switch node " + std::to_string(graph.switch_node[s]) +
                                 " has " + std::to_string(set.size()) +
                                 " equal-cost ports towards one destination (at most " +
                                 std::to_string(kMaxEcmpWays) + ")");
      // Most switches see the same set towards many edges (a fat tree's
      // aggregation switch: its uplinks towards every other pod), so the
      // switch's previous set is tried before the hash.
      Entry& last = last_entry[s];
      const bool same_as_last =
          last.count == set.size() &&
          std::equal(set.begin(), set.end(), range.port_sets.begin() + last.offset);
      if (!same_as_last) {
        auto [it, fresh] = dedup.try_emplace(set, static_cast<uint32_t>(range.port_sets.size()));
        if (fresh) {
          range.distinct.push_back(Entry{it->second, static_cast<uint32_t>(set.size())});
          range.port_sets.insert(range.port_sets.end(), set.begin(), set.end());
          if (range.port_sets.size() >= kMaxPortSets) ThrowTooManySets();
        }
        last = Entry{it->second, static_cast<uint32_t>(set.size())};
      }
      batch[static_cast<size_t>(s) * kBatch + (g - batch_first)] = last;
    }
    // Written a batch of edges at a time: one switch's entries for the batch
    // are adjacent in the table, where an edge at a time writes one entry
    // per cache line.
    if (g + 1 == range.end || g + 1 - batch_first == kBatch) {
      const uint32_t width = g + 1 - batch_first;
      for (uint32_t sw = 0; sw < num_switches; ++sw)
        std::copy_n(batch.begin() + static_cast<size_t>(sw) * kBatch, width,
                    t.table.begin() + static_cast<size_t>(sw) * num_groups + batch_first);
      std::fill(batch.begin(), batch.end(), Entry{0, 0});
      batch_first = g + 1;
    }
    const uint32_t done = searched.fetch_add(1, std::memory_order_relaxed) + 1;
    if (progress && *progress) (*progress)(done, num_groups);
  }
} catch (...) {
  range.error = std::current_exception();
}

// Gives the sets of ranges[1..] offsets in the first range's list (now
// t.port_sets), appending those it lacks in edge order, and rewrites those
// ranges' table entries: the result is the one-thread build's, byte for byte.
void MergePortSets(Routing::Tables& t, std::vector<GroupRange>& ranges, uint32_t num_switches) {
  std::unordered_map<std::vector<uint16_t>, uint32_t, PortSetHash> global;
  for (const Routing::Entry& e : ranges[0].distinct)
    global.emplace(std::vector<uint16_t>(t.port_sets.begin() + e.offset,
                                         t.port_sets.begin() + e.offset + e.count),
                   e.offset);
  for (size_t r = 1; r < ranges.size(); ++r) {
    GroupRange& range = ranges[r];
    std::vector<uint32_t> moved(range.port_sets.size(), 0);  // local offset -> global
    for (const Routing::Entry& e : range.distinct) {
      std::vector<uint16_t> set(range.port_sets.begin() + e.offset,
                                range.port_sets.begin() + e.offset + e.count);
      auto [it, fresh] = global.try_emplace(set, static_cast<uint32_t>(t.port_sets.size()));
      if (fresh) {
        t.port_sets.insert(t.port_sets.end(), set.begin(), set.end());
        if (t.port_sets.size() >= kMaxPortSets) ThrowTooManySets();
      }
      moved[e.offset] = it->second;
    }
    for (uint32_t sw = 0; sw < num_switches; ++sw) {
      Routing::Entry* row = t.table.data() + static_cast<size_t>(sw) * t.num_groups;
      for (uint32_t g = range.begin; g < range.end; ++g)
        if (row[g].count > 0) row[g].offset = moved[row[g].offset];
    }
  }
}

}  // namespace

void Routing::Build(const std::vector<std::vector<std::pair<uint16_t, uint32_t>>>& adjacency,
                    const std::vector<uint32_t>& host_nodes,
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

  // Switch-only adjacency, by switch index: (local port, neighbour switch
  // index). Hosts are leaves the search never needs to visit: a host is
  // reachable exactly when its edge switch is.
  std::vector<uint32_t> switch_node(num_switches);
  for (size_t node = 0; node < n; ++node)
    if (switch_index[node] >= 0) switch_node[switch_index[node]] = static_cast<uint32_t>(node);
  std::vector<uint32_t> first(num_switches + 1, 0);
  std::vector<std::pair<uint16_t, uint32_t>> links;
  for (size_t s = 0; s < num_switches; ++s) {
    for (auto [port, v] : adjacency[switch_node[s]])
      if (switch_index[v] >= 0) links.emplace_back(port, static_cast<uint32_t>(switch_index[v]));
    first[s + 1] = static_cast<uint32_t>(links.size());
  }

  // The searches, one per destination edge, are independent: a large
  // fabric's (k=200: 20,000 edges over 50,000 switches) are spread over
  // `threads`, each taking a contiguous range of edges with port sets of its
  // own, merged in edge order below so the tables are the serial build's.
  const SwitchGraph graph{first, links, switch_node, host_nodes};
  const uint32_t workers =
      std::clamp<uint32_t>(std::min<uint32_t>(threads, num_groups / kGroupsPerThread), 1, 64);
  std::vector<GroupRange> ranges(workers);
  for (uint32_t w = 0; w < workers; ++w) {
    ranges[w].begin = static_cast<uint32_t>(uint64_t{num_groups} * w / workers);
    ranges[w].end = static_cast<uint32_t>(uint64_t{num_groups} * (w + 1) / workers);
  }
  std::atomic<uint32_t> searched{0};
  // Progress comes from this thread, counting every thread's searches.
  uint32_t reported = 0;
  const BuildProgress report = [&](uint32_t done, uint32_t total) {
    reported = done;
    progress(done, total);
  };
  {
    std::vector<std::jthread> pool;
    for (uint32_t w = 1; w < workers; ++w)
      pool.emplace_back([&, w] { SearchGroups(graph, t, ranges[w], searched, nullptr); });
    SearchGroups(graph, t, ranges[0], searched, progress ? &report : nullptr);
  }
  // The first range that failed holds the first edge the serial build fails on.
  for (const GroupRange& r : ranges)
    if (r.error) std::rethrow_exception(r.error);
  t.port_sets = std::move(ranges[0].port_sets);
  if (workers > 1) {
    MergePortSets(t, ranges, static_cast<uint32_t>(num_switches));
    if (progress && reported < num_groups) progress(num_groups, num_groups);
  }
  tables_ = std::move(tables);
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
