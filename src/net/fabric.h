// The running fabric: every node, port, flow and frame, the event queue, and
// the link model that moves frames between ports. Switches (of either
// architecture) and NICs are plain classes in vectors, dispatched by a switch
// on the node kind rather than a virtual call per packet (DESIGN.md §5).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "cc/congestion_control.h"
#include "core/chunked_vector.h"
#include "core/event_queue.h"
#include "core/held_array.h"
#include "core/packet.h"
#include "core/rng.h"
#include "net/cioq_switch.h"
#include "net/fabric_layout.h"
#include "net/flow_routes.h"
#include "net/nic.h"
#include "net/nvlink.h"
#include "net/port.h"
#include "net/switch.h"
#include "ops/ops_log.h"
#include "ops/packet_loss.h"
#include "rcm/rcm_notification.h"
#include "scenario/scenario.h"
#include "stats/counters.h"
#include "stats/hpcc_qlen_monitor.h"
#include "stats/pfc_trace.h"
#include "stats/port_drops.h"
#include "topo/routing.h"
#include "transport/flow.h"
#include "transport/flow_dependencies.h"
#include "transport/flow_table.h"

namespace rocesim {

// HPCC in-band telemetry carried by a data packet and echoed by its ACK.
struct IntStack {
  static constexpr int kMaxHops = 8;
  uint8_t count = 0;
  std::array<IntHop, kMaxHops> hops;
};

// A frame crossing a cut link of a partitioned run (sim/partitioned_run.h),
// to land at `arrive` at the far end of `port`'s link: the frame's bytes,
// and where what rides beside it in side tables (its INT stack, an RCM
// notification) went in its outbox (`side`, or kNoSide). 80 bytes: the
// frame is copied twice per crossing, so the rare side data stays apart.
struct CrossFrame {
  static constexpr uint32_t kNoSide = UINT32_MAX;
  // Leaves `pkt` uninitialised (`= default` would have emplace_back zero its
  // 64 bytes just before SendAcross's copy overwrites them: 5 instructions of
  // a crossing's 140). Still trivially copyable, as a rank's message needs.
  CrossFrame() {}  // NOLINT(modernize-use-equals-default)
  Time arrive = 0;
  PortId port = 0;
  uint32_t side = kNoSide;
  std::array<unsigned char, sizeof(Packet)> pkt;  // a Packet (one cache line), as bytes
};

// Frames one partition sent another in one window, where they lie: in the
// sender's outbox (threads of one process), or in place in a rank's window
// message (apps/mpi_rank_exchange.cpp).
struct CrossFramesView {
  std::span<const CrossFrame> frames;
  std::span<const IntStack> int_stacks;    // by CrossFrame::side
  std::span<const RcmNotification> notes;  // by CrossFrame::side
};

// The frames one partition sends another in one window.
struct CrossOutbox {
  std::vector<CrossFrame> frames;
  std::vector<IntStack> int_stacks;    // by CrossFrame::side (data and ACKs under HPCC)
  std::vector<RcmNotification> notes;  // by CrossFrame::side (kRcmNotify frames)
  void Clear() {
    frames.clear();
    int_stacks.clear();
    notes.clear();
  }
  CrossFramesView View() const { return {frames, int_stacks, notes}; }
};

class PortCaptures;  // stats/port_capture.h

struct Fabric {
  const Scenario* scenario = nullptr;
  Time now = 0;
  EventQueue events;
  PacketPool pool;
  // The structure every partition shares (nodes and links as cabled, the
  // intact fabric's routes, fault ports); read a port's link here when this
  // replica may not hold the port.
  std::shared_ptr<const FabricLayout> layout;
  std::span<const Node> nodes;  // layout->nodes
  // Every port of the fabric by id; a partition of a parallel run holds only
  // its nodes' ports and the far ends of their links (core/held_array.h).
  HeldArray<Port> ports;
  std::vector<Switch> switches;           // switch.architecture: shared_buffer
  std::vector<CioqSwitch> cioq_switches;  // switch.architecture: cioq
  HeldArray<Nic> nics;  // one per host; host id = index; a partition holds those of its held ports
  // Every flow by id; a partition holds only those its hosts send or
  // receive, and the ends of the others (transport/flow_table.h).
  FlowTable flows;
  // Congestion control per held flow, by its place in `flows`
  // (FlowTable::PlaceOf; a serial run's is the flow's id), set for the flows
  // this replica's hosts send (null: line rate, PFC only, or another
  // partition's sender). Not by id: a partition would keep 8 bytes for
  // every flow of the run (ai-1024-gpus in 8 partitions peaked 31 MB
  // higher, at 777 MB).
  std::vector<std::unique_ptr<CongestionControl>> cc;
  Routing routing;
  FlowRoutes routes;      // per flow and direction, from `routing` (a partition: those it forwards)
  FlowDependencies deps;  // which flows wait for which (empty: none)
  NvlinkDomain nvlink;    // transfers inside GPU servers
  // INT side table by packet id, kept only when some flow runs HPCC.
  bool int_enabled = false;
  ChunkedVector<IntStack> int_stacks;
  IntStack& IntOf(PktId id) {
    if (id >= int_stacks.size()) int_stacks.GrowTo(pool.Capacity());
    return int_stacks[id];
  }
  // Coalesced ACKs (host.ack_every > 1) with INT: per flow whose responder
  // holds in-order data not yet ACKed, the stack of the newest such packet,
  // which an ACK sent by the deadline (host.ack_delay) echoes; the packet
  // itself is freed on arrival (net/nic.cpp OnData, SendControl).
  std::unordered_map<uint32_t, IntStack> unacked_int;
  Counters counters;
  // Every pause frame received, when output.hpcc_compat asks for pfc.txt.
  bool pfc_trace_enabled = false;
  std::vector<PfcTraceEntry> pfc_trace;
  // The queue-length histograms dumped so far (output.hpcc_qlen: qlen.txt).
  std::vector<QlenDumpLine> qlen_dumps;
  // Link errors: a stream per port (drawn only on lossy links), so that a
  // link's draws do not depend on the order other links land frames in.
  std::vector<Rng> link_rngs;
  Rng& LinkRng(PortId port) {
    if (link_rngs.size() <= port) link_rngs.resize(ports.size());
    return link_rngs[port];
  }
  uint32_t flows_finished = 0;
  int64_t bytes_finished = 0;  // their sizes summed: the progress line's measure of work done
  // Faults and defences (src/ops/): the ops log, and whether the switch
  // watchdog watches pause episodes.
  OpsLog ops;
  bool switch_watchdog = false;
  std::vector<LossFaultState> loss_faults;  // packet_loss faults, by fault index
  // Per port and priority: when the egress queue's current stall (paused while
  // holding frames) began, kTimeMax if none (switch watchdog only).
  HeldArray<std::array<Time, kNumPriorities>> wd_stall_since;
  // Per port: frames dropped on arrival there, by cause (counters.csv).
  PortDrops port_drops;

  // A partitioned run (sim/partitioned_run.h): per port the partition of the
  // node at its far end (Partitioning::far_part, one copy that every
  // partition of the process reads), and the frames this replica's cut ports
  // launched in the current window, for their owners.
  std::span<const uint32_t> port_partition;
  // Two sets (alternate windows: one is written while the other is read),
  // each by destination partition; outbox_base selects the set being written.
  std::vector<CrossOutbox> outbox;
  uint32_t outbox_base = 0;
  // The earliest landing among the frames handed over since it was reset:
  // with this replica's own earliest event, what it contributes to the
  // job's next window start before the frames reach their owners.
  Time outbox_min_arrive = kTimeMax;
  // Hands frame `id`, launched on cut port `port` to land at `arrive`, to the
  // partition that owns the far end (it leaves this replica's pool).
  void SendAcross(PortId port, PktId id, Time arrive);
  // The frames another partition launched (one outbox, or one rank's part
  // of a message): each onto this replica's copy of its wire, as Launch
  // would have put it.
  void ReceiveAcross(const CrossFramesView& from);

  [[gnu::always_inline]] void Schedule(Time t, EventKind kind, uint32_t target, uint32_t arg = 0) {
    events.Push(t, kind, target, arg);
  }
  // The kLinkArrive of frame `id`, the head of `port`'s wire, at `t`. The
  // event names the frame too, so the landing need not read the frame's wire
  // entry (a link delay old by then); ports are limited to 2^24 (Event::arg).
  [[gnu::always_inline]] void ScheduleArrival(Time t, PortId port, PktId id) {
    events.Push(t, EventKind::kLinkArrive, id, port);
  }

  // Whether a frame queued for `p` now would be the next to leave at once:
  // the transmitter is free and nothing else waits for it. The switches and
  // NICs then put it on the wire directly (Launch) instead of through their
  // queue and KickPort, with the same outcome (bench/NOTES.md, fourth
  // session); the caller adds what its own dequeue step would check.
  bool CanCutThrough(const Port& p) const {
    return now >= p.busy_until && p.queued_frames == 0 && !p.control_pending && !p.tx_hold;
  }
  // Puts frame `id` of `size` bytes on `port`'s wire now: the transmitter is
  // busy for its serialization, and it lands a link delay after its last bit.
  void Launch(PortId port, Port& p, PktId id, uint32_t size);
  // Starts the next transmission on `port` if its transmitter is free,
  // otherwise makes sure it is woken when it frees up. Inline (below): every
  // frame a switch enqueues kicks its egress port.
  void KickPort(PortId port);
  // Ensures a kPortWake for `port` no later than `t`.
  void ArmWake(PortId port, Time t);
  void OnPortWake(PortId port);
  // Frame `id`, at the head of `port`'s wire, reaches the far end.
  void OnLinkArrive(PortId port, PktId id);

  // PFC (IEEE 802.1Qbb): queue a pause frame for `prio` on `port`; quanta 0 is XON.
  void SendPause(PortId port, int prio, int quanta);
  // A pause frame arrived on `port`: pause or resume that port's transmitter.
  void OnPauseFrame(PortId port, PktId pkt);

  // RCM (seed 002 §3.2): queue a congestion notification for class `prio` on
  // switch port `port` (to the neighbour switch), as a control frame of
  // n.WireBytes(). Its contents ride in a side table (a frame is one cache
  // line), indexed by the frame's psn.
  void SendRcmNotification(PortId port, int prio, const RcmNotification& n);
  const RcmNotification& RcmNotificationOf(PktId id) const { return rcm_notes_[pool[id].psn]; }
  // Frees a control frame (pause or notification) that is not host traffic.
  void FreeControlFrame(PktId id);

  // monitors.pcap: the captures of chosen ports (null: none), and the hook
  // Launch and OnLinkArrive call for ports whose link_ops ask for it.
  PortCaptures* captures = nullptr;
  void CaptureFrame(PortId port, PktId id, bool received);

  // Counts a frame that a switch drops (conservation accounting).
  void CountDrop(PktId pkt, DropCause cause, PortId ingress);

  // Switch operations for the models around the switches (event dispatch,
  // src/ops/), dispatched on the owning switch's architecture; `port` is a
  // port of a switch.
  void OnPfcRefresh(PortId port, int prio);
  // Drops every frame bound for egress queue `prio` of `port`.
  void DrainSwitchQueue(PortId port, int prio, DropCause cause);
  // The deadlock detector's break on egress queue `prio` of `port`.
  void BreakSwitchHead(PortId port, int prio);

  // Frames and payload bytes currently inside the network (queues and wires).
  uint64_t FramesInNetwork(uint64_t* payload_bytes) const;

 private:
  std::vector<RcmNotification> rcm_notes_;  // notification contents in flight
  std::vector<uint32_t> rcm_free_notes_;    // free slots of rcm_notes_
  // Keeps a notification's contents in a free slot of rcm_notes_; its index.
  uint32_t StoreRcmNote(const RcmNotification& n);
  void Transmit(PortId port);
  PktId NextFrame(PortId port);
  bool HasBacklog(const Port& p) const;
};

[[gnu::always_inline]] inline void Fabric::Launch(PortId port, Port& p, PktId id, uint32_t size) {
  p.busy_until = now + p.WireTime(size);
  const Time arrive = p.busy_until + p.delay;
  p.tx_bytes += size;
  if (p.link_ops & (Port::kLinkCut | Port::kLinkCaptureTx)) [[unlikely]] {
    if (p.link_ops & Port::kLinkCaptureTx) CaptureFrame(port, id, false);
    if (p.link_ops & Port::kLinkCut) {
      SendAcross(port, id, arrive);
      return;
    }
  }
  const bool wire_was_empty = p.wire.Empty();
  p.wire.Push(pool, id, arrive);
  if (wire_was_empty) ScheduleArrival(arrive, port, id);
}

inline void Fabric::ArmWake(PortId port, Time t) {
  Port& p = ports[port];
  if (t < p.wake_at) {
    p.wake_after = p.wake_at;  // still queued; kTimeMax when none was
    p.wake_at = t;
    Schedule(t, EventKind::kPortWake, port);
  }
}

inline void Fabric::KickPort(PortId port) {
  const Port& p = ports[port];
  if (now >= p.busy_until) {
    Transmit(port);
  } else {
    ArmWake(port, p.busy_until);
  }
}

inline void Fabric::OnPortWake(PortId port) {
  Port& p = ports[port];
  if (now >= p.wake_at) {  // the tracked wake: the displaced one, if any, is next
    p.wake_at = p.wake_after;
    p.wake_after = kTimeMax;
  }
  KickPort(port);
}

}  // namespace rocesim
