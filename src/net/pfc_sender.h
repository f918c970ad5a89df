// Sending PFC XOFF from a switch ingress (port, priority) and renewing it
// before the upstream's pause runs out (DESIGN.md §3; README model notes:
// "renewed at half the pause time while the ingress stays congested"). Both
// switch architectures pause their upstream through it: the shared-buffer
// switch per priority group of its MMU, the CIOQ switch per input queue
// (seed 002 §4.1). Whether the ingress is still congested is the caller's
// state; this keeps only when each XOFF is next due for renewal.
#pragma once

#include <cstddef>
#include <vector>

#include "core/time.h"
#include "net/port.h"

namespace rocesim {

struct Fabric;

class PfcSender {
 public:
  void Init(PortId first_port, size_t num_ports, int quanta);

  // Queues XOFF (cfg quanta) for `prio` on switch port `port` and schedules
  // its renewal (a kPfcRefresh event) at half the pause time.
  void SendXoff(Fabric& f, PortId port, int prio);
  // A kPfcRefresh event for (port, prio) is the latest one scheduled: stale
  // ones (the ingress resumed, and maybe paused again since) are not.
  bool RefreshDue(const Fabric& f, PortId port, int prio) const;

 private:
  size_t Index(PortId port, int prio) const {
    return (port - first_port_) * kNumPriorities + static_cast<size_t>(prio);
  }

  PortId first_port_ = 0;
  int quanta_ = 0;
  std::vector<Time> refresh_due_;  // per (port, priority): when XOFF is next renewed
};

}  // namespace rocesim
