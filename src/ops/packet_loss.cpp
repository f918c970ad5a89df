#include "ops/packet_loss.h"

#include "net/fabric.h"

namespace rocesim::ops {

void StartPacketLoss(Fabric& f, PortId port, uint32_t fault, double probability,
                     uint32_t every_nth) {
  if (f.loss_faults.size() <= fault) f.loss_faults.resize(fault + 1);
  f.loss_faults[fault] = LossFaultState{probability, every_nth, 0,
                                        Rng(f.scenario->seed, 0xFA17000000000000ULL + fault)};
  // Frames are lost as they land: the partition holding the link's far end
  // (its own or a cut link's) draws; one holding neither has nothing to do.
  if (!f.ports.Held(port)) return;
  Port& p = f.ports[port];
  p.loss_fault = static_cast<uint16_t>(fault + 1);
  p.link_ops |= Port::kLinkLossy;
  f.ops.Add(f.now, p.node, p.local, 0, "packet_loss_start");
}

void StopPacketLoss(Fabric& f, PortId port) {
  if (!f.ports.Held(port)) return;
  Port& p = f.ports[port];
  p.loss_fault = 0;
  p.link_ops &= static_cast<uint8_t>(~Port::kLinkLossy);
  f.ops.Add(f.now, p.node, p.local, 0, "packet_loss_end");
}

bool OnFaultyLinkArrive(Fabric& f, PortId port) {
  Port& p = f.ports[port];
  // A link that went down lost its wire's frames; their events are stale.
  if (p.wire.Empty() || p.wire.HeadArrive() != f.now) return true;
  if (!(p.link_ops & Port::kLinkLossy)) return false;
  const PktId id = p.wire.Head();
  if (f.pool[id].type != PktType::kData) return false;
  LossFaultState& st = f.loss_faults[p.loss_fault - 1u];
  const bool lose =
      st.every_nth > 0 ? ++st.seen % st.every_nth == 0 : st.rng.Uniform() < st.probability;
  if (!lose) return false;
  p.wire.Pop(f.pool);
  if (!p.wire.Empty()) f.ScheduleArrival(p.wire.HeadArrive(), port, p.wire.Head());
  f.CountDrop(id, DropCause::kInjectedLoss, p.peer);
  return true;
}

}  // namespace rocesim::ops
