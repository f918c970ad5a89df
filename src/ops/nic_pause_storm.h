// Fault `nic_pause_storm` (seed 003 §6.2 incident 1): a failing NIC stops
// receiving — it drops every frame that arrives (cause receiver_down) — and
// keeps sending PFC XOFF frames on one priority, at full quanta and renewed
// before the ToR's pause expires (src/ops/nic_pause.h: ~6000 frames/s at
// 100G; the incident saw more than 2000/s). Without watchdogs the ToR's queue
// to that server stays paused, fills, and the pause propagates upstream
// (leaf, spine, other ToRs), stalling flows that never touch the server.
// host.watchdog stops the NIC's pauses and switch.watchdog stops the ToR
// honouring them (src/ops/watchdog.h).
#pragma once

#include <cstdint>

namespace rocesim {

struct Fabric;

namespace ops {

void StartNicPauseStorm(Fabric& f, uint32_t host, int prio);
void StopNicPauseStorm(Fabric& f, uint32_t host);

}  // namespace ops
}  // namespace rocesim
