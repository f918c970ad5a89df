// One side of a full-duplex link: the transmitter that serializes frames onto
// the outgoing wire, the wire itself as a FIFO delay line (one pending event
// at its head, DESIGN.md §5), and the per-priority pause state the peer
// imposed on this transmitter with PFC frames.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/packet.h"
#include "core/time.h"
#include "net/wire.h"
#include "scenario/scenario.h"

namespace rocesim {

using PortId = uint32_t;

// Per-port counts for monitoring (counters.csv, seed 003 §6.2); the bytes
// sent are Port::tx_bytes, beside the fields every departure touches.
struct PortCounters {
  uint64_t pause_sent = 0;      // XOFF and XON frames this port sent
  uint64_t pause_received = 0;  // frames that paused or resumed this port
  uint64_t ecn_marks = 0;
  uint64_t drops = 0;  // frames dropped on arrival at this (ingress) port
  Time paused_time = 0;
  // The CNPs a host's NIC sent and received (drops by cause: Fabric::port_drops).
  uint64_t cnps_sent = 0;
  uint64_t cnps_received = 0;
};

// Laid out for the per-frame paths (a frame hop waits on memory, mostly on
// L1 misses, more than on instructions; bench/NOTES.md): line 0 holds all a
// frame's landing reads (wire, receiver) and most of what a departure reads
// (transmitter, flags); line 1 the rest of a departure (bytes sent, DWRR,
// owner) and of a wake-up; pause deadlines, queues, counters and fault state follow.
struct alignas(64) Port {
  // --- line 0
  Time busy_until = 0;         // transmitter busy until then
  Wire wire;                   // frames on the wire, in arrival order
  uint32_t queued_frames = 0;  // over all queues (not control)
  uint32_t ps_per_byte = 0;    // exact serialization cost per byte when integral, else 0
  PortId peer = 0;             // the port at the other end of the link
  // The peer's node: its NodeKind in the top 2 bits, its index in the vector
  // of its kind below (Fabric::OnLinkArrive dispatches on it without a read
  // of the peer port).
  uint32_t rx = 0;
  uint16_t ifg_bytes = 0;
  // Faults (src/ops/): link_ops non-zero when arrivals on this port's link
  // need more than the common path — kLinkHasFailed (stays set: stale
  // arrival events may follow), kLinkLossy (a packet_loss fault), kLinkErrors
  // (bit errors: loss_probability > 0), kLinkCut and the
  // packet captures' kLinkCaptureTx / kLinkCaptureRx (below); tx_hold: the transmitter starts
  // nothing (its link is down, or it is the NIC of a dead server,
  // src/ops/mac_entry_loss.h).
  uint8_t link_ops = 0;
  bool tx_hold = false;
  static constexpr uint8_t kLinkHasFailed = 1;
  static constexpr uint8_t kLinkLossy = 2;
  static constexpr uint8_t kLinkErrors = 4;
  // A partitioned run (sim/partitioned_run.h) set on the sending side of a
  // cut link: its frames go to the partition that owns the far end
  // (Fabric::SendAcross) instead of onto this replica's wire.
  static constexpr uint8_t kLinkCut = 16;
  // monitors.pcap (stats/port_capture.h): this port's transmissions are
  // captured (set on the captured port), or its frames' landings at the far
  // end are (set on the captured port's peer).
  static constexpr uint8_t kLinkCaptureTx = 32;
  static constexpr uint8_t kLinkCaptureRx = 64;
  // A link whose delay plus one frame's serialization reaches this keeps its
  // frames' full arrival times (Wire::KeepFullArrivals).
  static constexpr Time kLongDelay = Time{1} << 31;
  // Bit p: a switch drops frames routed to egress queue p (a watchdog's
  // wd_drop, or every bit while the link is down; src/ops/).
  uint8_t drop_mask = 0;
  uint8_t nonempty = 0;  // bit q: queue[q] holds a frame
  // Bit p: paused_until[p] was last set to a time after the moment it was
  // set, so it may still lie ahead; clear: priority p is not paused. Spares
  // the per-frame check a read of paused_until.
  uint8_t pause_mask = 0;
  bool control_pending = false;  // `control` holds a frame
  // --- line 1
  uint64_t tx_bytes = 0;                          // bytes sent (frames, preamble/IFG excluded)
  Time wake_at = kTimeMax;                        // earliest pending kPortWake
  Time delay = 0;                                 // propagation delay of the outgoing link
  std::array<int32_t, kNumPriorities> deficit{};  // DWRR state
  uint8_t dwrr_next = 0;                          // DWRR state
  bool dwrr_turn_started = false;
  uint16_t local = 0;  // index among the owning node's ports
  // The owning node, packed like `rx`: a departure picks its next frame from
  // the switch or NIC without a read of the node table.
  uint32_t tx = 0;
  // --- the rest
  int64_t rate_bps = 0;  // a departure reads it only when ps_per_byte is 0
  uint32_t node = 0;     // owning node id
  PortCounters counters;
  bool link_down = false;  // a link_down fault: nothing crosses this link
  // PFC watchdog (src/ops/watchdog.h), touched only when one is configured.
  uint8_t wd_ignore = 0;        // bit p: pauses received for priority p are ignored
  uint8_t wd_drop = 0;          // bit p: a triggered watchdog drops frames for egress queue p
  uint16_t loss_fault = 0;      // packet_loss fault on this link: its index + 1 (0: none)
  double loss_probability = 0;  // per frame on the outgoing link (link errors)
  std::array<Time, kNumPriorities> paused_until{};  // peer's pause on our queues
  // The pending kPortWake that an earlier one displaced from wake_at (a NIC's
  // cut-through control frame arms a wake before a paced QP's): when wake_at's
  // event fires this one takes its place, so a re-arm at its time schedules no
  // second event. Only the latest displaced wake is kept; an older one stays
  // queued untracked and may be scheduled again, which costs an extra no-op
  // event, never a missed one.
  Time wake_after = kTimeMax;
  PacketFifo control;  // MAC control (PFC, RCM) frames, sent before any queue
  std::array<PacketFifo, kNumPriorities> queue;  // egress queues per priority

  static constexpr int kRxKindShift = 30;
  uint8_t RxKind() const { return static_cast<uint8_t>(rx >> kRxKindShift); }
  uint32_t RxIndex() const { return rx & ((1u << kRxKindShift) - 1); }
  uint8_t TxKind() const { return static_cast<uint8_t>(tx >> kRxKindShift); }
  uint32_t TxIndex() const { return tx & ((1u << kRxKindShift) - 1); }
  bool Paused(int prio, Time now) const {
    return (pause_mask >> prio & 1) && paused_until[prio] > now;
  }
  // Sets the peer's pause of priority `prio` to last until `until` (`now`
  // or earlier: not paused).
  void SetPausedUntil(int prio, Time until, Time now) {
    paused_until[prio] = until;
    const auto bit = static_cast<uint8_t>(1u << prio);
    pause_mask = until > now ? pause_mask | bit : pause_mask & ~bit;
  }
  void Enqueue(PacketPool& pool, int q, PktId id) {
    queue[q].Push(pool, id);
    ++queued_frames;
    nonempty |= static_cast<uint8_t>(1u << q);
  }
  PktId DequeueFrom(PacketPool& pool, int q) {
    const PktId id = queue[q].Pop(pool);
    --queued_frames;
    if (queue[q].Empty()) {
      nonempty &= static_cast<uint8_t>(~(1u << q));
    } else {
      // The new head leaves a frame time from now, and its packet, queued
      // long ago, is cold: fetch it meanwhile (fat320 0.986x, k8 0.991x the
      // time; bench/NOTES.md, fortieth session).
      __builtin_prefetch(&pool[queue[q].head]);
    }
    return id;
  }
  void PushControl(PacketPool& pool, PktId id) {
    control.Push(pool, id);
    control_pending = true;
  }
  PktId PopControl(PacketPool& pool) {
    const PktId id = control.Pop(pool);
    control_pending = !control.Empty();
    return id;
  }
  Time WireTime(int64_t frame_bytes) const {
    const int64_t bytes = frame_bytes + ifg_bytes;
    return SerializationTimeFast(bytes, rate_bps, ps_per_byte);
  }
};

static_assert(offsetof(Port, control_pending) < 64, "a landing reads line 0 only");
static_assert(offsetof(Port, tx) + sizeof(Port::tx) <= 128, "a departure reads lines 0-1 only");

}  // namespace rocesim
