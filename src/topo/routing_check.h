// Routing::Rerouted's tables held against a fresh Routing::Build of the
// same fabric (topo/routing.h): the checks build (ROCESIM_CHECKS) compares
// them at every link_down convergence, and the tests do at every step.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "topo/routing.h"

namespace rocesim {

// Build's tables for `adjacency` without the links `down`, or none where
// Build throws (a host cut off).
std::optional<Routing> BuiltWithout(const Routing::Adjacency& adjacency,
                                    const std::vector<uint32_t>& host_nodes,
                                    const std::vector<int32_t>& switch_index, uint64_t salt,
                                    std::span<const Routing::Link> down);

// The first switch node and host at which `a` and `b` forward differently
// (their next hops or the switch's hash salt), said in words; none if they
// agree everywhere.
std::optional<std::string> FirstDifference(const Routing& a, const Routing& b,
                                           const std::vector<int32_t>& switch_index,
                                           uint32_t num_hosts);

}  // namespace rocesim
