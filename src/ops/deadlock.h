// PFC deadlock detector (seed 003 §4.1 "PFC deadlock", §6.3: "Deadlock,
// livelock, and PFC pause frames propagation did happen"). monitors.deadlock
// samples the fabric every threshold / 4 and builds the wait-for graph of
// switch egress queues that are paused and hold frames: queue (S, P, q)
// waits for queue (S', P2, q) when S' (across P's link) paused it because its
// ingress (P', q) is full, and (S', P2, q) — itself paused — holds frames
// that came in on P'. A cycle in that graph that is seen at every sample
// for `threshold` is a deadlock: reported once (summary.json "deadlocks",
// events.csv "deadlock") with its queues as "node:port:priority". With
// `break: true` the detector then drops frames from the head of the cycle's
// first queue (cause deadlock_break) until the pause its ingress caused is
// released. Costs nothing unless enabled.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/time.h"

namespace rocesim {

struct Fabric;

struct DeadlockReport {
  Time time = 0;                   // when it had lasted `threshold`
  Time since = 0;                  // first sample that saw the cycle
  std::vector<std::string> cycle;  // "node:port:priority" per queue, in wait-for order
};

// What one partition of a partitioned run (sim/partitioned_run.h) sees of
// the wait-for graph at a sample: its paused, non-empty switch egress
// queues, and for each the ingress ports (of the same switch) whose frames
// it holds. The serial run has one sample of the whole fabric.
struct DeadlockSample {
  std::vector<std::pair<uint32_t, int>> vertices;  // (port, priority), in port order
  // (ingress port, priority, egress port): the egress queue holds frames
  // that entered on the ingress port.
  std::vector<std::array<uint32_t, 3>> holds;
};

namespace ops {

// kDeadlockCheck: one sample of the wait-for graph.
void CheckDeadlock(Fabric& f);
// The same in two steps: this fabric's part of the graph (the nodes for
// which `local(node)` holds), then the detector's step on the union of
// every partition's part, identical in every partition; only the partition
// that owns the cycle's first queue breaks it.
DeadlockSample SampleDeadlock(const Fabric& f, const std::function<bool(uint32_t)>& local);
void ResolveDeadlock(Fabric& f, const std::vector<DeadlockSample>& samples,
                     const std::function<bool(uint32_t)>& local);

}  // namespace ops
}  // namespace rocesim
