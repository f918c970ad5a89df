// DCTCP over RoCE: Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010,
// §3.1-3.2 (sender side; the switch side — mark CE when the instantaneous
// queue exceeds K, i.e. RED with K_min = K_max = K and P_max = 1 — lives in
// the switch's RED marker).
//
// Sender (paper §3.1 "ECN-Echo at the receiver" is the NIC's ACK ecn_echo bit,
// §3.1 "Controller at the sender"):
//   * alpha is estimated once per window of data (about one RTT):
//       alpha <- (1 - g) alpha + g F,   g = 1/16 (the paper's value; Linux
//       tcp_dctcp dctcp_shift_g = 4; HPCC simulator run.py "dctcp":
//       EWMA_GAIN 0.0625),
//     F = fraction of acknowledged bytes whose ACK carried ECN-echo in that
//     window. A window closes on the first ACK that acknowledges data sent
//     after the previous close (acked_psn > snd_nxt at that close); the very
//     first ACK opens the first window (as the HPCC simulator does), so a
//     one-ACK "window" never drives alpha.
//   * On an ECN-echo, cut at most once per window of data (paper: "reacts ...
//     at most once per window", as TCP's CWR state):
//       kWindow: cwnd <- cwnd (1 - alpha/2), floored at min_window_packets MTUs;
//       kRate:   rate <- rate (1 - alpha/2), floored at min_rate_bps.
//     The cut enters CWR until an ACK covers data sent after the cut
//     (acked_psn > snd_nxt at the cut), so ECN-echoes of packets that were
//     already in flight when we cut cannot cut again.
//   * Otherwise additive increase while not in CWR:
//       kWindow: TCP congestion avoidance, +1 MTU per cwnd of acknowledged
//                bytes (exact byte counting, RFC 3465 style), i.e. one MTU
//                per RTT. No slow start: RDMA starts at line rate, so the
//                initial cwnd is the BDP = line_rate * base_rtt / 8 and the
//                flow is in congestion avoidance from the first ACK.
//       kRate:   the HPCC simulator's DCTCP (rdma-hw.cc HandleAckDctcp,
//                CC_MODE 8): +rate_ai_bps once per closed alpha window,
//                capped at line rate.
//   * Initial alpha = 1 (the DCTCP paper / Linux tcp_dctcp and the HPCC
//     simulator all start at 1): the first congestion event halves, the
//     conservative choice for a flow that starts at line rate.
//
// NACKs and CNPs are not congestion signals here: DCTCP reads ECN-echo from
// ACKs only, and a go-back-N loss in a lossless fabric is recovered by the
// transport (the HPCC simulator's DCTCP ignores both as well).
//
// Pure state machine behind CongestionControl; double arithmetic in a fixed
// order, so runs are reproducible.
#pragma once

#include <cstdint>

#include "cc/congestion_control.h"
#include "core/time.h"

namespace rocesim {

enum class DctcpMode {
  kWindow,  // TCP-like: cwnd in bytes (window_bytes), rate = line rate or paced
  kRate,    // HPCC simulator CC_MODE 8: rate-based DCTCP
};

struct DctcpParams {
  double g = 1.0 / 16;         // alpha EWMA gain (paper; Linux; run.py dctcp: 0.0625)
  double initial_alpha = 1.0;  // paper / Linux / HPCC simulator
  DctcpMode mode = DctcpMode::kWindow;

  // kWindow: floor of cwnd in MTUs (TCP's minimum window of one segment).
  int min_window_packets = 1;
  // kWindow: cap of cwnd in bytes, like a TCP receive window (0 = none: cwnd
  // grows one MTU per RTT for as long as no mark arrives, as TCP's does).
  int64_t max_window_bytes = 0;
  // kWindow: pace at cwnd / base_rtt instead of line rate (window-limited only
  // when false).
  bool pace = false;

  // Rate floor (kRate; kWindow with pace). HPCC simulator MIN_RATE 1000Mb/s
  // (run.py and the bench config).
  int64_t min_rate_bps = 1'000'000'000;
  // kRate additive increase per window of ACKs: DCTCP_RATE_AI 1000Mb/s (the
  // simulator's DctcpRateAI default and the bench config's value). run.py's
  // own "dctcp" runs use 615 Mb/s = 1 KB MTU per 13 us RTT, i.e. one MTU per
  // RTT; set 0 to derive that from the QP: mtu * 8 / base_rtt.
  int64_t rate_ai_bps = 1'000'000'000;
  // kRate: also cap bytes in flight at rate * base_rtt / 8 (the simulator's
  // dctcp runs use HAS_WIN 1, VAR_WIN 1: window = BDP * rate / line rate).
  bool rate_window = true;
};

class Dctcp : public CongestionControl {
 public:
  explicit Dctcp(const DctcpParams& params = DctcpParams{}) : p_(params) {}

  // Resets all state; cwnd = BDP (kWindow), rate = line rate.
  void OnStart(Time now, CcState& s) override;
  // alpha bookkeeping, CWR exit, ECN-echo cut, additive increase.
  void OnAck(const AckInfo& ack, CcState& s) override;

  // Inspection (tests, tracing).
  double alpha() const { return alpha_; }
  double cwnd() const { return cwnd_; }  // bytes (kWindow)
  double rate() const { return rate_; }  // b/s (kRate; kWindow: published rate)
  bool in_cwr() const { return in_cwr_; }
  uint32_t cwr_end_psn() const { return cwr_end_psn_; }
  uint32_t window_end_psn() const { return window_end_psn_; }
  uint64_t alpha_updates() const { return alpha_updates_; }
  uint64_t cuts() const { return cuts_; }
  double min_window() const { return min_window_; }
  double max_window() const { return max_window_; }  // 0 = none
  double rate_ai() const { return rate_ai_; }

 private:
  // Counts the ACK into the current observation window; closes the window and
  // updates alpha when the ACK passes its end. Returns true if it closed.
  bool AlphaWindow(const AckInfo& ack);
  void Publish(CcState& s);

  DctcpParams p_;
  // Derived at OnStart.
  double line_rate_ = 0;
  double base_rtt_ = 0;  // picoseconds (kept in ps so that BDPs are exact)
  double mtu_ = 0;
  double min_window_ = 0;
  double max_window_ = 0;
  double rate_ai_ = 0;

  double alpha_ = 1.0;
  double cwnd_ = 0;
  double rate_ = 0;
  double ca_acked_bytes_ = 0;  // kWindow: bytes acked toward the next +1 MTU

  bool window_open_ = false;
  uint32_t window_end_psn_ = 0;  // snd_nxt when the current window opened
  uint64_t window_bytes_ = 0;    // bytes acknowledged in the window
  uint64_t window_marked_ = 0;   // of which with ECN-echo

  bool in_cwr_ = false;
  uint32_t cwr_end_psn_ = 0;  // snd_nxt at the cut

  uint64_t alpha_updates_ = 0;
  uint64_t cuts_ = 0;
};

}  // namespace rocesim
