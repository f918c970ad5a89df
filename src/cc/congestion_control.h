// The congestion-control event API (DESIGN.md §2, seed 001 §3.2): each
// algorithm is a small state machine that sees NIC events — ACK (with or
// without ECN-echo, with an RTT sample and INT telemetry when present), NACK,
// CNP, bytes sent, its own timers — and sets its QP's rate and/or window.
// It never touches the simulator, so it can be unit-tested step by step.
#pragma once

#include <array>
#include <cstdint>

#include "core/time.h"

namespace rocesim {

// What an algorithm controls and knows about its QP.
struct CcState {
  // Set by the NIC before OnStart; read-only for algorithms.
  int64_t line_rate_bps = 0;
  Time base_rtt = 0;     // unloaded RTT of the QP's path
  int mtu_bytes = 1000;  // payload per packet
  // The QP's message size (0 = unknown): LDCP's fast start sends the message's
  // last packet ECN-capable when it is shorter than the initial window (seed
  // 001 §3.1).
  int64_t message_bytes = 0;
  // Where the QP starts (the scenario's start_rate, resolved by the NIC; at
  // most the line rate); 0: where the algorithm starts by itself.
  int64_t start_rate_bps = 0;
  // Outputs: the NIC paces the QP at rate_bps and caps bytes in flight at
  // window_bytes (0 = no window).
  int64_t rate_bps = 0;
  int64_t window_bytes = 0;
  // Pacing unit: 0 paces every packet at rate_bps; otherwise the NIC sends
  // bursts of this many payload bytes at line rate and spaces the bursts at
  // rate_bps (TIMELY's per-segment pacing, seed 004).
  uint32_t burst_bytes = 0;
  // Whether the next data packet is sent ECN-capable (ECT(0)); LDCP's fast
  // start sends its first-RTT packets ECN-incapable so that WRED drops rather
  // than marks them (seed 001 §2.3). Ignored when the host is not ECN-capable.
  bool ect = true;
  // Whether the NIC calls OnSent after every data packet. An algorithm whose
  // OnSent never changes anything clears it in OnStart: the call and the
  // NIC's re-reading of this state after it are then skipped (a per-packet
  // saving; the outcome is the same).
  bool wants_sent = true;
  // Which ACKs the NIC passes to OnAck; an algorithm that ignores some says so
  // in OnStart and the NIC skips those calls (same outcome, a call less per ACK).
  enum class AckCalls : uint8_t {
    kAll,
    kEcnEcho,  // only ACKs with ecn_echo: OnAck ignores the others
    kNone,     // OnAck never changes anything
  };
  AckCalls ack_calls = AckCalls::kAll;
  // Timers the algorithm wants: timer i fires OnTimer(i) at timer_at[i]
  // (kTimeMax = off). Algorithms set them with SetTimer, which also counts in
  // timer_sets: the NIC compares timer_at with its values before a call, and
  // schedules any that changed, only when the count moved (most calls set no
  // timer). In OnTimer(i), timer_at[i] still holds the firing time, so an
  // algorithm that does not re-arm it leaves it in the past (off).
  static constexpr int kMaxTimers = 4;
  std::array<Time, kMaxTimers> timer_at{kTimeMax, kTimeMax, kTimeMax, kTimeMax};
  uint32_t timer_sets = 0;  // SetTimer calls so far
  void SetTimer(int i, Time at) {
    timer_at[i] = at;
    ++timer_sets;
  }
  void ClearTimers() {
    timer_at.fill(kTimeMax);
    ++timer_sets;
  }
};

// One switch hop of HPCC in-band telemetry, stamped at dequeue.
struct IntHop {
  Time ts = 0;              // dequeue timestamp
  uint64_t tx_bytes = 0;    // bytes the egress port has sent so far
  uint32_t qlen_bytes = 0;  // egress queue length
  int64_t rate_bps = 0;     // egress link rate
};

struct AckInfo {
  Time now = 0;
  uint32_t newly_acked_bytes = 0;  // payload bytes this ACK newly covers
  uint32_t acked_psn = 0;          // next expected PSN it carries
  uint32_t next_psn = 0;           // the sender's next PSN to send (snd_nxt)
  bool ecn_echo = false;           // the acknowledged data carried CE
  Time rtt = 0;                    // NIC-timestamp RTT sample (0 = none)
  const IntHop* hops = nullptr;    // INT stack, first hop first (HPCC)
  int num_hops = 0;
};

class CongestionControl {
 public:
  virtual ~CongestionControl() = default;
  // The QP starts: set the initial rate/window (line rate by default).
  virtual void OnStart(Time now, CcState& s) {
    (void)now;
    s.rate_bps = s.line_rate_bps;
  }
  virtual void OnAck(const AckInfo& ack, CcState& s) { (void)ack, (void)s; }
  virtual void OnNack(Time now, CcState& s) { (void)now, (void)s; }
  virtual void OnCnp(Time now, CcState& s) { (void)now, (void)s; }
  // A data packet of `bytes` payload left the NIC (byte counters, TX bursts).
  virtual void OnSent(Time now, uint32_t bytes, CcState& s) { (void)now, (void)bytes, (void)s; }
  virtual void OnTimer(Time now, int timer, CcState& s) { (void)now, (void)timer, (void)s; }
};

}  // namespace rocesim
