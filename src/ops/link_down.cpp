#include "ops/link_down.h"

#include "net/fabric.h"

namespace rocesim::ops {

void LinkDown(Fabric& f, PortId port) {
  // A partition that holds neither end has nothing to take down (a failing
  // link is never cut, sim/partition.h: it holds both or neither).
  if (!f.ports.Held(port)) return;
  for (const PortId x : {port, f.ports[port].peer}) {
    Port& p = f.ports[x];
    if (p.link_down) return;
    p.link_down = true;
    p.tx_hold = true;
    p.link_ops |= Port::kLinkHasFailed;
    // The wire's frames never arrive (their kLinkArrive events go stale).
    while (!p.wire.Empty()) {
      const PktId id = p.wire.Pop(f.pool);
      if (f.pool[id].type == PktType::kPause || f.pool[id].type == PktType::kRcmNotify) {
        f.FreeControlFrame(id);
      } else {
        f.CountDrop(id, DropCause::kLinkDown, p.peer);
      }
    }
    // Pause state dies with the link.
    for (int q = 0; q < kNumPriorities; ++q) {
      if (p.paused_until[q] > f.now) {
        p.counters.paused_time -= p.paused_until[q] - f.now;
        p.SetPausedUntil(q, f.now, f.now);
      }
    }
    const Node& n = f.nodes[p.node];
    if (n.is_switch) {
      p.drop_mask = 0xFF;
      for (int q = 0; q < kNumPriorities; ++q) f.DrainSwitchQueue(x, q, DropCause::kLinkDown);
    }
    f.ops.Add(f.now, p.node, p.local, 0, "link_down");
  }
}

void LinkUp(Fabric& f, PortId port) {
  if (!f.ports.Held(port)) return;
  for (const PortId x : {port, f.ports[port].peer}) {
    Port& p = f.ports[x];
    if (!p.link_down) return;
    p.link_down = false;
    // A dead server's NIC (src/ops/mac_entry_loss.h) still sends nothing.
    const Node& n = f.nodes[p.node];
    p.tx_hold = !n.is_switch && f.nics[n.index].fault.dead;
    p.drop_mask = p.wd_drop;
    // PFC frames queued while down are out of date.
    while (!p.control.Empty()) f.FreeControlFrame(p.PopControl(f.pool));
    f.ops.Add(f.now, p.node, p.local, 0, "link_up");
  }
  f.KickPort(port);
  f.KickPort(f.ports[port].peer);
}

}  // namespace rocesim::ops
