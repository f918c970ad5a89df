#include "stats/collective_ideal.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

namespace rocesim {

namespace {
// One relaxation: messages wait for the sending port (`senders`) or for
// the receiving port (otherwise) only.
Time ListSchedule(const std::vector<FlowSpec>& flows, const std::vector<JoinSpec>& joins,
                  const std::vector<IdealMessage>& msg, uint32_t first, uint32_t end,
                  uint32_t hosts, bool senders) {
  const auto nf = static_cast<uint32_t>(flows.size());
  const uint32_t nodes = nf + static_cast<uint32_t>(joins.size());
  // In scope: the range's flows and the joins that wait for any of them.
  std::vector<uint8_t> scope(nodes, 0);
  for (uint32_t i = first; i < end; ++i) scope[i] = 1;
  for (uint32_t j = 0; j < joins.size(); ++j)
    for (uint32_t a : joins[j].after)
      if (scope[a]) scope[nf + j] = 1;
  std::vector<std::vector<uint32_t>> succ(nodes), sent_succ(nf);
  std::vector<uint32_t> pending(nodes, 0);
  auto link = [&](const std::vector<uint32_t>& after, uint32_t node) {
    for (uint32_t a : after)
      if (scope[a]) {
        succ[a].push_back(node);
        ++pending[node];
      }
  };
  for (uint32_t i = first; i < end; ++i) {
    link(flows[i].after, i);
    if (const uint32_t a = flows[i].after_sent; a != UINT32_MAX && scope[a]) {
      sent_succ[a].push_back(i);
      ++pending[i];
    }
  }
  for (uint32_t j = 0; j < joins.size(); ++j)
    if (scope[nf + j]) link(joins[j].after, nf + j);

  std::vector<Time> ready(nodes, 0), start(nf, 0);
  std::vector<Time> tx(2 * hosts, 0), rx(2 * hosts, 0);  // NICs, then NVLink ports
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
  auto propagate = [&](uint32_t node, Time when_sent, Time when_src, Time when_dst) {
    for (uint32_t s : sent_succ[node]) {
      ready[s] = std::max(ready[s], when_sent);
      if (--pending[s] == 0) resolve(s);
    }
    for (uint32_t s : succ[node]) {
      const bool at_dst = node < nf && msg[node].dst == host_of(s);
      ready[s] = std::max(ready[s], at_dst ? when_dst : when_src);
      if (--pending[s] == 0) resolve(s);
    }
    while (!done.empty()) {
      const auto [j, when] = done.back();
      done.pop_back();
      for (uint32_t s : succ[j]) {
        ready[s] = std::max(ready[s], when);
        if (--pending[s] == 0) resolve(s);
      }
    }
  };
  for (uint32_t i = first; i < end; ++i)
    if (pending[i] == 0) resolve(i);
  Time makespan = 0;
  while (!queue.empty()) {
    const auto [at, i] = queue.top();
    queue.pop();
    const IdealMessage& m = msg[i];
    const uint32_t port = m.nvlink ? hosts : 0;
    Time& busy = senders ? tx[port + m.src] : rx[port + m.dst];
    start[i] = std::max(at, busy);
    busy = start[i] + m.occupancy;
    makespan = std::max(makespan, start[i] + m.delivered);
    propagate(i, busy, start[i] + m.done, start[i] + m.delivered);
  }
  return makespan;
}
}  // namespace

Time IdealCollectiveTime(const std::vector<FlowSpec>& flows, const std::vector<JoinSpec>& joins,
                         const std::vector<IdealMessage>& msg, uint32_t first, uint32_t end,
                         uint32_t hosts) {
  return std::max(ListSchedule(flows, joins, msg, first, end, hosts, true),
                  ListSchedule(flows, joins, msg, first, end, hosts, false));
}

}  // namespace rocesim
