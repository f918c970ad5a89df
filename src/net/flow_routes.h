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
#pragma once

#include <array>
#include <cstdint>
#include <vector>

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
  // Frames name their route by index: flow * 2 for data, flow * 2 + 1 for
  // the responder's ACK / NAK / CNP.
  static uint32_t DataRoute(uint32_t flow) { return flow * 2; }
  static uint32_t ReplyRoute(uint32_t flow) { return flow * 2 + 1; }

  void Resize(size_t flows) { routes_.resize(2 * flows); }
  uint32_t epoch() const { return epoch_; }
  // The routing tables changed: every route is stale until computed again.
  void NewEpoch() { ++epoch_; }
  // (Re)computes both directions of `flow` from f.routing.
  void Compute(const Fabric& f, uint32_t flow);

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

 private:
  std::vector<FlowRoute> routes_;
  uint32_t epoch_ = 0;
};

}  // namespace rocesim
