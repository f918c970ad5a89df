#include "ops/watchdog.h"

#include <bit>

#include "net/fabric.h"
#include "ops/nic_pause.h"

namespace rocesim::ops {

void OnPauseStarted(Fabric& f, PortId port, int prio) {
  f.wd_paused_since[port][prio] = f.now;
  f.Schedule(f.now + f.scenario->sw.watchdog.detect, EventKind::kWatchdogCheck, port,
             static_cast<uint32_t>(prio));
}

namespace {

void SwitchCheck(Fabric& f, PortId port, int prio) {
  const WatchdogConfig& wd = f.scenario->sw.watchdog;
  Port& p = f.ports[port];
  const uint8_t bit = static_cast<uint8_t>(1u << prio);
  if (p.wd_ignore & bit) return;       // already triggered
  if (!p.Paused(prio, f.now)) return;  // the pause ended
  if (f.wd_paused_since[port][prio] + wd.detect > f.now)
    return;  // a later episode has its own check
  if (p.queue[prio].Empty()) {
    // Paused but idle: harmless for now; look again later.
    f.Schedule(f.now + wd.detect, EventKind::kWatchdogCheck, port, static_cast<uint32_t>(prio));
    return;
  }
  p.wd_ignore |= bit;
  p.counters.paused_time -= p.paused_until[prio] - f.now;
  p.SetPausedUntil(prio, f.now, f.now);
  f.ops.watchdog_triggers++;
  f.ops.Add(f.now, p.node, p.local, prio, "watchdog_trigger");
  if (wd.action == WatchdogConfig::Action::kDrop) {
    p.wd_drop |= bit;
    p.drop_mask |= bit;
    f.DrainSwitchQueue(port, prio, DropCause::kWatchdog);
  }
  f.Schedule(f.now + wd.restore, EventKind::kWatchdogRestore, port, static_cast<uint32_t>(prio));
  f.KickPort(port);
}

void NicCheck(Fabric& f, PortId port, int /*prio*/) {
  const WatchdogConfig& wd = f.scenario->host.watchdog;
  const Port& p = f.ports[port];
  Nic& nic = f.nics[f.nodes[p.node].index];
  NicFaultState& st = nic.fault;
  if (!st.pausing || st.wd_suppressed || st.pausing_since + wd.detect > f.now) return;
  st.wd_suppressed = true;
  st.next_pause = kTimeMax;
  const int prio = std::countr_zero(st.pause_mask);
  f.ops.watchdog_triggers++;
  f.ops.Add(f.now, p.node, p.local, prio, "watchdog_trigger");
  f.Schedule(f.now + wd.restore, EventKind::kWatchdogRestore, port, static_cast<uint32_t>(prio));
}

}  // namespace

void OnWatchdogCheck(Fabric& f, PortId port, int prio) {
  if (f.nodes[f.ports[port].node].is_switch) {
    SwitchCheck(f, port, prio);
  } else {
    NicCheck(f, port, prio);
  }
}

void OnWatchdogRestore(Fabric& f, PortId port, int prio) {
  Port& p = f.ports[port];
  const Node& n = f.nodes[p.node];
  if (n.is_switch) {
    const uint8_t bit = static_cast<uint8_t>(1u << prio);
    if (!(p.wd_ignore & bit)) return;
    p.wd_ignore &= static_cast<uint8_t>(~bit);
    p.wd_drop &= static_cast<uint8_t>(~bit);
    if (!p.link_down) p.drop_mask = p.wd_drop;
  } else {
    NicFaultState& st = f.nics[n.index].fault;
    if (!st.wd_suppressed) return;
    st.wd_suppressed = false;
    if (st.pausing) {
      st.pausing_since = f.now;
      SendNicPause(f, n.index);
      f.Schedule(f.now + f.scenario->host.watchdog.detect, EventKind::kWatchdogCheck, port,
                 static_cast<uint32_t>(prio));
    }
  }
  f.ops.watchdog_restores++;
  f.ops.Add(f.now, p.node, p.local, prio, "watchdog_restore");
}

}  // namespace rocesim::ops
