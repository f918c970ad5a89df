#include "ops/nic_pause_storm.h"

#include "net/fabric.h"
#include "ops/nic_pause.h"

namespace rocesim::ops {

void StartNicPauseStorm(Fabric& f, uint32_t host, int prio) {
  Nic& nic = f.nics[host];
  NicFaultState& st = nic.fault;
  st.rx_down = true;
  st.storming = true;
  st.UpdateIntercept();
  const Port& p = f.ports[nic.port()];
  f.ops.Add(f.now, p.node, p.local, prio, "storm_start");
  StartNicPausing(f, host, static_cast<uint8_t>(1u << prio));
}

void StopNicPauseStorm(Fabric& f, uint32_t host) {
  Nic& nic = f.nics[host];
  NicFaultState& st = nic.fault;
  if (!st.storming) return;
  st.rx_down = false;
  st.storming = false;
  st.UpdateIntercept();
  const Port& p = f.ports[nic.port()];
  int prio = 0;
  while (prio < kNumPriorities - 1 && !(st.pause_mask >> prio & 1)) ++prio;
  StopNicPausing(f, host);  // the NIC recovers: an XON releases the ToR at once
  f.ops.Add(f.now, p.node, p.local, prio, "storm_end");
}

}  // namespace rocesim::ops
