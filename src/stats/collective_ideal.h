// The ideal completion time of one collective instance (issue "AI training
// on RoCE fabrics"): how long its messages take on an otherwise idle fabric
// with no congestion, given their dependencies. A message starts once it is
// ready (its dependencies done at its source host); its last byte arrives
// its ideal delivery time after it starts (stats/ideal_fct.h: store and
// forward on its path) and its sender is done at its ideal FCT. Ports move
// one message at a time at line rate, and a message occupies a port for its
// data frames plus the ACKs its receiver returns on the same links in the
// other direction (one ACK frame per host.ack_every packets: 86 of every
// 1,168 wire bytes at ack_every 1), since every rank of a collective sends
// and receives at once. Two relaxations are scheduled, in order of
// readiness — each sending port one message at a time (receivers
// unconstrained), and each receiving port one at a time (senders
// unconstrained) — and the ideal is the larger makespan. That is exact for
// the ring, chain and halving-doubling algorithms and for direct all-to-all
// on a non-blocking fabric, and a close lower bound for the tree, where a
// rank's messages to its two children and from them overlap. An instance's
// time is its last delivery.
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
