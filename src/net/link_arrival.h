// Fabric::OnLinkArrive, the landing of a frame (the event loop's most
// frequent step): inline, with the shared-buffer switch's hop inside it
// (net/switch_forward.h), so that the loop runs a whole hop without a call.
// Included by the event loop (sim/simulation.cpp) and nothing else.
#pragma once

#ifdef ROCESIM_CHECKS
#include <fmt/format.h>

#include <stdexcept>
#endif

#include "net/fabric.h"
#include "net/switch_forward.h"
#include "ops/packet_loss.h"

namespace rocesim {

[[gnu::always_inline]] inline void Fabric::OnLinkArrive(PortId port, PktId pkt_id) {
  Port& p = ports[port];
  const uint8_t link_ops = p.link_ops;
  PktId id = pkt_id;  // the wire's head, as its event says
  // A link that failed (stale arrival events) or loses frames (src/ops/).
  if (link_ops) [[unlikely]] {
    if (ops::OnFaultyLinkArrive(*this, port)) return;
    // Whatever the event named: the frame now at the head lands (a stale
    // event of a failed link may name a frame long gone).
    id = p.wire.Head();
  }
  // The landing frame's packet names the next frame on the wire and when
  // it lands (net/wire.h): it must be the wire's head.
#ifdef ROCESIM_CHECKS
  if (id != p.wire.Head())
    throw std::logic_error(
        fmt::format("port {}: frame {} lands but the wire's head is {}", port, id, p.wire.Head()));
#endif
  p.wire.Drop(pool[id]);
  if (!p.wire.Empty()) {
    const PktId next = p.wire.Head();
    ScheduleArrival(p.wire.HeadArrive(), port, next);
    // It lands a frame time from now: fetch its packet meanwhile.
    __builtin_prefetch(&pool[next]);
  }
  const PortId in = p.peer;
  // A frame corrupted on the wire fails its FCS check at the receiver.
  // ... and one that arrives intact is captured if the receiver's port is.
  if (link_ops & (Port::kLinkErrors | Port::kLinkCaptureRx)) [[unlikely]] {
    if ((link_ops & Port::kLinkErrors) && link_rngs[port].Uniform() < p.loss_probability) {
      const PktType type = pool[id].type;
      if (type == PktType::kPause || type == PktType::kRcmNotify) {
        FreeControlFrame(id);  // not host traffic: lost, outside the frame counts
        return;
      }
      CountDrop(id, DropCause::kLinkError, in);
      return;
    }
    if (link_ops & Port::kLinkCaptureRx) CaptureFrame(port, id, true);
  }
  // The receiving node, from the transmitting port: no read of the peer port.
  switch (static_cast<NodeKind>(p.RxKind())) {
    case NodeKind::kSharedBuffer:
      switches[p.RxIndex()].Receive(*this, in, id);
      break;
    case NodeKind::kCioq:
      cioq_switches[p.RxIndex()].Receive(*this, in, id);
      break;
    case NodeKind::kHost:
      nics[p.RxIndex()].Receive(*this, id);
      break;
  }
}

}  // namespace rocesim
