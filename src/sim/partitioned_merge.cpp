// PartitionedRun::Merge (sim/partitioned_run.h): after the last window, the
// partitions' results gathered into replica 0's fabric, as the serial run
// would hold them (flows, ops log, PFC trace, queue-length dumps, counters),
// and under MPI the other ranks' into rank 0's.
#include <algorithm>
#include <vector>

#include "net/fabric_layout.h"
#include "sim/flow_merge.h"
#include "sim/partitioned_run.h"
#include "sim/partitioned_run_shared.h"
#include "sim/rank_exchange.h"

namespace rocesim {

void PartitionedRun::Merge(RunStats& stats) {
  // Local totals, then (MPI) the job's.
  Shared& sh = *shared_;
  uint64_t events = 0;
  Time end = 0;
  for (uint32_t p = 0; p < locals_; ++p) {
    events += replicas_[p]->CountedEvents();
    end = std::max(end, replicas_[p]->fabric().now);
  }
  Fabric& out = replicas_[0]->fabric();
  const std::vector<uint32_t>& node_part = partitioning_.node_part;
  // (Ports are not merged: nothing the results writer reads is per port,
  // and replica 0 does not hold every port; the monitors' per-port files are
  // merged from the partitions'.)
  std::vector<FlowTable*> tables(locals_);
  for (uint32_t p = 0; p < locals_; ++p) tables[p] = &replicas_[p]->fabric().flows;
  const FabricLayout& layout = *out.layout;
  std::vector<int> host_table(layout.host_nodes.size());
  for (size_t h = 0; h < host_table.size(); ++h) {
    const uint32_t p = node_part[layout.host_nodes[h]] - first_partition_;
    host_table[h] = p < locals_ ? static_cast<int>(p) : -1;
  }
  out.flows = MergeFlows(tables, host_table);
  // The ops log: each partition's entries for its own nodes (a fault every
  // replica runs logs in each), in the serial order of their events.
  std::vector<OpsEvent> log;
  for (uint32_t p = 0; p < locals_; ++p)
    for (const OpsEvent& e : replicas_[p]->fabric().ops.events)
      if (replicas_[p]->IsLocalNode(e.node)) log.push_back(e);
  std::stable_sort(log.begin(), log.end(), OpsEventBefore);
  out.ops.events = std::move(log);
  // The PFC trace: each frame lands in the partition of the node receiving it.
  std::vector<PfcTraceEntry> trace;
  for (uint32_t p = 0; p < locals_; ++p)
    for (const PfcTraceEntry& e : replicas_[p]->fabric().pfc_trace)
      if (replicas_[p]->IsLocalNode(e.node)) trace.push_back(e);
  std::sort(trace.begin(), trace.end(), PfcTraceBefore);
  out.pfc_trace = std::move(trace);
  // Queue-length dumps: each partition's own switch ports.
  std::vector<QlenDumpLine> qlen;
  for (uint32_t p = 0; p < locals_; ++p)
    for (const QlenDumpLine& l : replicas_[p]->fabric().qlen_dumps) qlen.push_back(l);
  std::sort(qlen.begin(), qlen.end(), QlenDumpBefore);
  out.qlen_dumps = std::move(qlen);
  uint64_t in_network = 0, in_network_payload = 0;
  for (uint32_t p = 0; p < locals_; ++p) {
    const Fabric& f = replicas_[p]->fabric();
    uint64_t payload = 0;
    in_network += f.FramesInNetwork(&payload);
    in_network_payload += payload;
    if (p == 0) continue;
    out.counters += f.counters;
    out.flows_finished += f.flows_finished;
    out.ops.watchdog_triggers += f.ops.watchdog_triggers;
    out.ops.watchdog_restores += f.ops.watchdog_restores;
  }
  if (exchange_)
    exchange_->MergeInto(*replicas_[0], partitioning_, first_partition_, locals_, events, end,
                         in_network, in_network_payload);
  stats.events = events;
  stats.in_network_frames = in_network;
  stats.in_network_payload_bytes = in_network_payload;
  stats.all_flows_done = out.flows_finished == out.flows.Count();
  stats.interrupted = sh.interrupted;
  // As the serial run (Simulation::Advance): the last event's time, or the
  // duration if events were left beyond it -- unless the run ended because
  // every flow finished, which a run without flows never does (its faults'
  // or detectors' events beyond the duration end it there).
  stats.end_time = end;
  Time next = kTimeMax;
  for (uint32_t p = 0; p < locals_; ++p) next = std::min(next, replicas_[p]->NextEventTime());
  if (exchange_) next = exchange_->MinTime(next);
  const bool flows_ended_it = out.flows.Count() > 0 && stats.all_flows_done;
  if (!sh.interrupted && (sh.last_window_clipped || (!flows_ended_it && next != kTimeMax)))
    stats.end_time = std::max(end, scenario_.duration);
}

}  // namespace rocesim
