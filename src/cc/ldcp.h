// LDCP, the PFC-free Low Delay Control Protocol: seed 001 (IETF
// draft-dai-tsvwg-pfc-free-congestion-control-01), as a pure state machine
// behind the CongestionControl event API. Two variants (LdcpParams::variant):
//
// kWindow — the protocol of §2.2, §2.3 and §3.1 (programmable NIC):
//  * Zero-RTT fast start (§2.3, §3.1). The flow opens with an initial window
//    IW = BDP (line rate x base RTT) at line rate. Its first-RTT packets are
//    sent ECN-incapable (CcState::ect = false), so a switch with WRED/ECN on
//    the queue drops them when the queue exceeds K (switch.ecn.wred_drop)
//    instead of queueing them; the last fast-start packet — the IW-th, or
//    the last packet of a message shorter than IW — is ECN-capable so that it
//    is never WRED-dropped and reveals any loss before it to the receiver
//    (no tail loss, no RTO). Every later packet is ECN-capable ("after the
//    end of the first RTT ... set the packets to ECN-capable ever since").
//    Fast start ends
//      - on a NACK (loss detected): cw = packets acknowledged in order before
//        the loss (at least 1), counted from the ACKs that arrived before the
//        NACK (a NACK's own cumulative part is not reported to congestion
//        control; with per-packet ACKs it adds nothing); the NIC goes back N;
//      - when all IW packets are acknowledged: cw = IW (= BDP by default).
//    The ACK that ends fast start only sets cw; the window rules apply from
//    the next ACK. During fast start the window stays IW.
//  * Stable stage, per-ACK window adjustment PAWA (§2.2, eqs. 1 and 2), cw in
//    packets, n = packets the ACK newly acknowledges (1 with per-packet ACKs,
//    up to host.ack_every with delayed ACKs; duplicates, n = 0, are ignored):
//      cw >= 1:  ECE = 0: cw += n * alpha / cw
//                ECE = 1: cw = max(1, cw - n * beta)
//    (eq. 2 as the draft writes it: the NIC ACKs a CE-marked packet at once,
//    so of an ECE ACK's n packets only the last was marked, yet all n count
//    towards the decrease.)
//    Windows below one packet (§2.2, "cw < 1 is ticked out by a timer whose
//    timeout is RTT/cw"): an ECE = 1 ACK at cw = 1 (the eq. 1 floor) enters
//    the sub-packet regime, where per ACK
//      cw < 1 (or cw = 1 and ECE = 1):
//                ECE = 0: cw += gamma             (back to eq. 1 once >= 1)
//                ECE = 1: cw = max(gamma, eta * cw)
//    The RTT/cw timer is the NIC's rate limiter: window = 1 packet and rate =
//    mtu * 8 * cw / RTT, so one packet leaves every RTT/cw (measured in
//    payload bytes; the wire packet is header_bytes longer, so the real
//    spacing is RTT/cw x wire/payload, ~8% longer with 1000 B + 82 B). RTT is
//    the latest ACK RTT sample, at least the base RTT. Each rate change
//    re-times the pending packet from the previous one, as a re-armed timer
//    would.
//  * Window in bytes (§3.1's LSN): window_bytes = floor(cw) MTUs (the NIC
//    sends while bytes in flight < window, so at most floor(cw) packets are
//    in flight). Flows here are one message of MTU-sized packets (no READ /
//    SEND interleaving), so PSN x MTU is the byte sequence the draft's LSN
//    provides. Go-back-N on NACK and the retransmission timeout are the NIC's.
//  * A NACK in the stable stage does not change cw: the draft names ECE as
//    the only stable-stage signal (losses are rare by design: §2.3). A
//    retransmission timeout is not an event of the API, so it changes nothing
//    either; it can only hit a fast-start flow after all its first-RTT
//    packets went out, which are then ECN-capable anyway.
//
// kEventApi — §3.2 (commercial NIC, programmable CC on standard RoCE): a
// window W in packets converted to a rate, rate = W * mtu * 8 / base RTT
// (no window cap), no fast start (every packet ECN-capable):
//  * AI: W += alpha per RTT-probe response. The probe exchange is modelled by
//    a timer: one probe in flight, answered one RTT later, so W += alpha
//    every probe_interval (default the base RTT; §3.2: "the next RTT request
//    is sent after the RTT response of the previous request is received").
//    Below one packet the step is gamma, as §2.2's sub-packet rule.
//  * MD: per CNP ("window is decreased by beta upon *every* CNP"):
//    W = max(1, W - beta), and at W <= 1: W = max(gamma, eta * W). The NIC's
//    notification point must send a CNP per CE-marked packet for this to be
//    per-mark feedback: run it with host.cnp_interval: 0.
//  * W is capped at the BDP (line rate).
//
// Parameters (LdcpParams) and where their values come from are listed there.
// Switch side (§2.1, §2.3) is the switch's instant-queue RED/ECN (net/red.h:
// K_min, K_max, P_max, p = 1 above K_max) plus WRED drop of ECN-incapable data
// above K (switch.ecn.wred_drop) on the same priority queue; see docs/scenario.md.
//
// Double arithmetic in a fixed order: runs are reproducible.
#pragma once

#include <cstdint>

#include "cc/congestion_control.h"
#include "core/time.h"

namespace rocesim {

enum class LdcpVariant : uint8_t {
  kWindow,    // §2.2 + §2.3 + §3.1: per-ACK window, fast start
  kEventApi,  // §3.2: AI per RTT probe, MD per CNP, window converted to rate
};

struct LdcpParams {
  LdcpVariant variant = LdcpVariant::kWindow;
  // Eq. (1): additive step per ECE=0 ACK (alpha / cw) and per-ECE decrease.
  // The draft fixes only 0 < alpha, beta <= 1 (§2.2); it recommends no values.
  // alpha = 1 is TCP's one packet per RTT of unmarked ACKs; beta = 1/2 halves
  // cw over one fully marked round (cw ACKs x beta), TCP's decrease factor
  // spread over the round as §2.2 describes.
  double alpha = 1.0;
  double beta = 0.5;
  // Sub-packet windows (§2.2): "typical values of gamma include 1/4, 1/8,
  // 1/16" — the increase step and minimum window. N senders at the floor
  // offer N * gamma packets per RTT, so a smaller gamma endures more senders
  // but climbs back more slowly. The middle value: in a 256-to-1 incast on a
  // 100G star (BDP ~53 packets) 1/8 gave 96% link use with a 34 KB mean
  // queue, 1/16 87% with 23 KB, 1/4 97% with 54 KB.
  double gamma = 1.0 / 8;
  // §2.2: "We choose eta = 1/2."
  double eta = 0.5;
  // §2.3: "the sender chooses a large enough Initial Window (e.g., BDP)";
  // §3.1: "IW is set to BDP". 0 = the QP's BDP, line rate x base RTT, rounded
  // up to whole packets.
  int64_t initial_window_bytes = 0;
  // §2.3 zero-RTT bandwidth acquisition (kWindow); false starts in the stable
  // stage with cw = IW and every packet ECN-capable.
  bool fast_start = true;
  // Cap of cw in bytes (0 = none, as the draft). Without marks cw grows by
  // alpha per RTT for as long as the flow lasts, like TCP's cwnd.
  int64_t max_window_bytes = 0;
  // kEventApi: period of the RTT-probe AI (0 = the QP's base RTT).
  Time probe_interval = 0;
};

// Throws std::invalid_argument naming the first bad field.
void ValidateLdcpParams(const LdcpParams& p);

class Ldcp final : public CongestionControl {
 public:
  static constexpr int kProbeTimer = 0;  // kEventApi: the RTT-probe AI

  explicit Ldcp(const LdcpParams& params = LdcpParams{});  // validates

  void OnStart(Time now, CcState& s) override;
  void OnAck(const AckInfo& ack, CcState& s) override;
  void OnNack(Time now, CcState& s) override;
  void OnCnp(Time now, CcState& s) override;
  void OnSent(Time now, uint32_t bytes, CcState& s) override;
  void OnTimer(Time now, int timer, CcState& s) override;

  // Introspection (tests, traces).
  const LdcpParams& params() const { return p_; }
  bool in_fast_start() const { return fast_start_; }
  double cw() const { return cw_; }            // packets
  double bdp_packets() const { return bdp_; }  // line rate x base RTT / MTU
  uint32_t iw_packets() const { return iw_; }  // initial window
  uint64_t fast_start_acked() const { return fs_acked_; }
  Time rtt() const { return rtt_; }  // the RTT of the sub-packet timer

 private:
  // Eq. (1)/(2) and the sub-packet rule for one ACK (kWindow) or signal.
  void Increase(double n);
  void Decrease(double n);
  void Publish(CcState& s) const;

  LdcpParams p_;
  // Derived at OnStart.
  int64_t line_ = 0;
  double mtu_ = 1000;
  Time base_rtt_ = 0;
  double bdp_ = 1;         // packets
  uint32_t iw_ = 1;        // packets
  uint64_t msg_pkts_ = 0;  // the message's packets (0 = unknown)
  double max_cw_ = 0;      // packets (0 = none)

  bool fast_start_ = false;
  uint64_t sent_ = 0;      // packets sent (fast start: which one is next)
  uint64_t fs_acked_ = 0;  // packets acknowledged in order during fast start
  double cw_ = 1;          // packets
  Time rtt_ = 0;           // latest RTT sample, at least base RTT
};

}  // namespace rocesim
