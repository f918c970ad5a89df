#include "topo/routing_search.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>

#include "topo/topology_size.h"

namespace rocesim::routing_search {

namespace {

using Entry = Routing::Entry;

// One thread's share of the searches: `groups`, and the distinct next-hop
// sets they found (their columns' offsets point here until MergeRanges), in
// order of first use.
struct GroupRange {
  std::span<const uint32_t> groups;
  std::vector<uint16_t> port_sets;
  std::vector<Entry> distinct;  // each set's (offset, count) in port_sets
  std::exception_ptr error;     // the first group's error, if any
};

constexpr uint32_t kGroupsPerThread = 256;  // fewer edges: not worth a thread

// Breadth-first search from each edge of `range` over the switches; every
// other switch's entry towards the edge is its set of neighbours one step
// nearer. Writes the range's table columns only, so ranges run in parallel.
// `progress` (one thread's) hears the edges searched by all threads.
void SearchRange(const SwitchGraph& graph, Routing::Tables& t, GroupRange& range,
                 std::atomic<uint32_t>& searched, uint32_t total,
                 const Routing::BuildProgress* progress) try {
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
  const std::span<const uint32_t> groups = range.groups;
  size_t batch_first = 0;
  for (size_t i = 0; i < groups.size(); ++i) {
    const uint32_t g = groups[i];
    const uint32_t edge = t.group_switch[g];
    std::fill(dist.begin(), dist.end(), -1);
    frontier.assign(1, edge);
    dist[edge] = 0;
    for (size_t f = 0; f < frontier.size(); ++f) {
      const uint32_t u = frontier[f];
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
        const std::vector<uint32_t>& host_nodes = *graph.host_nodes;
        throw std::runtime_error("topology: host node " + std::to_string(host_nodes[from]) +
                                 " cannot reach host node " + std::to_string(host_nodes[to]));
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
      batch[static_cast<size_t>(s) * kBatch + (i - batch_first)] = last;
    }
    // Written a batch of edges at a time: one switch's entries for the batch
    // are adjacent in the table (for a run of consecutive edges, as at
    // setup), where an edge at a time writes one entry per cache line.
    if (i + 1 == groups.size() || i + 1 - batch_first == kBatch) {
      const size_t width = i + 1 - batch_first;
      const uint32_t column = groups[batch_first];
      const bool consecutive = groups[i] - column == width - 1;
      for (uint32_t sw = 0; sw < num_switches; ++sw) {
        const auto from = batch.begin() + static_cast<ptrdiff_t>(sw) * kBatch;
        Entry* row = t.table.data() + static_cast<size_t>(sw) * num_groups;
        if (consecutive) {
          std::copy_n(from, width, row + column);
        } else {
          for (size_t j = 0; j < width; ++j) row[groups[batch_first + j]] = from[j];
        }
      }
      std::fill(batch.begin(), batch.end(), Entry{0, 0});
      batch_first = i + 1;
    }
    const uint32_t done = searched.fetch_add(1, std::memory_order_relaxed) + 1;
    if (progress && *progress) (*progress)(done, total);
  }
} catch (...) {
  range.error = std::current_exception();
}

// Gives the ranges' sets offsets in t.port_sets, appending those it lacks in
// order of first use, and rewrites the ranges' table entries: a one-thread
// build's tables, byte for byte, whatever the thread count.
void MergeRanges(Routing::Tables& t, std::span<GroupRange> ranges, uint32_t num_switches) {
  std::unordered_map<std::vector<uint16_t>, uint32_t, PortSetHash> global;
  for (const Entry& e : t.sets)
    global.emplace(std::vector<uint16_t>(t.port_sets.begin() + e.offset,
                                         t.port_sets.begin() + e.offset + e.count),
                   e.offset);
  for (GroupRange& range : ranges) {
    std::vector<uint32_t> moved(range.port_sets.size(), 0);  // local offset -> global
    for (const Entry& e : range.distinct) {
      std::vector<uint16_t> set(range.port_sets.begin() + e.offset,
                                range.port_sets.begin() + e.offset + e.count);
      auto [it, fresh] = global.try_emplace(set, static_cast<uint32_t>(t.port_sets.size()));
      if (fresh) {
        t.sets.push_back(Entry{it->second, e.count});
        t.port_sets.insert(t.port_sets.end(), set.begin(), set.end());
        if (t.port_sets.size() >= kMaxPortSets) ThrowTooManySets();
      }
      moved[e.offset] = it->second;
    }
    for (uint32_t sw = 0; sw < num_switches; ++sw) {
      Entry* row = t.table.data() + static_cast<size_t>(sw) * t.num_groups;
      for (const uint32_t g : range.groups)
        if (row[g].count > 0) row[g].offset = moved[row[g].offset];
    }
  }
}

}  // namespace

void ThrowTooManySets() {
  throw std::runtime_error("topology: too many distinct next-hop sets");
}

std::vector<uint32_t> SwitchNodes(const std::vector<int32_t>& switch_index) {
  std::vector<uint32_t> switch_node;
  for (size_t node = 0; node < switch_index.size(); ++node)
    if (switch_index[node] >= 0) {
      const auto s = static_cast<size_t>(switch_index[node]);
      if (switch_node.size() <= s) switch_node.resize(s + 1);
      switch_node[s] = static_cast<uint32_t>(node);
    }
  return switch_node;
}

SwitchGraph MakeSwitchGraph(const Adjacency& adjacency, const std::vector<int32_t>& switch_index,
                            const std::vector<uint32_t>& host_nodes,
                            std::span<const Routing::Link> without) {
  // Both ends of every left-out link, as node << 16 | local port, sorted.
  std::vector<uint64_t> cut;
  for (const Routing::Link& l : without) {
    cut.push_back(uint64_t{l.node_a} << 16 | l.port_a);
    cut.push_back(uint64_t{l.node_b} << 16 | l.port_b);
  }
  std::sort(cut.begin(), cut.end());
  SwitchGraph graph;
  graph.host_nodes = &host_nodes;
  graph.switch_node = SwitchNodes(switch_index);
  const size_t num_switches = graph.switch_node.size();
  graph.first.assign(num_switches + 1, 0);
  for (size_t s = 0; s < num_switches; ++s) {
    const uint32_t node = graph.switch_node[s];
    for (auto [port, v] : adjacency[node])
      if (switch_index[v] >= 0 &&
          !std::binary_search(cut.begin(), cut.end(), uint64_t{node} << 16 | port))
        graph.links.emplace_back(port, static_cast<uint32_t>(switch_index[v]));
    graph.first[s + 1] = static_cast<uint32_t>(graph.links.size());
  }
  return graph;
}

void SearchGroups(const SwitchGraph& graph, Routing::Tables& t, std::span<const uint32_t> groups,
                  uint32_t threads, const Routing::BuildProgress& progress) {
  // The searches, one per destination edge, are independent: a large
  // fabric's (k=200: 20,000 edges over 50,000 switches) are spread over
  // `threads`, each taking a contiguous share of `groups` with port sets of
  // its own, merged in order below so the tables are the serial search's.
  const auto total = static_cast<uint32_t>(groups.size());
  const uint32_t workers =
      std::clamp<uint32_t>(std::min<uint32_t>(threads, total / kGroupsPerThread), 1, 64);
  std::vector<GroupRange> ranges(workers);
  for (uint32_t w = 0; w < workers; ++w) {
    const size_t begin = uint64_t{total} * w / workers;
    const size_t end = uint64_t{total} * (w + 1) / workers;
    ranges[w].groups = groups.subspan(begin, end - begin);
  }
  std::atomic<uint32_t> searched{0};
  // Progress comes from this thread, counting every thread's searches.
  uint32_t reported = 0;
  const Routing::BuildProgress report = [&](uint32_t done, uint32_t all) {
    reported = done;
    progress(done, all);
  };
  {
    std::vector<std::jthread> pool;
    for (uint32_t w = 1; w < workers; ++w)
      pool.emplace_back([&, w] { SearchRange(graph, t, ranges[w], searched, total, nullptr); });
    SearchRange(graph, t, ranges[0], searched, total, progress ? &report : nullptr);
  }
  // The first range that failed holds the first edge a serial search fails on.
  for (const GroupRange& r : ranges)
    if (r.error) std::rethrow_exception(r.error);
  const auto num_switches = static_cast<uint32_t>(graph.switch_node.size());
  if (t.port_sets.empty()) {  // a fresh build: the first range's sets, as they are
    t.port_sets = std::move(ranges[0].port_sets);
    t.sets = std::move(ranges[0].distinct);
    MergeRanges(t, std::span(ranges).subspan(1), num_switches);
  } else {
    MergeRanges(t, ranges, num_switches);
  }
  if (progress && reported < total) progress(total, total);
}

}  // namespace rocesim::routing_search
