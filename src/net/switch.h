// An output-queued shared-buffer switch (DESIGN.md §3): classification by
// DSCP into 8 priorities, ECMP forwarding, ingress admission and PFC through
// SwitchMmu, per-(port, priority) egress FIFOs served strict-priority for the
// control class and DWRR for the rest, RED/ECN marking at dequeue on the
// instantaneous queue (net/egress.h, shared with the CIOQ switch), WRED drop
// of non-ECT data above a threshold. Each hop decrements the IP TTL; packets
// to an attached host whose MAC entry is gone are flooded or dropped
// (switch.unknown_unicast, src/net/switch_flood.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/packet.h"
#include "net/egress.h"
#include "net/pfc_sender.h"
#include "net/port.h"
#include "net/red.h"
#include "net/switch_mmu.h"
#include "scenario/scenario.h"
#include "stats/counters.h"

namespace rocesim {

struct Fabric;

class alignas(64) Switch {
 public:
  // red: ECN parameters per local port; port_rates_bps: each port's link
  // rate (its dynamic-threshold alpha, SwitchMmu::AlphaFor); max_frame_bytes:
  // the DWRR quantum unit. route_index / route_salt: the switch's index and
  // ECMP salt in Routing.
  void Init(uint32_t node, PortId first_port, const SwitchConfig& cfg,
            const std::vector<int64_t>& headroom_per_port, const std::vector<RedParams>& red,
            const std::vector<int64_t>& port_rates_bps, int max_frame_bytes, uint64_t seed,
            uint32_t route_index, uint64_t route_salt);

  void Receive(Fabric& f, PortId in, PktId pkt);
  // Next frame to transmit on `out` (kNoPkt if none is eligible now).
  PktId Dequeue(Fabric& f, PortId out);
  void OnPfcRefresh(Fabric& f, PortId port, int prio);
  // Drops every frame of egress queue `prio` on `out`, releasing its buffer
  // (a triggered PFC watchdog with action drop, src/ops/watchdog.h).
  void DrainQueue(Fabric& f, PortId out, int prio, DropCause cause);
  // Drops frames from the head of egress queue `prio` on `out` until the
  // ingress the head came from is no longer paused upstream (or the queue is
  // empty): the deadlock detector's `break` (src/ops/deadlock.h).
  void BreakHead(Fabric& f, PortId out, int prio);

  // The MAC-table entry of attached host `host` is gone (or back): packets to
  // it become unknown unicast (fault mac_entry_loss, src/ops/mac_entry_loss.h).
  void SetMacEntryMissing(uint32_t host, bool missing);
  bool MacEntryMissing(uint32_t host) const;

  const SwitchMmu& mmu() const { return mmu_; }
  uint32_t node() const { return node_; }
  PortId first_port() const { return first_port_; }

 private:
  // The egress half of forwarding a frame that came in on `in`: drop rules,
  // ingress admission of its size less `uncharged` (0, or a flooded copy's
  // share: switch_flood.cpp; pkt.uncharged must already say the same),
  // enqueue on (out, prio), PFC. Inlined into Receive.
  void Forward(Fabric& f, PortId in, PktId id, Packet& pkt, int prio, PortId out,
               uint16_t uncharged);
  // The same, out of line, for the rare paths in switch_flood.cpp; sets pkt.uncharged.
  void ForwardTo(Fabric& f, PortId in, PktId id, int prio, PortId out, uint16_t uncharged);
  // TTL expired or some MAC entry missing at this switch (switch_flood.cpp).
  void ReceiveUnusual(Fabric& f, PortId in, PktId id, int prio);
  // A copy out of every port but `in` whose link is up, in class `prio`.
  void Flood(Fabric& f, PortId in, PktId id, int prio);
  void CheckResume(Fabric& f, int local_port, int prio);

  // What every frame reads, in the switch's first cache line (a hop waits
  // on memory more than on instructions, bench/NOTES.md); the MMU's own
  // per-frame fields fill the second.
  uint32_t node_ = 0;
  PortId first_port_ = 0;
  uint32_t route_index_ = 0;  // this switch's index in Routing
  uint32_t num_ports_ = 0;
  // Receive takes the rare path when the decremented TTL is <= slow_ttl_: 0
  // normally (expired), 255 while missing_macs_ is not empty (every packet).
  uint8_t slow_ttl_ = 0;
  bool queue_limits_ = false;  // cfg ecn.wred_drop_bytes or ecn.buf_max_bytes set
  bool cut_through_ = false;   // egress_.CanPassThrough (RED never marks an empty queue)
  uint64_t route_salt_ = 0;    // Routing::Salt(route_index_)
  const uint8_t* dscp_to_priority_ = nullptr;  // cfg's table: one copy for all switches
  std::array<bool, kNumPriorities> lossless_{};
  const SwitchConfig* cfg_ = nullptr;
  SwitchMmu mmu_;
  EgressPolicy egress_;
  PfcSender pfc_;
  // Attached hosts whose MAC entry is gone, sorted (slow_ttl_ above).
  std::vector<uint32_t> missing_macs_;
  std::vector<PortId> flood_ports_;  // scratch for Flood
};

}  // namespace rocesim
