#include "ops/deadlock.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "net/fabric.h"

namespace rocesim::ops {

namespace {

struct Vertex {
  PortId port;
  int prio;
};

// The local ingress ports of `p`'s switch whose frames egress queue
// (p, prio) holds back — and so whose pause of their upstream it prolongs.
// Shared buffer: a frame from that ingress sits in the egress queue
// (holding its buffer). CIOQ: that ingress's VOQ for the output queue is
// non-empty (holding its input queue; the frames already in the output
// queue no longer count against it).
std::vector<uint16_t> HeldIngresses(const Fabric& f, const Port& p, int prio) {
  const Node& n = f.nodes[p.node];
  std::vector<uint16_t> out;
  if (n.kind == NodeKind::kCioq) {
    for (uint16_t in = 0; in < n.num_ports; ++in)
      if (f.cioq_switches[n.index].VoqNonEmpty(in, p.local, prio)) out.push_back(in);
    return out;
  }
  std::vector<bool> seen(n.num_ports, false);
  for (PktId id = p.queue[prio].head; id != kNoPkt; id = f.pool[id].next)
    seen[f.pool[id].in_port] = true;
  for (uint16_t in = 0; in < n.num_ports; ++in)
    if (seen[in]) out.push_back(in);
  return out;
}

// Vertices of every partition: named from the layout (a partition holds its own ports only).
std::string Name(const Fabric& f, const Vertex& v) {
  const PortLink& p = f.layout->ports[v.port];
  return fmt::format("{}:{}:{}", p.node, p.local, v.prio);
}

}  // namespace

DeadlockSample SampleDeadlock(const Fabric& f, const std::function<bool(uint32_t)>& local) {
  DeadlockSample out;
  for (PortId id = 0; id < f.ports.size(); ++id) {
    if (!f.ports.Held(id)) continue;
    const Port& p = f.ports[id];
    if (p.queued_frames == 0 || !f.nodes[p.node].is_switch || !local(p.node)) continue;
    for (int q = 0; q < kNumPriorities; ++q) {
      if (p.queue[q].Empty() || !p.Paused(q, f.now)) continue;
      out.vertices.emplace_back(id, q);
      for (uint16_t in : HeldIngresses(f, p, q))
        out.holds.push_back({f.nodes[p.node].first_port + in, static_cast<uint32_t>(q), id});
    }
  }
  return out;
}

void CheckDeadlock(Fabric& f) {
  auto all = [](uint32_t) { return true; };
  ResolveDeadlock(f, {SampleDeadlock(f, all)}, all);
}

void ResolveDeadlock(Fabric& f, const std::vector<DeadlockSample>& samples,
                     const std::function<bool(uint32_t)>& local) {
  const DeadlockConfig& cfg = f.scenario->monitors.deadlock;
  // Vertices: paused, non-empty switch egress queues, in port order.
  std::vector<Vertex> vs;
  for (const DeadlockSample& s : samples)
    for (const auto& [port, prio] : s.vertices) vs.push_back(Vertex{port, prio});
  std::sort(vs.begin(), vs.end(), [](const Vertex& a, const Vertex& b) {
    return std::pair(a.port, a.prio) < std::pair(b.port, b.prio);
  });
  std::map<uint64_t, size_t> index;  // port * 8 + prio -> vertex
  for (size_t i = 0; i < vs.size(); ++i)
    index[uint64_t{vs[i].port} * kNumPriorities + static_cast<uint64_t>(vs[i].prio)] = i;
  // (ingress port, prio) -> the egress queues holding its frames, in port order.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> held;
  for (const DeadlockSample& s : samples)
    for (const auto& [in, prio, egress] : s.holds) held[{in, prio}].push_back(egress);
  for (auto& [key, egress] : held) std::sort(egress.begin(), egress.end());
  // Queue (P, q) waits for the queues across its link that hold frames from
  // the ingress it paused.
  std::vector<std::vector<size_t>> out(vs.size());
  for (size_t i = 0; i < vs.size(); ++i) {
    const PortId peer = f.layout->ports[vs[i].port].peer;
    if (!f.nodes[f.layout->ports[peer].node].is_switch) continue;
    auto it = held.find({peer, static_cast<uint32_t>(vs[i].prio)});
    if (it == held.end()) continue;
    for (uint32_t egress : it->second)
      out[i].push_back(
          index.at(uint64_t{egress} * kNumPriorities + static_cast<uint64_t>(vs[i].prio)));
  }
  // Cycles from the back edges of a depth-first search (deterministic order).
  std::vector<int> color(vs.size(), 0);  // 0 new, 1 on the stack, 2 done
  std::vector<size_t> stack;
  std::vector<std::vector<size_t>> cycles;
  auto dfs = [&](auto&& self, size_t u) -> void {
    color[u] = 1;
    stack.push_back(u);
    for (size_t w : out[u]) {
      if (color[w] == 1) {
        auto from = std::find(stack.begin(), stack.end(), w);
        std::vector<size_t> c(from, stack.end());
        std::rotate(c.begin(), std::min_element(c.begin(), c.end()), c.end());
        cycles.push_back(std::move(c));
      } else if (color[w] == 0) {
        self(self, w);
      }
    }
    stack.pop_back();
    color[u] = 2;
  };
  for (size_t u = 0; u < vs.size(); ++u)
    if (color[u] == 0) dfs(dfs, u);

  DeadlockState& st = f.ops.deadlock;
  std::map<std::string, Time> seen;
  for (const std::vector<size_t>& c : cycles) {
    std::vector<std::string> names;
    for (size_t v : c) names.push_back(Name(f, vs[v]));
    const std::string key = fmt::format("{}", fmt::join(names, " "));
    auto prev = st.since.find(key);
    const Time since = prev != st.since.end() ? prev->second : f.now;
    seen[key] = since;
    if (f.now - since < cfg.threshold || st.reported.count(key)) continue;
    st.reported.insert(key);
    f.ops.deadlocks.push_back(DeadlockReport{f.now, since, names});
    const PortLink& first = f.layout->ports[vs[c[0]].port];
    f.ops.Add(f.now, first.node, first.local, vs[c[0]].prio, "deadlock");
    if (cfg.break_cycle) {
      if (local(first.node)) f.BreakSwitchHead(vs[c[0]].port, vs[c[0]].prio);
      f.ops.Add(f.now, first.node, first.local, vs[c[0]].prio, "deadlock_break");
      seen.erase(key);
      st.reported.erase(key);  // a cycle that re-forms is a new deadlock
    }
  }
  st.since = std::move(seen);
}

}  // namespace rocesim::ops
