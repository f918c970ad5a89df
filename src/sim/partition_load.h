// What a partitioner should balance, and what it should not cut: the work of
// a run is per frame per hop (a landing and a departure at every node a
// frame crosses), so a node's load is the number of data frames that cross
// it; and a frame that crosses a cut link is handed from one partition to
// another (sent across, taken in: work the serial run does not do), so a
// link's cost to cut is the number of frames that cross it.
//
// Simplified: the estimate knows the workload before it runs (every flow's
// size and its ECMP path at the start, as FlowRoutes computes it), not how
// it will run: ACKs, CNPs, pause frames, retransmissions, adaptive-routing
// detours and routes changed by faults are not counted (a data frame's ACK
// takes the reverse path, so a link's data frames stand for its ACKs too),
// and a frame counts the same at a 400G port as at a 25G one.
#pragma once

#include <cstdint>
#include <vector>

namespace rocesim {

struct ExpandedTraffic;
struct FabricLayout;
struct Scenario;

struct FabricLoad {
  std::vector<uint64_t> node_frames;  // per node: frames it sends, forwards or receives
  std::vector<uint64_t> port_frames;  // per port: frames sent out of it
};

// The data frames of `scenario`'s flows at each node and port of `layout`.
FabricLoad EstimateFabricLoad(const FabricLayout& layout, const Scenario& scenario);
// The same from its entries expanded already (ExpandWorkload).
FabricLoad EstimateFabricLoad(const FabricLayout& layout, const Scenario& scenario,
                              const std::vector<ExpandedTraffic>& traffic);

}  // namespace rocesim
