#include "transport/flow_dependencies.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>

#include "core/graph_cycle.h"
#include "net/fabric.h"

namespace rocesim {

namespace {
// CSR of (key, value) pairs: each key's values in the order the pairs list them.
void BuildCsr(uint32_t keys, const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
              std::vector<uint32_t>& first, std::vector<uint32_t>& values) {
  first.assign(keys + 1, 0);
  for (const auto& [k, v] : pairs) ++first[k + 1];
  for (uint32_t k = 0; k < keys; ++k) first[k + 1] += first[k];
  values.resize(pairs.size());
  std::vector<uint32_t> at(first.begin(), first.end() - 1);
  for (const auto& [k, v] : pairs) values[at[k]++] = v;
}
}  // namespace

void FlowDependencies::Build(const std::vector<uint32_t>& flow_src,
                             const std::vector<uint32_t>& flow_dst,
                             const std::vector<uint32_t>& join_host, const std::vector<Edge>& edges,
                             const std::vector<Time>& not_before, const std::vector<Time>& delay) {
  graph_.reset();
  pending_.clear();
  if (edges.empty() && join_host.empty()) return;  // Empty(): nothing waits
  auto g = std::make_shared<Graph>();
  const uint32_t flows = g->flows = static_cast<uint32_t>(flow_src.size());
  const uint32_t nodes = flows + static_cast<uint32_t>(join_host.size());
  g->edges = edges.size();
  std::vector<uint32_t>& pending = g->pending;
  pending.assign(nodes, 0);
  g->not_before = not_before;
  g->delay = delay;
  auto host_of = [&](uint32_t n) { return n < flows ? flow_src[n] : join_host[n - flows]; };
  auto name = [&](uint32_t n) {
    return n < flows ? fmt::format("flow {}", n) : fmt::format("join {}", n - flows);
  };
  std::vector<std::pair<uint32_t, uint32_t>> at_src, at_dst, on_sent;
  for (const Edge& e : edges) {
    if (e.pred >= nodes || e.succ >= nodes)
      throw std::invalid_argument(
          fmt::format("a dependency names node {} of {}", std::max(e.pred, e.succ), nodes));
    const uint32_t h = host_of(e.succ);
    if (e.on_sent) {
      if (e.pred >= flows || flow_src[e.pred] != h)
        throw std::invalid_argument(
            fmt::format("{} waits for {} to be sent, which {} does not send", name(e.succ),
                        name(e.pred), name(e.succ)));
      on_sent.emplace_back(e.pred, e.succ);
    } else if (e.pred < flows && flow_dst[e.pred] == h) {
      at_dst.emplace_back(e.pred, e.succ);
    } else if (host_of(e.pred) == h) {
      at_src.emplace_back(e.pred, e.succ);
    } else {
      throw std::invalid_argument(fmt::format(
          "{} waits for {}, which neither starts nor ends at host {} where {} is resolved (a "
          "dependency must be complete at the dependent flow's source host)",
          name(e.succ), name(e.pred), h, name(e.succ)));
    }
    ++pending[e.succ];
  }
  for (uint32_t j = flows; j < nodes; ++j)
    if (pending[j] == 0) throw std::invalid_argument(fmt::format("{} waits for nothing", name(j)));
  BuildCsr(nodes, at_src, g->src_first, g->src_succ);
  BuildCsr(flows, at_dst, g->dst_first, g->dst_succ);
  BuildCsr(flows, on_sent, g->sent_first, g->sent_succ);

  // Every node must become ready once its predecessors do: no cycle.
  std::vector<std::pair<uint32_t, uint32_t>> all;
  all.reserve(edges.size());
  for (const Edge& e : edges) all.emplace_back(e.pred, e.succ);
  if (const std::vector<uint32_t> cycle = FindCycle(nodes, all); !cycle.empty()) {
    std::vector<std::string> names;
    for (uint32_t n : cycle) names.push_back(name(n));
    throw std::invalid_argument(fmt::format("the dependencies have a cycle: {} waits for {}",
                                            fmt::join(names, " waits for "), names.front()));
  }
  Share(std::move(g));
}

void FlowDependencies::Share(std::shared_ptr<const Graph> graph) {
  graph_ = std::move(graph);
  pending_ = graph_ ? graph_->pending : std::vector<uint32_t>();
}

void FlowDependencies::Done(Fabric& f, uint32_t node, bool at_dst) {
  if (!graph_) return;
  if (at_dst) {
    Count(f, graph_->dst_first, graph_->dst_succ, node);
  } else {
    Count(f, graph_->src_first, graph_->src_succ, node);
  }
}

void FlowDependencies::Count(Fabric& f, const std::vector<uint32_t>& first,
                             const std::vector<uint32_t>& succ, uint32_t node) {
  if (node + 1 >= first.size()) return;
  for (uint32_t i = first[node]; i < first[node + 1]; ++i)
    if (--pending_[succ[i]] == 0) Release(f, succ[i]);
}

void FlowDependencies::Release(Fabric& f, uint32_t node) {
  const Graph& g = *graph_;
  if (node >= g.flows && g.delay[node] == 0) {  // a join without delay completes at once
    Done(f, node, /*at_dst=*/false);
    return;
  }
  // A delay past the end of simulated time: it never starts (and the sum
  // must not wrap around to the past).
  if (g.delay[node] >= kTimeMax - f.now) return;
  f.Schedule(std::max(g.not_before[node], f.now + g.delay[node]), EventKind::kDependentStart, node);
}

}  // namespace rocesim
