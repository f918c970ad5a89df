// A NIC's own PFC pauses (src/ops/): XOFF at full quanta (0xFFFF) on a mask
// of priorities, renewed at half the pause time while asserted — at 100 Gb/s
// one every 168 us, about 6000 frames per second — and an XON when released.
// Used by nic_pause_storm (seed 003 §6.2 incident 1: "more than two thousands
// pause frames per second") and slow_receiver (seed 003 §4.4); host.watchdog
// (src/ops/watchdog.h) suppresses them after `detect` of continuous pausing.
#pragma once

#include <cstdint>

namespace rocesim {

struct Fabric;

namespace ops {

// Starts asserting XOFF on `mask` (no-op if already pausing).
void StartNicPausing(Fabric& f, uint32_t host, uint8_t mask);
// Releases with an XON (unless the watchdog had already silenced the NIC).
void StopNicPausing(Fabric& f, uint32_t host);
// kStormPause: renews the XOFF while asserted and not suppressed.
void OnNicPauseRenew(Fabric& f, uint32_t host);
// Sends the XOFF now and schedules its renewal (also on watchdog restore).
void SendNicPause(Fabric& f, uint32_t host);

}  // namespace ops
}  // namespace rocesim
