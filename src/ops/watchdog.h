// PFC storm watchdogs (seed 003 §4.3; §6.2 incident 1: "after we put the NIC
// PFC storm prevention watchdogs at both the servers and the ToR switches, we
// did not experience NIC PFC storms anymore").
//  - Switch (switch.watchdog): an egress (port, priority) whose queue has
//    been stalled -- paused while holding frames -- for `detect` triggers. The
//    stall clock starts when the paused queue first holds a frame (at the
//    pause if it held frames then, else at the first frame queued behind the
//    pause), not when the pause began. Like SONiC's pfcwd each switch's
//    watchdog looks at its queues every `poll`, so a trigger comes at the
//    first poll at or after stall + detect: in [stall + detect,
//    stall + detect + poll). Switches are not synchronised: each polls at
//    its own phase in [0, poll), drawn from the scenario seed and the node id
//    (so a storm that stalls a ToR and the spine above it a microsecond later
//    does not trip both in the same instant). On a trigger the port
//    ignores further pauses on that priority and, with action `drop`, drops
//    the queue and every frame routed to it (cause `watchdog`); with
//    `forward` it simply transmits. After `restore` it honours pauses again;
//    a storm still going re-triggers after another `detect`.
//  - NIC (host.watchdog): a NIC that has sent pauses continuously for
//    `detect` (its receive pipeline is stuck) stops sending them; after
//    `restore` it may pause again.
// Each trigger and restore goes to the ops log (events.csv) and the summary.
// Cost when not configured: none per data frame (the switch tests one byte of
// the egress port); a pause frame tests one bool.
#pragma once

#include <cstdint>

#include "net/port.h"
#include "scenario/scenario.h"

namespace rocesim {

struct Fabric;

namespace ops {

// A switch port's transmitter became paused on `prio` (not a renewal).
void OnPauseStarted(Fabric& f, PortId port, int prio);
// A frame joined the empty egress queue `prio` of a switch port whose pause
// bit for `prio` is set (the pause may have run out).
void OnPausedQueueFilled(Fabric& f, PortId port, int prio);
// The phase of node `node`'s watchdog polls, in [0, poll).
Time PollPhase(uint64_t seed, uint32_t node, Time poll);
// The first poll at or after `t` of a watchdog polling every `poll` from `phase`.
Time NextPoll(Time t, Time poll, Time phase);
// That poll for a stall of `port` (its node's watchdog, configured `wd`)
// that began at `since`.
Time TriggerPoll(const Fabric& f, PortId port, const WatchdogConfig& wd, Time since);
// kWatchdogCheck / kWatchdogRestore, at a switch port or a NIC port.
void OnWatchdogCheck(Fabric& f, PortId port, int prio);
void OnWatchdogRestore(Fabric& f, PortId port, int prio);

}  // namespace ops
}  // namespace rocesim
