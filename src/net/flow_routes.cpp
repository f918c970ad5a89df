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

void FlowRoutes::Resize(size_t flows, bool partial) {
  partial_ = partial;
  routes_ = MappedVector<FlowRoute>();
  // Address space for every flow's routes; a partition writes (and so
  // spends memory on) only the places it takes.
  routes_.reserve(2 * flows);
  place_.clear();
  if (partial) {
    place_.assign(flows, kNone);
    return;
  }
  for (size_t i = 0; i < 2 * flows; ++i) routes_.emplace_back();
}

uint32_t FlowRoutes::PlaceOf(uint32_t flow) {
  if (!partial_) return flow;
  uint32_t& place = place_[flow];
  if (place == kNone) {
    place = static_cast<uint32_t>(routes_.size() / 2);
    routes_.emplace_back();
    routes_.emplace_back();
  }
  return place;
}

void FlowRoutes::Compute(const Fabric& f, uint32_t flow) {
  // Its ends, not the flow: a partition computes the routes of flows that
  // only cross it, which it does not hold (transport/flow_table.h).
  const FlowEnds e = f.flows.Ends(flow);
  const uint32_t place = PlaceOf(flow);
  Walk(f, e.src, e.dst, Routing::FlowKey(e.src, e.dst, e.sport), epoch_, &routes_[At(place, 0)]);
  Walk(f, e.dst, e.src, Routing::FlowKey(e.dst, e.src, e.sport), epoch_, &routes_[At(place, 1)]);
}

uint32_t FlowRoutes::EnteringAnew(const Fabric& f, uint32_t flow, uint32_t dir) {
  Compute(f, flow);
  return At(place_[flow], dir);
}

}  // namespace rocesim
