// The ideal completion time of one collective instance (issue "AI training
// on RoCE fabrics"): how long its messages take on an otherwise idle fabric
// with no congestion, given their dependencies. Each NIC sends one message at
// a time and receives one at a time at line rate (a GPU's NVLink port
// likewise); a message starts once it is ready (its dependencies done at its
// source) and both its sender and its receiver are free, in order of
// readiness; its last byte arrives its ideal delivery time after it starts
// (stats/ideal_fct.h: store and forward on its path), its sender is done at
// its ideal FCT. The instance's time is its last delivery.
//
// This is a list schedule of the dependency graph, exact for the ring,
// chain, halving-doubling and direct algorithms on a non-blocking fabric
// (each NIC moves one message at a time there anyway, or its messages share
// it with the same makespan) and close for the tree, where a rank receives
// from two children at once. ACK frames are not counted: with ack_every = 1
// they take about 7% of each reverse link (86 of every 1,168 wire bytes), so
// an idle-fabric ring measures a slowdown near 1.07 (README "Model notes").
#pragma once

#include <cstdint>
#include <vector>

#include "core/time.h"
#include "scenario/scenario.h"

namespace rocesim {

// Per flow of the instance's traffic entry (entry-local index).
struct IdealMessage {
  uint32_t src = 0;
  uint32_t dst = 0;
  Time occupancy = 0;   // the sender's (and receiver's) port time: its frames at line rate
  Time delivered = 0;   // ideal: last byte at the receiver, from its start
  Time done = 0;        // ideal: final ACK at the sender, from its start
  bool nvlink = false;  // inside a GPU server: NVLink ports, not NICs
};

// The makespan of the entry's flows [first, end) (entry-local indices), from
// the moment the first may start; `flows` / `joins` are the entry's
// (FlowSpec::after in entry-local node numbers), `msg` per entry flow.
// Dependencies on nodes outside the range are taken as done at 0.
Time IdealCollectiveTime(const std::vector<FlowSpec>& flows, const std::vector<JoinSpec>& joins,
                         const std::vector<IdealMessage>& msg, uint32_t first, uint32_t end,
                         uint32_t hosts);

}  // namespace rocesim
