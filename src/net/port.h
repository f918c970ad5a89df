// One side of a full-duplex link: the transmitter that serializes frames onto
// the outgoing wire, the wire itself as a FIFO delay line (one pending event
// at its head, DESIGN.md §5), and the per-priority pause state the peer
// imposed on this transmitter with PFC frames.
#pragma once

#include <array>
#include <cstdint>

#include "core/packet.h"
#include "core/time.h"
#include "net/wire.h"
#include "scenario/scenario.h"

namespace rocesim {

using PortId = uint32_t;

struct PortCounters {
  uint64_t tx_frames = 0;
  uint64_t tx_bytes = 0;
  uint64_t pause_sent = 0;      // XOFF and XON frames this port sent
  uint64_t pause_received = 0;  // frames that paused or resumed this port
  uint64_t ecn_marks = 0;
  uint64_t drops = 0;  // frames dropped on arrival at this (ingress) port
  Time paused_time = 0;
  // Monitoring (counters.csv, seed 003 §6.2): the CNPs a host's NIC sent and
  // received (drops by cause: Fabric::port_drops).
  uint64_t cnps_sent = 0;
  uint64_t cnps_received = 0;
};

struct Port {
  uint32_t node = 0;   // owning node id
  PortId peer = 0;     // the port at the other end of the link
  uint16_t local = 0;  // index among the owning node's ports
  int64_t rate_bps = 0;
  Time delay = 0;
  Time ps_per_byte = 0;  // exact serialization cost per byte when integral, else 0
  int ifg_bytes = 0;
  // Faults (src/ops/), beside the fields the per-frame paths read anyway:
  // link_ops non-zero when arrivals on this port's link need src/ops/ —
  // kLinkHasFailed (stays set: stale arrival events may follow), kLinkLossy;
  // link_down: a link_down fault, nothing crosses this link;
  // tx_hold: the transmitter starts nothing (its link is down, or it is the
  // NIC of a dead server, src/ops/mac_entry_loss.h).
  uint8_t link_ops = 0;
  bool link_down = false;
  bool tx_hold = false;
  static constexpr uint8_t kLinkHasFailed = 1;
  static constexpr uint8_t kLinkLossy = 2;
  // Bit p: a switch drops frames routed to egress queue p (a watchdog's
  // wd_drop, or every bit while the link is down; src/ops/).
  uint8_t drop_mask = 0;
  uint8_t nonempty = 0;   // bit q: queue[q] holds a frame
  uint8_t dwrr_next = 0;  // DWRR state (with deficit below)
  bool dwrr_turn_started = false;
  uint32_t queued_frames = 0;   // over all queues
  double loss_probability = 0;  // per frame on the outgoing link (link errors)

  // The fields every frame's transmission and arrival touch come first, so
  // that they share the port's first cache lines (a frame hop is bound by
  // memory latency, bench/NOTES.md); the per-priority arrays follow.
  Time busy_until = 0;      // transmitter busy until then
  Time wake_at = kTimeMax;  // earliest pending kPortWake
  Wire wire;                // frames on the wire, in arrival order
  PacketFifo control;       // MAC control (PFC) frames, sent before any queue
  PortCounters counters;
  std::array<Time, kNumPriorities> paused_until{};  // peer's pause on our queues
  std::array<int32_t, kNumPriorities> deficit{};    // DWRR state
  std::array<PacketFifo, kNumPriorities> queue;     // egress queues per priority
  // PFC watchdog (src/ops/watchdog.h), touched only when one is configured.
  uint8_t wd_ignore = 0;    // bit p: pauses received for priority p are ignored
  uint8_t wd_drop = 0;      // bit p: a triggered watchdog drops frames for egress queue p
  uint16_t loss_fault = 0;  // packet_loss fault on this link: its index + 1 (0: none)

  bool Paused(int prio, Time now) const { return paused_until[prio] > now; }
  void Enqueue(PacketPool& pool, int q, PktId id) {
    queue[q].Push(pool, id);
    ++queued_frames;
    nonempty |= static_cast<uint8_t>(1u << q);
  }
  PktId DequeueFrom(PacketPool& pool, int q) {
    const PktId id = queue[q].Pop(pool);
    --queued_frames;
    if (queue[q].Empty()) nonempty &= static_cast<uint8_t>(~(1u << q));
    return id;
  }
  Time WireTime(int64_t frame_bytes) const {
    const int64_t bytes = frame_bytes + ifg_bytes;
    return SerializationTimeFast(bytes, rate_bps, ps_per_byte);
  }
};

}  // namespace rocesim
