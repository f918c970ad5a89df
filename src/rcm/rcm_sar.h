// Switch-level adaptive routing (SAR) of seed 002 §3.4: "When the switch in a
// congestion region ... it makes adaptive routing decision for non-congested or
// new flows to select the next available output port with minimum regional
// congestion degree ... the harmful congestion flows should not be detoured ...
// if there are no more available paths, the flow not hitting in CAM still will
// not be detoured."
//
// RcmSarChoose returns the output port for one packet/flow:
//  - a harmful flow (hit in the CAM of its current port, for that port's role)
//    keeps its current port: detouring it would spread the congestion;
//  - outside a congestion region nothing moves (plain ECMP);
//  - with fewer than two candidates there is nowhere to go;
//  - otherwise the candidate with the least regional degree (eq. 2) wins; ties
//    go to the lower load, then to the current (ECMP) port so a flow is not
//    moved (and reordered) for nothing, then to the earlier candidate in the
//    list, so the choice is deterministic.
// "In a region" for a flow (ours): its current port's regional degree is at
// least RcmSarParams::min_degree (RcmSarInRegion); the caller may use any other
// test and pass the result.
//
// Pure function over a caller-owned span: no allocation, one pass.
#pragma once

#include <cstdint>
#include <span>

#include "rcm/rcm_params.h"

namespace rocesim {

struct RcmSarCandidate {
  uint16_t port = 0;            // output port index
  uint8_t regional_degree = 0;  // eq. 2 degree of that port (RcmPortState::RegionalDegree)
  int64_t load_bytes = 0;       // its load, e.g. bytes queued for it (caller's measure)
};

inline bool RcmSarInRegion(uint8_t current_regional_degree, const RcmSarParams& p) {
  return current_regional_degree >= p.min_degree;
}

uint16_t RcmSarChoose(std::span<const RcmSarCandidate> candidates, uint16_t current_port,
                      bool harmful, bool in_region);

}  // namespace rocesim
