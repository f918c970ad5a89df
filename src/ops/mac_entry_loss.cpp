#include "ops/mac_entry_loss.h"

#include "net/fabric.h"

namespace rocesim::ops {

namespace {
// The switch the host's NIC is cabled to (checked to be one when the fabric is built).
Switch& TorOf(Fabric& f, uint32_t host) {
  const Port& tor_port = f.ports[f.ports[f.nics[host].port()].peer];
  return f.switches[f.nodes[tor_port.node].index];
}
}  // namespace

void StartMacEntryLoss(Fabric& f, uint32_t host) {
  Nic& nic = f.nics[host];
  if (nic.fault.dead) return;
  nic.fault.dead = true;
  nic.fault.UpdateIntercept();
  f.ports[nic.port()].tx_hold = true;
  for (Nic& other : f.nics) {
    other.fault.mac_filter = true;
    other.fault.UpdateIntercept();
  }
  TorOf(f, host).SetMacEntryMissing(host, true);
  const Port& tor_port = f.ports[f.ports[nic.port()].peer];
  f.ops.Add(f.now, tor_port.node, tor_port.local, 0, "mac_entry_loss_start");
}

void StopMacEntryLoss(Fabric& f, uint32_t host) {
  Nic& nic = f.nics[host];
  if (!nic.fault.dead) return;
  nic.fault.dead = false;
  nic.fault.UpdateIntercept();
  Port& p = f.ports[nic.port()];
  p.tx_hold = p.link_down;
  TorOf(f, host).SetMacEntryMissing(host, false);
  const Port& tor_port = f.ports[p.peer];
  f.ops.Add(f.now, tor_port.node, tor_port.local, 0, "mac_entry_loss_end");
  f.KickPort(nic.port());  // whatever the server had to send goes now
}

}  // namespace rocesim::ops
