// HPCC: Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019,
// §3 (inflight-bytes based control from INT; per-ACK reaction while the
// reference window is updated once per RTT, so that fast reaction does not
// over-react) and Algorithm 1, with the paper's parameter values and those of
// the authors' ns-3 simulator
// (alibaba-edu/High-Precision-Congestion-Control, rdma-hw.cc UpdateRateHp,
// run.py "hp").
//
// Every ACK carries the INT stack its data packet collected (one IntHop per
// switch egress, first hop first). Per ACK (Algorithm 1, NewAck):
//   MeasureInflight: for every hop i with a previous record L[i] for the same
//     hop (same position in the stack) and Δts = ts - L[i].ts > 0:
//       txRate_i = Δtx_bytes * 8 / Δts
//       u_i = min(qlen, L[i].qlen) / (B_i T) + txRate_i / B_i
//     (B_i the hop's rate, T the base RTT). The min of the two queue samples
//     filters out a queue that is only transient. The hop with the largest
//     u_i is the bottleneck; its Δts is τ. τ = min(τ, T) and
//       U = (1 - τ/T) U + (τ/T) u_max,
//     an EWMA over one base RTT, so that every byte of feedback weighs the
//     same regardless of the ACK spacing.
//   ComputeWind(U, updateWc), updateWc = the ACK acknowledges data sent after
//     the last reference update (acked_psn > lastUpdateSeq):
//       U >= η or incStage >= maxStage:  W = Wc / (U/η) + W_AI  (MD toward η;
//           MI when U < η after maxStage rounds of AI)
//           if updateWc: incStage = 0, Wc = W
//       otherwise:                       W = Wc + W_AI
//           if updateWc: incStage++, Wc = W
//     then, if updateWc, lastUpdateSeq = snd_nxt. W is recomputed on every
//     ACK from Wc (fast reaction without over-reaction: the per-ACK updates
//     never compound within one RTT), Wc only once per RTT.
//   R = W / T: rate_bps = W * 8 / T, window_bytes = W.
// W (and so Wc) is clamped to [min_rate * T / 8, line_rate * T / 8], as the
// simulator clamps the rate to [MIN_RATE, line rate] before storing it.
//
// Initial state: W = Wc = line_rate * T / 8 (one BDP: RDMA starts at line
// rate), U = 1 (the simulator's hp.u = 1; the paper leaves it open),
// incStage = 0. The first ACK only records the INT stack and sets
// lastUpdateSeq = snd_nxt (the simulator's "first RTT" branch falls out of the
// rule: no hop has a previous record yet).
//
// Pure state machine behind CongestionControl; double arithmetic with times
// in picoseconds, in a fixed order, so runs are reproducible.
#pragma once

#include <array>
#include <cstdint>

#include "cc/congestion_control.h"
#include "core/time.h"

namespace rocesim {

struct HpccParams {
  // Target utilization η (paper: 95%; run.py U_TARGET 0.95).
  double eta = 0.95;
  // maxStage: rounds of pure additive increase before the multiplicative
  // branch is taken even below η (paper: maxStage = 5; simulator MiThresh
  // default 5 — note run.py passes MI_THRESH 0 unless --mi is given).
  int max_stage = 5;
  // W_AI, expressed as the rate it adds: W_AI = R_AI * T / 8 bytes. The paper
  // sets W_AI = W_init (1 - η) / N so that N flows' additive increases
  // together fill only the (1 - η) headroom. The simulator's run.py uses
  // RATE_AI = 10 Mb/s per 25 Gb/s of line rate (40 Mb/s at 100G), i.e.
  // R_AI / line = 4e-4 = (1 - 0.95) / 125, which corresponds to N = 125
  // flows. Absolute if nonzero; otherwise ai_per_line_rate * line rate.
  int64_t rate_ai_bps = 0;
  double ai_per_line_rate = 4e-4;
  // Rate floor: run.py MIN_RATE 1000Mb/s.
  int64_t min_rate_bps = 1'000'000'000;
  // U before the first measurement (simulator: hp.u = 1).
  double initial_u = 1.0;
  // Bytes of INT header every data frame of an HPCC QP carries on the wire
  // (0: INT is modelled as free side data). The HPCC simulator reserves room
  // for 5 hops of 8 bytes plus 2 bytes of header in every packet: 42, the
  // paper's ~5% overhead on long flows at 1000-byte payloads.
  int int_bytes = 0;
};

class Hpcc : public CongestionControl {
 public:
  static constexpr int kMaxHops = 8;  // INT records kept (the fabric stamps <= 8)

  explicit Hpcc(const HpccParams& params = HpccParams{}) : p_(params) {}

  // Resets all state: W = Wc = BDP, rate = line rate.
  void OnStart(Time now, CcState& s) override;
  // Algorithm 1 NewAck: MeasureInflight, ComputeWind, R = W / T. ACKs without
  // INT (or a QP without a base RTT) leave the state untouched.
  void OnAck(const AckInfo& ack, CcState& s) override;

  // Inspection (tests, tracing).
  double window() const { return w_; }             // W, bytes
  double reference_window() const { return wc_; }  // Wc, bytes
  double utilization() const { return u_; }        // U
  int inc_stage() const { return inc_stage_; }
  uint32_t last_update_psn() const { return last_update_psn_; }
  double w_ai() const { return w_ai_; }  // bytes
  double rate() const { return rate_; }  // b/s
  double min_window() const { return w_min_; }
  double max_window() const { return w_max_; }
  // The hop chosen as bottleneck by the last measurement (-1: none) and its
  // normalised load u and interval τ (before the min with T).
  int last_hop() const { return last_hop_; }
  double last_hop_u() const { return last_hop_u_; }
  Time last_tau() const { return last_tau_; }

 private:
  // Updates U from the ACK's INT stack against the stored one; false if no
  // hop gave a sample.
  bool MeasureInflight(const AckInfo& ack, int n);
  void ComputeWind(bool update_wc);
  void Publish(CcState& s);

  HpccParams p_;
  // Derived at OnStart.
  double line_rate_ = 0;
  double min_rate_ = 0;
  double t_ = 0;  // base RTT T, picoseconds
  double w_ai_ = 0;
  double w_min_ = 0;
  double w_max_ = 0;

  double w_ = 0;
  double wc_ = 0;
  double u_ = 1;
  double rate_ = 0;
  int inc_stage_ = 0;
  uint32_t last_update_psn_ = 0;

  std::array<IntHop, kMaxHops> prev_{};  // L: the last INT stack seen
  int prev_n_ = 0;

  int last_hop_ = -1;
  double last_hop_u_ = 0;
  Time last_tau_ = 0;
};

}  // namespace rocesim
