#include "stats/collective_ideal.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

namespace rocesim {

namespace {
// The instance's dependency graph: the range's flows and the joins that
// wait for any of them; edges from outside it count as done at 0.
struct Graph {
  std::vector<std::vector<uint32_t>> succ;       // per node: what waits for it to complete
  std::vector<std::vector<uint32_t>> sent_succ;  // per flow: the next message of its connection
  std::vector<uint32_t> pending;                 // per node: in-scope predecessors
};

Graph BuildGraph(const std::vector<FlowSpec>& flows, const std::vector<JoinSpec>& joins,
                 uint32_t first, uint32_t end) {
  const auto nf = static_cast<uint32_t>(flows.size());
  const uint32_t nodes = nf + static_cast<uint32_t>(joins.size());
  std::vector<uint8_t> scope(nodes, 0);
  for (uint32_t i = first; i < end; ++i) scope[i] = 1;
  for (uint32_t j = 0; j < joins.size(); ++j)
    for (uint32_t a : joins[j].after)
      if (scope[a]) scope[nf + j] = 1;
  Graph g{std::vector<std::vector<uint32_t>>(nodes), std::vector<std::vector<uint32_t>>(nf),
          std::vector<uint32_t>(nodes, 0)};
  auto link = [&](const std::vector<uint32_t>& after, uint32_t node) {
    for (uint32_t a : after)
      if (scope[a]) {
        g.succ[a].push_back(node);
        ++g.pending[node];
      }
  };
  for (uint32_t i = first; i < end; ++i) {
    link(flows[i].after, i);
    if (const uint32_t a = flows[i].after_sent; a != UINT32_MAX && scope[a]) {
      g.sent_succ[a].push_back(i);
      ++g.pending[i];
    }
  }
  for (uint32_t j = 0; j < joins.size(); ++j)
    if (scope[nf + j]) link(joins[j].after, nf + j);
  return g;
}

// One relaxation: messages wait for the sending port (`senders`) or for
// the receiving port (otherwise) only.
Time ListSchedule(const Graph& g, const std::vector<FlowSpec>& flows,
                  const std::vector<JoinSpec>& joins, const std::vector<IdealMessage>& msg,
                  uint32_t first, uint32_t end, uint32_t hosts, bool senders) {
  const auto nf = static_cast<uint32_t>(flows.size());
  std::vector<uint32_t> pending = g.pending;
  std::vector<Time> ready(pending.size(), 0);
  std::vector<Time> free(2 * hosts, 0);  // per port (NICs, then NVLink): when it frees up
  using Item = std::pair<Time, uint32_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  // A node's predecessors are all done: a flow queues, a join completes.
  std::vector<std::pair<uint32_t, Time>> done;  // (node, when), to propagate
  auto resolve = [&](uint32_t node) {
    if (node < nf) {
      queue.emplace(ready[node] + flows[node].delay, node);
    } else {
      done.emplace_back(node, ready[node] + joins[node - nf].delay);
    }
  };
  auto host_of = [&](uint32_t node) {
    return node < nf ? static_cast<uint32_t>(flows[node].src)
                     : static_cast<uint32_t>(joins[node - nf].host);
  };
  auto count = [&](uint32_t s, Time when) {
    ready[s] = std::max(ready[s], when);
    if (--pending[s] == 0) resolve(s);
  };
  auto propagate = [&](uint32_t node, Time when_sent, Time when_src, Time when_dst) {
    for (uint32_t s : g.sent_succ[node]) count(s, when_sent);
    for (uint32_t s : g.succ[node]) count(s, msg[node].dst == host_of(s) ? when_dst : when_src);
    while (!done.empty()) {
      const auto [j, when] = done.back();
      done.pop_back();
      for (uint32_t s : g.succ[j]) count(s, when);
    }
  };
  for (uint32_t i = first; i < end; ++i)
    if (pending[i] == 0) resolve(i);
  Time makespan = 0;
  while (!queue.empty()) {
    const auto [at, i] = queue.top();
    queue.pop();
    const IdealMessage& m = msg[i];
    Time& port = free[(m.nvlink ? hosts : 0) + (senders ? m.src : m.dst)];
    const Time start = std::max(at, port);
    port = start + m.occupancy;
    makespan = std::max(makespan, start + m.delivered);
    propagate(i, start + m.occupancy, start + m.done, start + m.delivered);
  }
  return makespan;
}
}  // namespace

Time IdealCollectiveTime(const std::vector<FlowSpec>& flows, const std::vector<JoinSpec>& joins,
                         const std::vector<IdealMessage>& msg, uint32_t first, uint32_t end,
                         uint32_t hosts) {
  const Graph g = BuildGraph(flows, joins, first, end);
  return std::max(ListSchedule(g, flows, joins, msg, first, end, hosts, true),
                  ListSchedule(g, flows, joins, msg, first, end, hosts, false));
}

}  // namespace rocesim
