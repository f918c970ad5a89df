// Invariants every run checks (issue "invariants in every run"): at the end
// of every run, cheaply, and -- in a checks build (-DROCESIM_CHECKS=ON) --
// while it runs (sim/simulation.cpp). summary.json reports them under
// `invariants`; a broken one ends `rocesim run` with exit status 3 naming it.
//   frames_conserved   injected + replicated = delivered + dropped + in network
//   payload_conserved  the same in payload bytes
//   counts_consistent  no queue, buffer or paused-time count negative; a
//                      queue's bytes agree with its frames; a switch's totals
//                      agree with its priority groups; no PG holds more
//                      headroom than it has (so no lossless frame was dropped
//                      while headroom remained: a lossless PG drops only a
//                      frame its headroom cannot hold)
//   pauses_answered    no XOFF outstanding on a priority group (or CIOQ input
//                      queue) that has emptied: every pause sent is answered by
//                      a resume (or runs out)
//   in_order_delivery  a responder saw a sequence gap (sent a NAK) only where
//                      something can lose or reorder frames: a drop, a fault,
//                      adaptive routing
//   rcm_contained      RCM notifications never reach a host; SAR never
//                      reroutes a harmful flow (seed 002 §3.4)
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "stats/counters.h"

namespace rocesim {

struct Fabric;
struct Scenario;

inline constexpr std::array<std::string_view, 6> kInvariantNames = {
    "frames_conserved", "payload_conserved", "counts_consistent",
    "pauses_answered",  "in_order_delivery", "rcm_contained"};

#ifdef ROCESIM_CHECKS
inline constexpr bool kChecksBuild = true;
#else
inline constexpr bool kChecksBuild = false;
#endif

struct InvariantBreak {
  std::string name;    // one of kInvariantNames
  std::string detail;  // what was found, where
};

// A checks build found an invariant broken while the run ran (exit 3).
struct InvariantError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The state one fabric (one replica of a partitioned run) holds: its ports'
// queues, its switches' buffers and PFC states.
std::optional<InvariantBreak> CheckFabricState(const Fabric& f);

// Fabric-wide totals (all replicas merged): conservation, ordering, RCM.
std::optional<InvariantBreak> CheckTotals(const Scenario& s, const Counters& c,
                                          uint64_t in_network_frames,
                                          uint64_t in_network_payload_bytes);

}  // namespace rocesim
