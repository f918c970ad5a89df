// What each switch's buffer must hold (seed 003 §6.2, seed 002 §4.1): the
// PFC headroom of a lossless (port, priority), and the check that every
// switch's buffer (shared-buffer carve-outs, CIOQ queues) can hold what its
// configuration asks for.
#pragma once

#include <cstdint>
#include <vector>

#include "net/fabric_layout.h"
#include "scenario/scenario.h"

namespace rocesim {

// PFC headroom of a lossless (port, priority) of a switch, either
// architecture: the bytes that keep arriving after XOFF — a round trip of the
// cable at line rate, plus a frame in flight at each end and the pause frame
// itself — unless the scenario fixes it (switch.pfc.headroom). max_frame
// includes the IFG.
int64_t PfcHeadroomBytes(const PortLink& p, const PfcConfig& pfc, int max_frame);

// The PFC headroom of each of switch node n's ports.
std::vector<int64_t> SwitchHeadroom(const FabricLayout& l, uint32_t n, const PfcConfig& pfc,
                                    int max_frame);

// The largest frame on the wire: MTU, headers and the inter-frame gap.
inline int MaxFrameBytes(const Scenario& sc) {
  return sc.host.mtu_bytes + sc.host.header_bytes + sc.topology.ifg_bytes;
}

// Throws BuildError (FailBuild) naming the first switch, in node order, whose
// shared buffer is smaller than its reserved and headroom carve-outs, or whose
// CIOQ queues cannot hold a frame (above its headroom, when lossless). Run on
// the whole layout before any partition is built (net/fabric_layout.cpp), so
// every partition, thread and rank of a run refuses a fabric alike and names
// the switch a serial run names: a rank that built on would wait for the
// refused one's windows forever.
void CheckSwitchBuffers(const FabricLayout& l, const Scenario& sc);

}  // namespace rocesim
