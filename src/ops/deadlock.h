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

#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"

namespace rocesim {

struct Fabric;

struct DeadlockReport {
  Time time = 0;                   // when it had lasted `threshold`
  Time since = 0;                  // first sample that saw the cycle
  std::vector<std::string> cycle;  // "node:port:priority" per queue, in wait-for order
};

namespace ops {

// kDeadlockCheck: one sample of the wait-for graph.
void CheckDeadlock(Fabric& f);

}  // namespace ops
}  // namespace rocesim
