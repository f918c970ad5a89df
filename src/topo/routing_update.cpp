// Routing::Rerouted: a link_down fault's new tables, derived from the old
// ones (topo/routing.h). Each destination edge's column of the table is kept
// equal to a breadth-first search of the fabric as it stands after each
// change, one link at a time:
//
// - A link (u, v) goes down. If u and v are as far from the edge, no
//   shortest path used it: nothing changes. If v is one hop nearer, the link
//   is one of u's next hops; when u has another, every distance stays and
//   u's set only loses the port. When it was u's only one, u (and whatever
//   went through it) is now farther: the edge is searched again.
// - A link (u, v) comes up. If u and v are as far from the edge, or
//   neither reaches it, nothing changes; if v is one hop nearer, u's set
//   gains the port (in its port order) and no distance changes; else (two
//   hops or more apart, or only one reaches the edge) the link shortens
//   paths: the edge is searched again.
//
// Distances are not stored: a switch's distance to the edge is the length
// of the walk along the first port of each set (every next hop is one step
// nearer). A column marked for a new search is left alone by later changes
// and searched once, over the fabric after all of them. The searches are
// topo/routing_search.h's, so a column searched again holds what Build
// would have given it; a search that finds two edges apart means a host is
// cut off, as Build would throw.
#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "topo/routing.h"
#include "topo/routing_search.h"
#include "topo/topology_size.h"

namespace rocesim {

namespace routing_update {
namespace {

using Entry = Routing::Entry;
constexpr uint32_t kFar = UINT32_MAX;  // a switch that does not reach the edge

class ColumnEditor {
 public:
  ColumnEditor(Routing::Tables& t, const Routing::Adjacency& adjacency)
      : t_(t),
        adjacency_(adjacency),
        switch_node_(routing_search::SwitchNodes(t.switch_index)),
        research_(t.num_groups, 0) {
    for (const Entry& e : t.sets)
      offsets_.emplace(std::vector<uint16_t>(Begin(e), Begin(e) + e.count), e.offset);
  }

  // Link `l` between switches u and v comes up (Up) or goes down (Down).
  void Up(const Routing::Link& l) {
    const uint32_t u = Switch(l.node_a), v = Switch(l.node_b);
    for (uint32_t g = 0; g < t_.num_groups; ++g) {
      if (research_[g]) continue;
      const uint32_t du = Distance(u, g), dv = Distance(v, g);
      if (du == dv) continue;  // as far (or neither reaches the edge)
      if (du != kFar && dv != kFar && du == dv + 1) {
        Gain(u, g, l.port_a, l.node_a);
      } else if (du != kFar && dv != kFar && dv == du + 1) {
        Gain(v, g, l.port_b, l.node_b);
      } else {
        research_[g] = 1;  // the link shortens paths
      }
    }
  }
  void Down(const Routing::Link& l) {
    const uint32_t u = Switch(l.node_a), v = Switch(l.node_b);
    for (uint32_t g = 0; g < t_.num_groups; ++g)
      if (!research_[g] && !Lose(u, g, l.port_a)) Lose(v, g, l.port_b);
  }

  // The edges to search again, in order.
  std::vector<uint32_t> Research() const {
    std::vector<uint32_t> groups;
    for (uint32_t g = 0; g < t_.num_groups; ++g)
      if (research_[g]) groups.push_back(g);
    return groups;
  }

 private:
  const uint16_t* Begin(Entry e) const { return t_.port_sets.data() + e.offset; }
  Entry& At(uint32_t s, uint32_t g) { return t_.table[static_cast<size_t>(s) * t_.num_groups + g]; }
  uint32_t Switch(uint32_t node) const { return static_cast<uint32_t>(t_.switch_index[node]); }

  // The switch index at the far end of switch s's local `port`.
  uint32_t Neighbour(uint32_t s, uint16_t port) const {
    const auto& links = adjacency_[switch_node_[s]];
    if (port < links.size() && links[port].first == port) return Switch(links[port].second);
    for (auto [p, v] : links)
      if (p == port) return Switch(v);
    throw std::logic_error("routing update: a next hop names no link");
  }

  // Hops from switch s to group g's edge, or kFar.
  uint32_t Distance(uint32_t s, uint32_t g) {
    const uint32_t edge = t_.group_switch[g];
    uint32_t hops = 0;
    for (uint32_t x = s; x != edge; ++hops) {
      const Entry e = At(x, g);
      if (e.count == 0) return kFar;
      x = Neighbour(x, *Begin(e));
      if (hops > switch_node_.size()) throw std::logic_error("routing update: a next-hop loop");
    }
    return hops;
  }

  // Switch s's set towards g, as a list.
  std::vector<uint16_t> SetOf(uint32_t s, uint32_t g) {
    const Entry e = At(s, g);
    return std::vector<uint16_t>(Begin(e), Begin(e) + e.count);
  }

  // Points (s, g) at `set`, stored once among the tables' sets.
  void Store(uint32_t s, uint32_t g, const std::vector<uint16_t>& set) {
    if (set.size() > static_cast<size_t>(kMaxEcmpWays))
      throw std::logic_error("routing update: more equal-cost ports than the full fabric has");
    auto [it, fresh] = offsets_.try_emplace(set, static_cast<uint32_t>(t_.port_sets.size()));
    const Entry e{it->second, static_cast<uint32_t>(set.size())};
    if (fresh) {
      t_.sets.push_back(e);
      t_.port_sets.insert(t_.port_sets.end(), set.begin(), set.end());
      if (t_.port_sets.size() >= routing_search::kMaxPortSets) routing_search::ThrowTooManySets();
    }
    At(s, g) = e;
  }

  // Switch s (one hop farther than the link's other end) gains `port`, in
  // the order of its links in the adjacency.
  void Gain(uint32_t s, uint32_t g, uint16_t port, uint32_t node) {
    std::vector<uint16_t> set = SetOf(s, g);
    const auto& links = adjacency_[node];
    auto rank = [&](uint16_t p) {
      return std::find_if(links.begin(), links.end(), [p](const auto& l) { return l.first == p; }) -
             links.begin();
    };
    const auto where =
        std::find_if(set.begin(), set.end(), [&](uint16_t p) { return rank(p) > rank(port); });
    set.insert(where, port);
    Store(s, g, set);
  }

  // If `port` is one of switch s's next hops towards g, takes it out (or
  // marks g for a new search when it was the only one); true if it was.
  bool Lose(uint32_t s, uint32_t g, uint16_t port) {
    if (s == t_.group_switch[g]) return false;
    std::vector<uint16_t> set = SetOf(s, g);
    const auto it = std::find(set.begin(), set.end(), port);
    if (it == set.end()) return false;
    if (set.size() == 1) {
      research_[g] = 1;  // s is now farther from the edge
    } else {
      set.erase(it);
      Store(s, g, set);
    }
    return true;
  }

  Routing::Tables& t_;
  const Routing::Adjacency& adjacency_;
  std::vector<uint32_t> switch_node_;  // switch index -> node
  std::unordered_map<std::vector<uint16_t>, uint32_t, routing_search::PortSetHash> offsets_;
  std::vector<uint8_t> research_;  // by group: search again at the end
};

}  // namespace
}  // namespace routing_update

std::optional<Routing> Routing::Rerouted(const Adjacency& adjacency,
                                         const std::vector<uint32_t>& host_nodes,
                                         std::span<const Link> before, std::span<const Link> after,
                                         uint32_t threads, const BuildProgress& progress) const {
  const Tables& old = *tables_;
  auto is_host = [&](uint32_t node) { return old.switch_index[node] < 0; };
  auto listed = [](std::span<const Link> links, const Link& l) {
    return std::find(links.begin(), links.end(), l) != links.end();
  };
  for (const Link& l : after)
    if (is_host(l.node_a) || is_host(l.node_b)) return std::nullopt;  // a host cut off
  // Links failing together converge one by one, each around all of them:
  // after the first, the rest find the tables already right.
  const bool same =
      before.size() == after.size() &&
      std::all_of(after.begin(), after.end(), [&](const Link& l) { return listed(before, l); });
  if (same) return *this;

  auto tables = std::make_shared<Tables>(old);
  routing_update::ColumnEditor editor(*tables, adjacency);
  for (const Link& l : before)
    if (!listed(after, l) && !is_host(l.node_a) && !is_host(l.node_b)) editor.Up(l);
  for (const Link& l : after)
    if (!listed(before, l)) editor.Down(l);
  const std::vector<uint32_t> research = editor.Research();
  if (!research.empty()) {
    try {
      routing_search::SearchGroups(
          routing_search::MakeSwitchGraph(adjacency, old.switch_index, host_nodes, after), *tables,
          research, threads, progress);
    } catch (const std::runtime_error&) {
      return std::nullopt;  // two edges apart
    }
  }
  Routing routing;
  routing.Adopt(std::move(tables));
  return routing;
}

}  // namespace rocesim
