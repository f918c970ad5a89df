// Collects what a run's flows wait for, entry by entry as
// Simulation::BuildFlows numbers them, and builds the dependency graph
// (transport/flow_dependencies.h) once every entry is in.
//
// A traffic entry names its dependencies locally: FlowSpec::after and
// JoinSpec::after hold the entry's own flow indices, then its joins' (flow
// count + join index). Nodes of the graph are the run's flows by id, then
// every entry's joins in entry order; the builder renumbers as it goes.
#pragma once

#include <cstdint>
#include <vector>

#include "core/time.h"
#include "scenario/scenario.h"
#include "transport/flow_dependencies.h"
#include "transport/flow_table.h"
#include "workload/collectives.h"

namespace rocesim {

class FlowGraphBuilder {
 public:
  // The next entry: its flows are run ids [base, base + flows).
  void BeginEntry(uint32_t base, uint32_t flows);
  // The entry's flow `k`: its start and delay, and what it waits for.
  void AddFlow(uint32_t k, const FlowSpec& s);
  // The entry's joins, after all its flows.
  void AddJoins(const std::vector<JoinSpec>& joins);
  // A job that follows another (CollectiveSpec::after_tag): each of its
  // ranks `hosts` waits, through a join at that rank, for everything the
  // earlier job's last iteration (`earlier`, of the entry whose first flow
  // is `earlier_base`) sent from or delivered to it, then `after_compute`.
  // `first`: this entry's first iteration (its flows wait now).
  void FollowJob(const FlowTable& flows, uint32_t num_hosts, const std::vector<int>& hosts,
                 Time after_compute, uint32_t earlier_base, const CollectiveInstance& earlier,
                 const CollectiveInstance& first);

  // Whether any flow waits for anything.
  bool Empty() const { return edges_.empty() && join_host_.empty(); }
  // The graph of every entry added, over `flows` (all of the run's, for
  // their ends); once, at the end (it gives up what it collected). Throws
  // std::invalid_argument as FlowDependencies::Build.
  void Build(const FlowTable& flows, FlowDependencies& deps);

 private:
  // An edge between nodes numbered flows first, then joins from 0.
  struct Edge {
    uint32_t pred, succ;
    bool pred_join, succ_join, on_sent;
  };
  // `pred` (entry-local: a flow, or a join past the entry's flows) before
  // `succ` (a run flow id, or a run join index with `succ_join`).
  void AddEdge(uint32_t pred, uint32_t succ, bool succ_join, bool on_sent = false);

  uint32_t base_ = 0;       // the current entry's first flow id
  uint32_t flows_ = 0;      // its flow count
  uint32_t join_base_ = 0;  // its first join
  std::vector<Edge> edges_;
  std::vector<uint32_t> join_host_;
  std::vector<Time> join_delay_, flow_not_before_, flow_delay_;
};

}  // namespace rocesim
