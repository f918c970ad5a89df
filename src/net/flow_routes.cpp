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
  const FabricLayout& l = *f.layout;
  PortId port = l.HostPort(src);
  for (int hop = 0; hop < FlowRoute::kMaxHops; ++hop) {
    const Node& next = l.nodes[l.PeerNode(port)];
    if (!next.is_switch) return;
    port = next.first_port + f.routing.SelectByKey(next.index, dst, key);
    r->out[static_cast<size_t>(hop)] = port;
  }
}
}  // namespace

void FlowRoutes::Compute(const Fabric& f, uint32_t flow) {
  const Flow& fl = f.flows[flow];
  Walk(f, fl.src, fl.dst, fl.data_key, epoch_, &routes_[DataRoute(flow)]);
  Walk(f, fl.dst, fl.src, fl.reply_key, epoch_, &routes_[ReplyRoute(flow)]);
}

}  // namespace rocesim
