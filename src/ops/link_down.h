// Fault `link_down` (seed 003 §6.2, §6.3: links fail and the fabric must
// route around them): a link stops carrying frames. Frames on its wires are
// lost, frames queued at a switch for it are dropped, and so is every frame
// a switch still routes to it (cause link_down); a NIC on it holds its
// traffic. Routes are recomputed on the links that are up `convergence`
// after the failure (Simulation::RecomputeRoutes), and again when the link
// comes back at `until`. Costs one bool test per transmission and arrival,
// and only when some link_down fault is configured.
#pragma once

#include "net/port.h"

namespace rocesim {

struct Fabric;

namespace ops {

// `port`: either end of the link.
void LinkDown(Fabric& f, PortId port);
void LinkUp(Fabric& f, PortId port);

}  // namespace ops
}  // namespace rocesim
