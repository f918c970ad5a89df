// Dependencies between flows (issue "AI training on RoCE fabrics"): a flow
// may start only once a set of other flows has completed, plus a compute
// delay. Collectives, whose every step waits for the one before, and
// dependency files (workload/dependency_file.h) expand into this.
//
// A dependency is resolved at the dependent flow's source host: each flow it
// waits for must start or end there, and counts as complete when that host
// is done with it — its requester saw the final ACK (the host sent it), or
// its responder received its last byte (the host received it). Both happen
// at one host, in one partition of a parallel run, so a partitioned run
// starts every dependent flow at the same picosecond as the serial one
// (sim/partitioned_run.h) without any message between partitions.
//
// Joins are dependency-only nodes bound to a host: one completes as soon as
// everything it waits for has completed at its host (a rank finishing a
// phase), so the next phase's flows wait for one join instead of for every
// flow of the phase.
//
// Nodes are numbered flows first (node = flow id), then joins. The graph is
// read-only once built: the replicas of a partitioned run share one
// (Share), each counting down only what completes at its own hosts in its
// own counts.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/time.h"

namespace rocesim {

struct Fabric;

class FlowDependencies {
 public:
  // One edge: `succ` waits for `pred` (node numbers) to complete, or with
  // `on_sent`, only for flow `pred` to have sent its last packet (the
  // message before it on one connection: a QP's work queue sends in order;
  // both start at the same host).
  struct Edge {
    uint32_t pred = 0;
    uint32_t succ = 0;
    bool on_sent = false;
  };
  // Where each node resolves: a flow's source host (`flow_src`), a join's
  // own host (`join_host`). Flows that wait for nothing are not started
  // here (the arrival cursor starts them at their start time).
  // `not_before` and `delay` are per node (a join: 0 and its delay).
  // Throws std::invalid_argument when a predecessor does not touch the host
  // its successor resolves at, and when the graph has a cycle (naming the
  // nodes on it).
  void Build(const std::vector<uint32_t>& flow_src, const std::vector<uint32_t>& flow_dst,
             const std::vector<uint32_t>& join_host, const std::vector<Edge>& edges,
             const std::vector<Time>& not_before, const std::vector<Time>& delay);

  // The built graph, for another replica to Share (null when Empty).
  struct Graph;
  std::shared_ptr<const Graph> graph() const { return graph_; }
  // Counts down `graph` (another replica's, built by Build) from its start.
  void Share(std::shared_ptr<const Graph> graph);

  bool Empty() const { return pending_.empty(); }
  // Before the run: whether flow `id` waits for others (a kDependentStart
  // starts it, not the arrival cursor).
  bool Waits(uint32_t id) const { return !pending_.empty() && pending_[id] != 0; }
  uint64_t NumEdges() const { return graph_ ? graph_->edges : 0; }

  // Flow `id` completed at its source host (final ACK) / at its destination
  // host (last byte received): its successors resolved at that host count it
  // down, and any that become ready are scheduled (EventKind::kDependentStart)
  // at max(their start, now + their delay).
  void SenderDone(Fabric& f, uint32_t id) { Done(f, id, /*at_dst=*/false); }
  void ReceiverDone(Fabric& f, uint32_t id) { Done(f, id, /*at_dst=*/true); }
  // Flow `id`'s last packet left its NIC for the first time.
  void SenderSent(Fabric& f, uint32_t id) {
    if (graph_) Count(f, graph_->sent_first, graph_->sent_succ, id);
  }

  // A join's delay ran out (its kDependentStart): it completes now.
  void JoinDone(Fabric& f, uint32_t node) { Done(f, node, /*at_dst=*/false); }
  bool IsJoin(uint32_t node) const { return graph_ && node >= graph_->flows; }

  struct Graph {
    uint32_t flows = 0;
    uint64_t edges = 0;
    std::vector<uint32_t> pending;  // per node: predecessors, before any completes
    // Successors, CSR: per node, those resolved at its source host (a join:
    // its host) [src_first[n], src_first[n + 1]), and per flow those
    // resolved at its destination host.
    std::vector<uint32_t> src_first, src_succ;
    std::vector<uint32_t> dst_first, dst_succ;
    std::vector<uint32_t> sent_first, sent_succ;  // per flow: Edge::on_sent successors
    std::vector<Time> not_before, delay;
  };

 private:
  void Done(Fabric& f, uint32_t node, bool at_dst);
  // Counts down the successors of `node` in one CSR list.
  void Count(Fabric& f, const std::vector<uint32_t>& first, const std::vector<uint32_t>& succ,
             uint32_t node);
  void Release(Fabric& f, uint32_t node);

  std::shared_ptr<const Graph> graph_;
  std::vector<uint32_t> pending_;  // per node: predecessors not yet complete (this replica's)
};

}  // namespace rocesim
