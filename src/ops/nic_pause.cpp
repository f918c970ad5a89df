#include "ops/nic_pause.h"

#include "net/fabric.h"
#include "ops/watchdog.h"

namespace rocesim::ops {

namespace {
constexpr int kFullQuanta = 0xFFFF;
}

void SendNicPause(Fabric& f, uint32_t host) {
  Nic& nic = f.nics[host];
  NicFaultState& st = nic.fault;
  const PortId port = nic.port();
  for (int p = 0; p < kNumPriorities; ++p)
    if (st.pause_mask >> p & 1) f.SendPause(port, p, kFullQuanta);
  // Renewed at half the pause time, so the ToR never sees it run out.
  st.next_pause = f.now + SerializationTime(int64_t{kFullQuanta} * 64, f.ports[port].rate_bps) / 2;
  f.Schedule(st.next_pause, EventKind::kStormPause, host);
}

void StartNicPausing(Fabric& f, uint32_t host, uint8_t mask) {
  Nic& nic = f.nics[host];
  NicFaultState& st = nic.fault;
  if (st.pausing) return;
  st.pausing = true;
  st.pause_mask = mask;
  if (st.wd_suppressed) return;  // the watchdog's restore resumes pausing
  st.pausing_since = f.now;
  SendNicPause(f, host);
  const WatchdogConfig& wd = f.scenario->host.watchdog;
  if (wd.enabled)
    f.Schedule(TriggerPoll(f, nic.port(), wd, f.now), EventKind::kWatchdogCheck, nic.port());
}

void StopNicPausing(Fabric& f, uint32_t host) {
  Nic& nic = f.nics[host];
  NicFaultState& st = nic.fault;
  if (!st.pausing) return;
  st.pausing = false;
  st.next_pause = kTimeMax;
  if (st.wd_suppressed) return;
  for (int p = 0; p < kNumPriorities; ++p)
    if (st.pause_mask >> p & 1) f.SendPause(nic.port(), p, 0);
}

void OnNicPauseRenew(Fabric& f, uint32_t host) {
  const NicFaultState& st = f.nics[host].fault;
  if (!st.pausing || st.wd_suppressed || f.now != st.next_pause) return;
  SendNicPause(f, host);
}

}  // namespace rocesim::ops
