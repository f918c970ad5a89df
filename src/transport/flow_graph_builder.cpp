#include "transport/flow_graph_builder.h"

#include <map>

namespace rocesim {

void FlowGraphBuilder::BeginEntry(uint32_t base, uint32_t flows) {
  base_ = base;
  flows_ = flows;
  join_base_ = static_cast<uint32_t>(join_host_.size());
}

void FlowGraphBuilder::AddEdge(uint32_t pred, uint32_t succ, bool succ_join, bool on_sent) {
  const bool pred_join = pred >= flows_;
  edges_.push_back(Edge{pred_join ? join_base_ + pred - flows_ : base_ + pred, succ, pred_join,
                        succ_join, on_sent});
}

void FlowGraphBuilder::AddFlow(uint32_t k, const FlowSpec& s) {
  flow_not_before_.push_back(s.start);
  flow_delay_.push_back(s.delay);
  for (const uint32_t a : s.after) AddEdge(a, base_ + k, false);
  if (s.after_sent != UINT32_MAX) AddEdge(s.after_sent, base_ + k, false, true);
}

void FlowGraphBuilder::AddJoins(const std::vector<JoinSpec>& joins) {
  for (uint32_t j = 0; j < joins.size(); ++j) {
    join_host_.push_back(static_cast<uint32_t>(joins[j].host));
    join_delay_.push_back(joins[j].delay);
    for (const uint32_t a : joins[j].after) AddEdge(a, join_base_ + j, true);
  }
}

void FlowGraphBuilder::FollowJob(const FlowTable& flows, uint32_t num_hosts,
                                 const std::vector<int>& hosts, Time after_compute,
                                 uint32_t earlier_base, const CollectiveInstance& earlier,
                                 const CollectiveInstance& first) {
  std::vector<uint8_t> rank(num_hosts, 0);
  for (const int h : hosts) rank[h] = 1;
  std::map<uint32_t, uint32_t> join_at;  // host -> its join
  for (uint32_t k = earlier.first_flow; k < earlier.end_flow; ++k) {
    const uint32_t id = earlier_base + k;
    const FlowEnds p = flows.Ends(id);
    for (const uint32_t h : {p.src, p.dst}) {
      if (!rank[h]) continue;
      auto [it, fresh] = join_at.try_emplace(h, static_cast<uint32_t>(join_host_.size()));
      if (fresh) {
        join_host_.push_back(h);
        join_delay_.push_back(after_compute);
      }
      edges_.push_back(Edge{id, it->second, false, true, false});
    }
  }
  for (uint32_t k = first.first_flow; k < first.end_flow; ++k) {
    const uint32_t id = base_ + k;
    const auto it = join_at.find(flows.Ends(id).src);
    if (it == join_at.end()) continue;
    edges_.push_back(Edge{it->second, id, true, false, false});  // it waits now
  }
}

void FlowGraphBuilder::Build(const FlowTable& flows, FlowDependencies& deps) {
  const uint32_t count = flows.Count();
  std::vector<FlowDependencies::Edge> global;
  global.reserve(edges_.size());
  for (const Edge& e : edges_)
    global.push_back(
        {e.pred_join ? count + e.pred : e.pred, e.succ_join ? count + e.succ : e.succ, e.on_sent});
  std::vector<uint32_t> src(count), dst(count);
  for (uint32_t id = 0; id < count; ++id) {
    const FlowEnds e = flows.Ends(id);
    src[id] = e.src;
    dst[id] = e.dst;
  }
  // A join starts as soon as it is ready, its delay after its last.
  std::vector<Time> not_before = std::move(flow_not_before_);
  not_before.resize(count + join_host_.size(), 0);
  std::vector<Time> delay = std::move(flow_delay_);
  delay.insert(delay.end(), join_delay_.begin(), join_delay_.end());
  deps.Build(src, dst, join_host_, global, not_before, delay);
}

}  // namespace rocesim
