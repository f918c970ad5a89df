// PFC storm watchdogs (seed 003 §4.3; §6.2 incident 1: "after we put the NIC
// PFC storm prevention watchdogs at both the servers and the ToR switches, we
// did not experience NIC PFC storms anymore").
//  - Switch (switch.watchdog): an egress (port, priority) that has been
//    paused continuously for `detect` while holding frames triggers: the port
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

namespace rocesim {

struct Fabric;

namespace ops {

// A switch port's transmitter became paused on `prio` (not a renewal).
void OnPauseStarted(Fabric& f, PortId port, int prio);
// kWatchdogCheck / kWatchdogRestore, at a switch port or a NIC port.
void OnWatchdogCheck(Fabric& f, PortId port, int prio);
void OnWatchdogRestore(Fabric& f, PortId port, int prio);

}  // namespace ops
}  // namespace rocesim
