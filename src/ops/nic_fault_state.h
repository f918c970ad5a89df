// Per-NIC fault state (src/ops/): what an injected fault did to a host's NIC
// and what its PFC watchdog decided. Nic::Receive tests one bool of it per
// frame (`intercept`); everything else runs only on fault, receive-pipeline
// and watchdog events.
#pragma once

#include <cstdint>

#include "core/packet.h"
#include "core/time.h"

namespace rocesim {

struct NicFaultState {
  bool intercept = false;  // any of the four below: Nic::Receive hands frames to src/ops/
  bool rx_down = false;    // receive side down: every arriving frame is dropped (nic_pause_storm)
  // mac_entry_loss (SIGCOMM'16 §4.2, src/ops/mac_entry_loss.h): the server is
  // dead — frames arriving are dropped (receiver_down), it sends nothing.
  bool dead = false;
  // The NIC's MAC filter: a frame addressed to another host (a flooded copy)
  // is discarded (wrong_host). Always true of a real NIC; turned on here from
  // the first mac_entry_loss on, the only way such frames arise.
  bool mac_filter = false;
  bool storming = false;  // nic_pause_storm on (seed 003 §6.2 incident 1)
  // slow_receiver (seed 003 §4.4): frames wait in the receive buffer and are
  // processed at `slow_rate_bps`, not at all during the first `stall` of
  // every `stall_period` from `stall_origin`.
  bool slow = false;
  int64_t slow_rate_bps = 0;
  Time stall_period = 0;
  Time stall = 0;
  Time stall_origin = 0;
  PacketFifo rx_queue;          // the receive buffer (frames not yet processed)
  Time rx_drain_at = kTimeMax;  // the pending kRxDrain (stale events differ)

  // The NIC's own PFC pauses (storm or full receive buffer).
  bool pausing = false;        // asserting XOFF on `pause_mask`
  uint8_t pause_mask = 0;      // bit p: priority p
  bool wd_suppressed = false;  // host.watchdog stopped this NIC's pause frames (seed 003 §4.3)
  Time pausing_since = 0;      // start of the current continuous pausing
  Time next_pause = kTimeMax;  // when the XOFF is next renewed (stale events differ)

  void UpdateIntercept() { intercept = rx_down || slow || dead || mac_filter; }
};

}  // namespace rocesim
