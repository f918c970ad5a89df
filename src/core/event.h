// A scheduled event: a 16-byte POD. Events fire in canonical order: by time,
// and events at the same picosecond by their content (kind, then arg, then
// target: EventBefore below), never by who scheduled them or when. That order
// is a property of the simulated state alone, so a run split over partitions
// (sim/partitioned_run.h) that each see only some of the events processes
// every node's events in the same order as the serial run, and results are
// byte-identical however the fabric is cut (DESIGN.md §5). Two events with
// equal keys are the same event (same kind, same object, same argument), so
// their relative order cannot matter; the one exception, kLinkArrive, names
// a pool packet id in `target`, but a wire lands at most one frame per
// picosecond, so two arrivals never tie on (time, kind, port).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "core/time.h"

namespace rocesim {

// What an event does; `target` and `arg` are interpreted per kind.
enum class EventKind : uint8_t {
  kLinkArrive,  // target: the frame at the wire head; arg: transmitting port
                // (Fabric::ScheduleArrival)
  kPortWake,    // target: port; try to start the next transmission
  kPfcRefresh,  // target: switch port; arg: priority; re-send XOFF if still congested
  kFlowStart,   // target: position in the arrival order (Simulation::start_order_)
  kQpTimeout,   // target: flow id; retransmission timer
  kMonitor,     // periodic sampling
  kCcTimer,     // target: flow id; arg: timer id (congestion-control timers)
  kAckTimer,    // target: flow id; the responder's coalesced-ACK deadline
  // Faults and defences (src/ops/, seed 003 §4.3, §6.2).
  kFaultStart,       // target: index into Scenario::faults
  kFaultEnd,         // target: index into Scenario::faults
  kStormPause,       // target: host; a pausing NIC (storm, slow receiver) renews its XOFF
  kRxDrain,          // target: host; a slow receiver's pipeline finishes its head frame
  kWatchdogCheck,    // target: port; arg: priority; has the queue been paused for `detect`?
  kWatchdogRestore,  // target: port; arg: priority; the watchdog re-arms
  kRouteRecompute,   // routing converges on the links that are up now (link_down)
  kDeadlockCheck,    // one sample of the PFC deadlock detector
  // Dependencies and collectives (transport/flow_dependencies.h).
  kDependentStart,  // target: flow id; its predecessors are done: it starts
  kNvlinkDone,      // target: flow id; an intra-server (NVLink) transfer completes
};

struct Event {
  Time time;
  uint32_t target;
  uint32_t arg : 24;  // small: a priority or a timer index
  EventKind kind : 8;
};
static_assert(sizeof(Event) == 16, "events stay small: the queue moves them on every push/pop");

// The second half of an event (target, arg, kind) as one 64-bit word, so that
// the queue writes an event with two plain stores: built as a struct with
// bit-fields, it goes through the stack and its 16-byte reload stalls on
// store forwarding (bench/NOTES.md, fifth session).
constexpr uint64_t EventTail(uint32_t target, uint32_t arg, EventKind kind) {
  return uint64_t{target} | uint64_t{(arg & 0xFFFFFFu) | static_cast<uint32_t>(kind) << 24} << 32;
}
static_assert(std::bit_cast<std::array<uint64_t, 2>>(Event{5, 7, 0xABCDEF,
                                                           EventKind::kCcTimer})[1] ==
                  EventTail(7, 0xABCDEF, EventKind::kCcTimer),
              "EventTail matches the bit-field layout");
// The tail of an event, whose unsigned order is the canonical same-time order
// (kind, arg, target).
inline uint64_t TailOf(const Event& e) {
  return std::bit_cast<std::array<uint64_t, 2>>(e)[1];
}
// Canonical order: (time, kind, arg, target).
inline bool EventBefore(const Event& a, const Event& b) {
  return a.time < b.time || (a.time == b.time && TailOf(a) < TailOf(b));
}
// Writes the event (time, tail) to `to`.
[[gnu::always_inline]] inline void StoreEvent(Event* to, Time time, uint64_t tail) {
  auto* bytes = reinterpret_cast<unsigned char*>(to);
  std::memcpy(bytes, &time, sizeof time);
  std::memcpy(bytes + sizeof time, &tail, sizeof tail);
}

}  // namespace rocesim
