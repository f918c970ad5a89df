// What a partitioner should balance: the work of a run is per frame per hop
// (a landing and a departure at every node a frame crosses), so a node's
// load is the number of data frames that cross it.
//
// Simplified: the estimate knows the workload before it runs (every flow's
// size and its ECMP path at the start, as FlowRoutes computes it), not how
// it will run: ACKs, CNPs, pause frames, retransmissions, adaptive-routing
// detours and routes changed by faults are not counted, and a frame counts
// the same at a 400G port as at a 25G one.
#pragma once

#include <cstdint>
#include <vector>

namespace rocesim {

struct FabricLayout;
struct Scenario;

// Per node of `layout`: the data frames of `scenario`'s flows that the node
// sends, forwards or receives.
std::vector<uint64_t> EstimateNodeLoad(const FabricLayout& layout, const Scenario& scenario);

}  // namespace rocesim
