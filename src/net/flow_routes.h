// Each flow's route, per direction, as the egress port it takes at each
// switch: the shared-buffer switch forwards a frame of a known flow with one
// load of its route instead of the ECMP lookup chain (host entry, table
// entry, port set, five-tuple hash: four dependent loads and two
// hard-to-predict branches per hop; bench/NOTES.md, fourth session).
//
// A route is exactly what Routing::SelectByKey gives at each switch for the
// flow's destination and five-tuple key, computed when the flow starts and
// again whenever the routing tables change (link_down faults bump the
// epoch). A switch uses the cached port only when the route is current and
// the port at the frame's hop index (from its TTL) is one of its own ports:
// every switch appears at most once on a shortest path, so that port is the
// switch's own ECMP choice for the frame; anything else (a flooded copy, a
// frame caught by a route change, a route longer than kMaxHops) takes the
// full lookup, with the same result.
//
// A serial run keeps a route for every flow, at the flow's id. A partition
// of a parallel run (sim/partitioned_run.h) keeps routes only for the flows
// its switches forward: the flows its hosts send, computed when they start,
// and any other flow when its first frame enters (Entering: one its hosts
// receive, or one that only crosses it). Those take places in the order
// they come, behind a map from id to place (4 bytes a flow against a
// route's 64), so the cache of a partition falls with the partition count.
// A frame names its route by place, which is the partition's own: Entering
// renames it as it crosses.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/mapped_vector.h"
#include "net/port.h"

namespace rocesim {

struct Fabric;

struct FlowRoute {
  static constexpr int kMaxHops = 7;
  uint32_t epoch = UINT32_MAX;         // Routing epoch it was computed in (UINT32_MAX: never)
  std::array<PortId, kMaxHops> out{};  // egress port at the i-th switch
};
static_assert(sizeof(FlowRoute) == 32, "both directions of a flow share one cache line");

class FlowRoutes {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // Routes for `flows` flows: at their ids (`partial` false, a serial run),
  // or at places taken as they are computed (a partition).
  void Resize(size_t flows, bool partial);
  uint32_t epoch() const { return epoch_; }
  // The routing tables changed: every route is stale until computed again.
  void NewEpoch() { ++epoch_; }
  // (Re)computes both directions of `flow` from f.routing.
  void Compute(const Fabric& f, uint32_t flow);

  // The route a frame of `flow` names: its data (sender to receiver) or its
  // reply (the responder's ACK / NAK / CNP); kNone when none is kept here.
  uint32_t DataRoute(uint32_t flow) const { return Name(flow, 0); }
  uint32_t ReplyRoute(uint32_t flow) const { return Name(flow, 1); }
  // A frame of `flow` that named route `route` in the partition it left
  // enters this one: the name of its route here, computed first if this
  // partition has none for the flow or a stale one.
  uint32_t Entering(const Fabric& f, uint32_t flow, uint32_t route) {
    if (route == kNone) return kNone;  // a frame that follows no route (pause, RCM note)
    const uint32_t dir = route & 1;
    if (!partial_) return At(flow, dir);
    const uint32_t place = place_[flow];
    if (place != kNone && routes_[At(place, 0)].epoch == epoch_) [[likely]]
      return At(place, dir);
    return EnteringAnew(f, flow, dir);
  }

  // The egress port cached for route `route` at the switch whose ports are
  // [first_port, first_port + num_ports), where the frame is at its hop-th
  // switch; false when the cache cannot say (the caller looks it up).
  bool Lookup(uint32_t route, uint32_t hop, PortId first_port, uint32_t num_ports,
              PortId* out) const {
    if (route == kNone || hop >= FlowRoute::kMaxHops) return false;
    const FlowRoute& r = routes_[route];
    const PortId port = r.out[hop];
    if (r.epoch != epoch_ || port - first_port >= num_ports) return false;
    *out = port;
    return true;
  }

  // Flows with a route kept here (a serial run: every flow).
  size_t Kept() const { return routes_.size() / 2; }

 private:
  // Route `dir` (0 data, 1 reply) of the flow at `place`.
  static uint32_t At(uint32_t place, uint32_t dir) { return place * 2 + dir; }
  uint32_t Name(uint32_t flow, uint32_t dir) const {
    if (!partial_) return At(flow, dir);
    const uint32_t place = place_[flow];
    return place == kNone ? kNone : At(place, dir);
  }
  // The place of `flow`'s routes, taken now if it has none.
  uint32_t PlaceOf(uint32_t flow);
  // Entering's route `dir` of a flow new here, or one whose route the
  // routing tables changed since (a partition recomputes only its own
  // hosts' flows at a link_down): computed now.
  uint32_t EnteringAnew(const Fabric& f, uint32_t flow, uint32_t dir);

  bool partial_ = false;
  MappedVector<FlowRoute> routes_;  // by At(place, dir); a serial run's place is the flow id
  std::vector<uint32_t> place_;     // partial: per flow id, its place (kNone: none)
  uint32_t epoch_ = 0;
};

}  // namespace rocesim
