#include "net/pfc_sender.h"

#include "net/fabric.h"

namespace rocesim {

void PfcSender::Init(PortId first_port, size_t num_ports, int quanta) {
  first_port_ = first_port;
  quanta_ = quanta;
  refresh_due_.assign(num_ports * kNumPriorities, 0);
}

void PfcSender::SendXoff(Fabric& f, PortId port, int prio) {
  f.SendPause(port, prio, quanta_);
  // Renew the pause at half its length, before the upstream's quanta run out.
  const Time refresh = SerializationTime(int64_t{quanta_} * 64, f.ports[port].rate_bps) / 2;
  const size_t i = Index(port, prio);
  refresh_due_[i] = f.now + refresh;
  f.Schedule(refresh_due_[i], EventKind::kPfcRefresh, port, static_cast<uint32_t>(prio));
}

bool PfcSender::RefreshDue(const Fabric& f, PortId port, int prio) const {
  return f.now >= refresh_due_[Index(port, prio)];
}

}  // namespace rocesim
