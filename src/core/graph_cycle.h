// Cycle detection for the dependency graphs (transport/flow_dependencies.h,
// workload/dependency_file.h): Kahn's algorithm, then a walk back through
// the nodes it could not order to one cycle among them, so an error can name
// the nodes that wait for each other.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace rocesim {

// The nodes of one cycle of the directed graph on [0, nodes) whose edges
// are (pred, succ) pairs (succ waits for pred), in waiting order (each waits
// for the next, the last for the first); empty when there is none.
std::vector<uint32_t> FindCycle(uint32_t nodes,
                                const std::vector<std::pair<uint32_t, uint32_t>>& edges);

}  // namespace rocesim
