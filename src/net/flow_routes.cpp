#include "net/flow_routes.h"

#include "net/fabric.h"

namespace rocesim {

namespace {
constexpr PortId kNoPort = UINT32_MAX;

// Walks from host `src`'s NIC to `dst` as the switches would forward a frame
// with ECMP key `key`, recording each switch's egress port.
void Walk(const Fabric& f, uint32_t src, uint32_t dst, uint64_t key, uint32_t epoch, FlowRoute* r) {
  r->epoch = epoch;
  r->out.fill(kNoPort);  // never one of a switch's ports
  // The layout's links: a partition need not hold the ports on the way.
  size_t hop = 0;
  WalkEcmpPath(*f.layout, f.routing, src, dst, key, FlowRoute::kMaxHops,
               [&](uint32_t /*node*/, PortId out) { r->out[hop++] = out; });
}
}  // namespace

void FlowRoutes::Compute(const Fabric& f, uint32_t flow) {
  // Its ends, not the flow: a partition computes the routes of flows that
  // only cross it, which it does not hold (transport/flow_table.h).
  const FlowEnds e = f.flows.Ends(flow);
  Walk(f, e.src, e.dst, Routing::FlowKey(e.src, e.dst, e.sport), epoch_, &routes_[DataRoute(flow)]);
  Walk(f, e.dst, e.src, Routing::FlowKey(e.dst, e.src, e.sport), epoch_,
       &routes_[ReplyRoute(flow)]);
}

}  // namespace rocesim
