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

// Does egress queue (port, prio) hold back frames that entered its switch on
// local port `in` — and so that ingress's pause of its upstream? Shared
// buffer: a frame from `in` sits in the egress queue (holding `in`'s buffer).
// CIOQ: `in`'s VOQ for that output queue is non-empty (holding `in`'s input
// queue; the frames already in the output queue no longer count against it).
bool HoldsFrom(const Fabric& f, const Port& p, int prio, uint16_t in) {
  const Node& n = f.nodes[p.node];
  if (n.kind == NodeKind::kCioq) return f.cioq_switches[n.index].VoqNonEmpty(in, p.local, prio);
  for (PktId id = p.queue[prio].head; id != kNoPkt; id = f.pool[id].next)
    if (f.pool[id].in_port == in) return true;
  return false;
}

std::string Name(const Fabric& f, const Vertex& v) {
  const Port& p = f.ports[v.port];
  return fmt::format("{}:{}:{}", p.node, p.local, v.prio);
}

}  // namespace

void CheckDeadlock(Fabric& f) {
  const DeadlockConfig& cfg = f.scenario->monitors.deadlock;
  // Vertices: paused, non-empty switch egress queues, in port order.
  std::vector<Vertex> vs;
  std::map<uint64_t, size_t> index;  // port * 8 + prio -> vertex
  for (PortId id = 0; id < f.ports.size(); ++id) {
    const Port& p = f.ports[id];
    if (p.queued_frames == 0 || !f.nodes[p.node].is_switch) continue;
    for (int q = 0; q < kNumPriorities; ++q) {
      if (p.queue[q].Empty() || !p.Paused(q, f.now)) continue;
      index[uint64_t{id} * kNumPriorities + static_cast<uint64_t>(q)] = vs.size();
      vs.push_back(Vertex{id, q});
    }
  }
  std::vector<std::vector<size_t>> out(vs.size());
  for (size_t i = 0; i < vs.size(); ++i) {
    const PortId peer = f.ports[vs[i].port].peer;
    const Node& next = f.nodes[f.ports[peer].node];
    if (!next.is_switch) continue;
    const auto in = static_cast<uint16_t>(peer - next.first_port);
    for (uint16_t l = 0; l < next.num_ports; ++l) {
      const PortId p2 = next.first_port + l;
      auto it = index.find(uint64_t{p2} * kNumPriorities + static_cast<uint64_t>(vs[i].prio));
      if (it != index.end() && HoldsFrom(f, f.ports[p2], vs[i].prio, in))
        out[i].push_back(it->second);
    }
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
    const Port& first = f.ports[vs[c[0]].port];
    f.ops.Add(f.now, first.node, first.local, vs[c[0]].prio, "deadlock");
    if (cfg.break_cycle) {
      f.BreakSwitchHead(vs[c[0]].port, vs[c[0]].prio);
      f.ops.Add(f.now, first.node, first.local, vs[c[0]].prio, "deadlock_break");
      seen.erase(key);
      st.reported.erase(key);  // a cycle that re-forms is a new deadlock
    }
  }
  st.since = std::move(seen);
}

}  // namespace rocesim::ops
