// The operations log of a run (seed 003 §6.2 "monitoring"): every injected
// fault's start and end and every watchdog trigger and restore, in time
// order, written as events.csv (time_ps,node,port,priority,event); the
// watchdog totals go to summary.json ("watchdog": {"triggers", "restores"}),
// and so do the deadlocks found ("deadlocks", src/ops/deadlock.h).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"
#include "ops/deadlock.h"

namespace rocesim {

struct OpsEvent {
  Time time = 0;
  uint32_t node = 0;
  int port = 0;  // local port index of `node`
  int priority = 0;
  std::string_view event;  // a static name: "watchdog_trigger", "storm_start", ...
  // The canonical same-time key of the event that logged it (core/event.h),
  // by which a partitioned run merges its partitions' logs in serial order.
  uint64_t event_key = 0;
};

// The serial run's order of ops log entries: by time, then by the key of the
// event that logged them (stable for entries of one event).
inline bool OpsEventBefore(const OpsEvent& a, const OpsEvent& b) {
  return a.time < b.time || (a.time == b.time && a.event_key < b.event_key);
}

// The deadlock detector's memory between samples (src/ops/deadlock.h).
struct DeadlockState {
  std::map<std::string, Time> since;  // cycle -> first sample that saw it
  std::set<std::string> reported;
};

struct OpsLog {
  std::vector<OpsEvent> events;
  uint64_t watchdog_triggers = 0;
  uint64_t watchdog_restores = 0;
  std::vector<DeadlockReport> deadlocks;
  DeadlockState deadlock;
  uint64_t current_event_key = 0;  // set by the event loop for the event being run

  void Add(Time t, uint32_t node, int port, int prio, std::string_view event) {
    events.push_back(OpsEvent{t, node, port, prio, event, current_event_key});
  }
};

}  // namespace rocesim
