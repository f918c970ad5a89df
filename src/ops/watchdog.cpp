#include "ops/watchdog.h"

#include <bit>

#include "core/rng.h"
#include "net/fabric.h"
#include "ops/nic_pause.h"

namespace rocesim::ops {

Time PollPhase(uint64_t seed, uint32_t node, Time poll) {
  Rng rng(seed, 0x9D0C000000000000ULL + node);
  return static_cast<Time>(rng.Next() % static_cast<uint64_t>(poll));
}

Time NextPoll(Time t, Time poll, Time phase) {
  if (t <= phase) return phase;
  return phase + (t - phase + poll - 1) / poll * poll;
}

Time TriggerPoll(const Fabric& f, PortId port, const WatchdogConfig& wd, Time since) {
  const uint32_t node = f.ports[port].node;
  return NextPoll(since + wd.detect, wd.poll, PollPhase(f.scenario->seed, node, wd.poll));
}

namespace {

void StallStarted(Fabric& f, PortId port, int prio) {
  f.wd_stall_since[port][prio] = f.now;
  f.Schedule(TriggerPoll(f, port, f.scenario->sw.watchdog, f.now), EventKind::kWatchdogCheck, port,
             static_cast<uint32_t>(prio));
}

}  // namespace

void OnPauseStarted(Fabric& f, PortId port, int prio) {
  if (f.ports[port].queue[prio].Empty()) {
    f.wd_stall_since[port][prio] = kTimeMax;  // not stalled until a frame waits
    return;
  }
  StallStarted(f, port, prio);
}

void OnPausedQueueFilled(Fabric& f, PortId port, int prio) {
  if (f.ports[port].Paused(prio, f.now)) StallStarted(f, port, prio);
}

namespace {

void SwitchCheck(Fabric& f, PortId port, int prio) {
  const WatchdogConfig& wd = f.scenario->sw.watchdog;
  Port& p = f.ports[port];
  const uint8_t bit = static_cast<uint8_t>(1u << prio);
  if (p.wd_ignore & bit) return;       // already triggered
  if (!p.Paused(prio, f.now)) return;  // the pause ended: no stall
  // Every pause start and every frame queued behind a pause restarts the
  // clock, so a stall that began later (or none: kTimeMax) has its own check.
  const Time since = f.wd_stall_since[port][prio];
  if (since == kTimeMax || since + wd.detect > f.now) return;
  if (p.queue[prio].Empty()) return;  // drained (a link went down): no stall
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
  // (A check left from an earlier pausing episode finds the clock restarted.)
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
      f.Schedule(TriggerPoll(f, port, f.scenario->host.watchdog, f.now), EventKind::kWatchdogCheck,
                 port, static_cast<uint32_t>(prio));
    }
  }
  f.ops.watchdog_restores++;
  f.ops.Add(f.now, p.node, p.local, prio, "watchdog_restore");
}

}  // namespace rocesim::ops
