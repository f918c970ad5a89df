// Fabric-wide counters that summary.json reports and the conservation
// invariant (injected = delivered + dropped + in flight) is checked against.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace rocesim {

enum class DropCause : uint8_t {
  kHeadroomOverflow,  // lossless class: PFC headroom exhausted (should not happen when sized)
  kBufferFull,        // lossy class: no shared buffer left for this (port, priority)
  kWred,              // non-ECT packet above the WRED drop threshold
  kLinkError,         // corrupted on a link with a bit-error rate (frame dropped at the receiver)
  kReceiverDown,      // arrived at a NIC whose receive side is down (nic_pause_storm, src/ops/)
  kWatchdog,          // lossless frame dropped by a triggered PFC watchdog (action: drop)
  kRxBufferFull,      // a slow receiver's NIC receive buffer was full (src/ops/slow_receiver.h)
  kLinkDown,          // lost with a failed link: in flight, queued for it, or routed to it
  kInjectedLoss,      // a packet_loss fault (src/ops/packet_loss.h)
  kDeadlockBreak,     // dropped to break a PFC deadlock (monitors.deadlock.break)
  // Unknown unicast (SIGCOMM'16 §4.2, src/net/switch_flood.cpp):
  kTtlExpired,  // the IP TTL reached 0 at a switch (a flooded copy that looped)
  kUnknownMac,  // lossless packet to a host whose MAC entry is gone (switch.unknown_unicast: drop)
  kWrongHost,   // a flooded copy that reached a host it is not addressed to (NIC MAC filter)
  kCount
};

inline std::string_view DropCauseName(DropCause c) {
  switch (c) {
    case DropCause::kHeadroomOverflow:
      return "headroom_overflow";
    case DropCause::kBufferFull:
      return "buffer_full";
    case DropCause::kWred:
      return "wred";
    case DropCause::kLinkError:
      return "link_error";
    case DropCause::kReceiverDown:
      return "receiver_down";
    case DropCause::kWatchdog:
      return "watchdog";
    case DropCause::kRxBufferFull:
      return "nic_buffer_full";
    case DropCause::kLinkDown:
      return "link_down";
    case DropCause::kInjectedLoss:
      return "injected_loss";
    case DropCause::kDeadlockBreak:
      return "deadlock_break";
    case DropCause::kTtlExpired:
      return "ttl_expired";
    case DropCause::kUnknownMac:
      return "unknown_mac";
    case DropCause::kWrongHost:
      return "wrong_host";
    case DropCause::kCount:
      break;
  }
  return "?";
}

// A count per drop cause (the fabric's, and a port's: stats/port_drops.h).
using DropsByCause = std::array<uint64_t, static_cast<size_t>(DropCause::kCount)>;

struct Counters {
  DropsByCause drops{};
  uint64_t pause_sent = 0;
  uint64_t pause_received = 0;
  // Regional congestion mitigation (seed 002, src/net/cioq_rcm.h).
  uint64_t rcm_notifications_sent = 0;
  uint64_t rcm_notifications_received = 0;
  uint64_t rcm_notification_bytes = 0;
  uint64_t rcm_notifications_at_hosts = 0;  // must stay 0: notifications are switch to switch
  uint64_t rcm_windows_started = 0;         // RCC windows opened (§3.4)
  uint64_t rcm_harmful_deferred = 0;        // arbitrations where RCC passed over a harmful head
  uint64_t rcm_sar_decisions = 0;           // SAR route decisions inside a congestion region
  uint64_t rcm_sar_reroutes = 0;            // ... that chose a port other than ECMP's
  uint64_t rcm_sar_harmful_kept = 0;        // ... for a harmful flow (kept on its ECMP port)
  uint64_t rcm_sar_harmful_rerouted = 0;    // must stay 0 (checked independently of SAR)
  uint64_t ecn_marks = 0;
  uint64_t cnps_sent = 0;
  uint64_t cnps_received = 0;
  uint64_t acks_sent = 0;
  uint64_t naks_sent = 0;
  uint64_t retransmitted_packets = 0;
  uint64_t timeouts = 0;
  uint64_t nvlink_bytes = 0;  // moved inside GPU servers (net/nvlink.h), never on the fabric
  // Conservation accounting over frames that hosts inject (not PFC frames)
  // and the copies switches make of them by flooding (src/net/switch_flood.cpp):
  // injected + replicated = delivered + dropped + in the network.
  uint64_t injected_frames = 0;
  uint64_t replicated_frames = 0;
  uint64_t replicated_payload_bytes = 0;
  uint64_t delivered_frames = 0;
  uint64_t dropped_frames = 0;
  uint64_t injected_payload_bytes = 0;
  uint64_t delivered_payload_bytes = 0;
  uint64_t dropped_payload_bytes = 0;

  // Adds another partition's counts (sim/partitioned_run.h): every field is a
  // uint64_t count, summed field by field.
  Counters& operator+=(const Counters& o) {
    static_assert(sizeof(Counters) % sizeof(uint64_t) == 0);
    auto* a = reinterpret_cast<uint64_t*>(this);
    const auto* b = reinterpret_cast<const uint64_t*>(&o);
    for (size_t i = 0; i < sizeof(Counters) / sizeof(uint64_t); ++i) a[i] += b[i];
    return *this;
  }
  uint64_t TotalDrops() const {
    uint64_t t = 0;
    for (auto d : drops) t += d;
    return t;
  }
};

}  // namespace rocesim
