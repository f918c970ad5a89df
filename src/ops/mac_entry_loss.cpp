#include "ops/mac_entry_loss.h"

#include "net/fabric.h"

namespace rocesim::ops {

namespace {
// The ToR's port to the host (the host's NIC is checked to be cabled to a
// switch when the fabric is laid out), from the layout: a partition may hold
// neither end.
const PortLink& TorPort(const Fabric& f, uint32_t host) {
  const FabricLayout& l = *f.layout;
  return l.ports[l.ports[l.HostPort(host)].peer];
}
Switch& TorOf(Fabric& f, uint32_t host) {
  return f.switches[f.nodes[TorPort(f, host).node].index];
}
}  // namespace

// A partition that does not hold the host's NIC still updates its ToR (if
// it runs it) and the other NICs' filters.
void StartMacEntryLoss(Fabric& f, uint32_t host) {
  if (f.nics.Held(host)) {
    Nic& nic = f.nics[host];
    if (nic.fault.dead) return;
    nic.fault.dead = true;
    nic.fault.UpdateIntercept();
    f.ports[nic.port()].tx_hold = true;
  }
  for (Nic& other : f.nics) {
    other.fault.mac_filter = true;
    other.fault.UpdateIntercept();
  }
  TorOf(f, host).SetMacEntryMissing(host, true);
  const PortLink& tor_port = TorPort(f, host);
  f.ops.Add(f.now, tor_port.node, tor_port.local, 0, "mac_entry_loss_start");
}

void StopMacEntryLoss(Fabric& f, uint32_t host) {
  if (f.nics.Held(host)) {
    Nic& nic = f.nics[host];
    if (!nic.fault.dead) return;
    nic.fault.dead = false;
    nic.fault.UpdateIntercept();
  }
  TorOf(f, host).SetMacEntryMissing(host, false);
  const PortLink& tor_port = TorPort(f, host);
  f.ops.Add(f.now, tor_port.node, tor_port.local, 0, "mac_entry_loss_end");
  if (!f.nics.Held(host)) return;
  const PortId port = f.nics[host].port();
  Port& p = f.ports[port];
  p.tx_hold = p.link_down;
  f.KickPort(port);  // whatever the server had to send goes now
}

}  // namespace rocesim::ops
