// DCQCN reaction point (the sending NIC's rate controller), as a pure state
// machine behind the CongestionControl event API.
//
// Sources:
//  - seed 000 §7 (DC-QCN): three parallel processes — alpha update once per
//    alpha slot (7.1), rate decrease at most once per decrease slot with
//    new = old * (1 - alpha/2) and reset of the increase state (7.2), and rate
//    increase in three phases (fast recovery, additive, hyper-additive) driven
//    by a timer and a byte counter, recovering towards a saved target rate (7.3).
//    Note: 7.1 prints the EWMA with g and (1-g) swapped
//    ("new_α = g*old_α + (1-g)*CNP_arrived"); we use the DCQCN paper's form,
//    alpha = (1-g) alpha + g * CNP_arrived, which is what every implementation
//    (and the paper's g = 1/256) means.
//  - Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
//    SIGCOMM 2015, §3.1 (RP algorithm, eqs. 1-4, RP state machine figure) and
//    the authors' ns-3 simulator (github.com/bobzhuyb/ns3-rdma,
//    qbb-net-device.cc rpr_*): RT = RC, RC = RC(1 - alpha/2) on a CNP; fast
//    recovery RC = (RT + RC)/2 for F iterations; additive increase RT += R_AI;
//    hyper increase (QCN's) RT += i * R_HAI with i = min(T, BC) - F + 1.
//  - HPCC's ns-3 (github.com/alibaba-edu/High-Precision-Congestion-Control,
//    rdma-hw.cc, "Mellanox's version of DCQCN", CC_MODE 1) for the hpcc-sim
//    style: periodic decrease check, timer-only stages, constant R_HAI,
//    CLAMP_TARGET_RATE, congestion signalled by the CNP flag on ACKs.
//
// Two orthogonal choices in DcqcnParams:
//  - mode: where the congestion signal comes from. kCnp: OnCnp is a CNP and
//    AckInfo::ecn_echo is ignored. kAckEcnEcho: every ACK with ecn_echo counts
//    as one CNP arrival (HPCC's simulator has no paced CNPs: the receiver sets
//    a CNP flag on the ACK of each CE-marked packet) and OnCnp is ignored.
//  - style: kPaper or kHpccSim, the reaction-point details that differ between
//    the DCQCN paper and HPCC's Mellanox-style model (see DcqcnStyle).
//
// Alpha needs no timer events: alpha only matters when a decrease happens, so
// the slot updates that fell due since the last event are applied on demand
// (CatchUpAlpha), giving exactly the values a periodic alpha timer would give
// without an event per alpha interval per congested QP (1 us in the HPCC
// reference settings). A slot boundary at time t is applied before any other
// event at t. Likewise the HPCC-style decrease check is only scheduled for the
// next check instant when a CNP is waiting for it.
#pragma once

#include <cstdint>

#include "cc/congestion_control.h"
#include "core/time.h"

namespace rocesim {

enum class DcqcnMode : uint8_t {
  kCnp,         // congestion = OnCnp (paced CNPs from the notification point)
  kAckEcnEcho,  // congestion = OnAck with ack.ecn_echo (one per marked packet)
};

enum class DcqcnStyle : uint8_t {
  // DCQCN paper + QCN increase rules:
  //  - decrease on the CNP itself if none happened in the last
  //    decrease_interval; a CNP inside that interval is folded into one
  //    deferred decrease at the interval's end (never lost, never doubled);
  //  - increase events from the timer (stage T) and byte counter (stage BC);
  //    phase from the stages before the event: fast recovery while
  //    max(T, BC) < F, additive while min(T, BC) < F <= max(T, BC), hyper when
  //    min(T, BC) >= F with RT += i * R_HAI, i = min(T, BC) - F + 1. With the
  //    byte counter off BC stays 0, so recovery is F fast-recovery steps then
  //    additive increase forever (HAI needs both counters, as in QCN);
  //  - the first CNP counts in the first alpha slot like any other.
  kPaper,
  // HPCC ns-3 rdma-hw.cc (Mellanox model), reproduced up to sub-bit/s
  // rounding (HPCC's DataRate arithmetic truncates slightly differently):
  //  - the first CNP starts the alpha slots and a decrease-check grid at
  //    t0 + 1 ns + k * decrease_interval (k >= 1; HPCC adds 1 ns so the check
  //    follows a coincident alpha update); a check decreases once if any CNP
  //    arrived since the previous check, so even the first decrease waits for
  //    the first check;
  //  - the first CNP re-initialises alpha to 1 and does not count in the first
  //    alpha slot (HPCC clears m_alpha_cnp_arrived on the first CNP);
  //  - stage s = max(T, BC) before the event (BC only if a byte counter is
  //    set; HPCC has none): s < F fast recovery, s == F additive, s > F hyper
  //    with a constant RT += R_HAI.
  kHpccSim,
};

// Every knob of the reaction point. Rates in bits/s, times in picoseconds.
struct DcqcnParams {
  double g = 1.0 / 256;          // alpha EWMA gain
  Time alpha_interval = 0;       // alpha slot (K)
  Time decrease_interval = 0;    // at most one decrease per interval
  Time increase_timer = 0;       // rate-increase timer period (T)
  int64_t byte_counter = 0;      // bytes per byte-counter event (B); 0 = off
  int fast_recovery_stages = 5;  // F
  int64_t rate_ai_bps = 0;       // R_AI
  int64_t rate_hai_bps = 0;      // R_HAI
  int64_t min_rate_bps = 0;      // floor of the current rate
  // On a decrease the target rate RT takes the current rate RC. true: always
  // (the paper's eq. 1). false: only if an increase event happened since the
  // previous decrease; back-to-back decreases keep the older, higher target,
  // so recovery aims at the rate before the congestion episode (HPCC's
  // CLAMP_TARGET_RATE 0: `if (!clamp && rpTimeStage == 0) keep target`; the
  // DCQCN authors' ns-3 has a similar rule on its byte stage).
  bool clamp_target_rate = true;
  DcqcnMode mode = DcqcnMode::kCnp;
  DcqcnStyle style = DcqcnStyle::kPaper;
};

// 40 Gb/s settings of the DCQCN paper (values and sources in dcqcn.cpp).
DcqcnParams DcqcnPaperPreset();
// /work/shared/bench/hpcc_config_k8_dcqcn_ws30.txt (HPCC's CC_MODE 1 settings).
DcqcnParams DcqcnHpccSimPreset();

// Throws std::invalid_argument naming the first bad field.
void ValidateDcqcnParams(const DcqcnParams& p);

class Dcqcn final : public CongestionControl {
 public:
  // CcState::timer_at indices this algorithm uses.
  static constexpr int kIncreaseTimer = 0;  // rate-increase timer (T)
  static constexpr int kDecreaseTimer = 1;  // decrease check / deferred decrease

  explicit Dcqcn(const DcqcnParams& params);  // validates

  void OnStart(Time now, CcState& s) override;
  void OnAck(const AckInfo& ack, CcState& s) override;
  void OnCnp(Time now, CcState& s) override;
  void OnSent(Time now, uint32_t bytes, CcState& s) override;
  void OnTimer(Time now, int timer, CcState& s) override;
  // NACKs carry no congestion information for DCQCN: default no-op.

  // Introspection (tests, traces).
  const DcqcnParams& params() const { return p_; }
  int64_t current_rate_bps() const { return rc_; }  // RC
  int64_t target_rate_bps() const { return rt_; }   // RT
  // Alpha as a periodic alpha timer would have it at `now` (slot ends <= now
  // applied); does not change the state.
  double AlphaAt(Time now) const;
  int time_stage() const { return t_stage_; }    // T: timer events since the last decrease
  int byte_stage() const { return bc_stage_; }   // BC: byte-counter events since then
  bool congested() const { return congested_; }  // a CNP has been seen

 private:
  struct AlphaClock {
    double alpha = 1.0;
    Time next_tick = kTimeMax;  // end of the current alpha slot
    bool cnp_in_slot = false;
  };
  static void CatchUp(AlphaClock& a, Time now, Time interval, double keep, double g);

  void OnCongestion(Time now, CcState& s);
  void Decrease(Time now, CcState& s);
  void IncreaseEvent(bool from_timer, CcState& s);
  Time NextHpccCheckAfter(Time now) const;
  void Publish(CcState& s) const { s.rate_bps = rc_; }

  DcqcnParams p_;
  double keep_ = 1.0 - 1.0 / 256;  // 1 - g, computed once

  int64_t line_ = 0;      // line rate (cap of RC and RT)
  int64_t min_rate_ = 0;  // min(min_rate_bps, line)
  int64_t rc_ = 0;        // current rate
  int64_t rt_ = 0;        // target rate
  AlphaClock alpha_;

  bool congested_ = false;         // first CNP seen (alpha slots running)
  Time first_cnp_ = 0;             // origin of the HPCC-style check grid
  bool decrease_pending_ = false;  // a CNP is waiting for the decrease timer
  Time next_decrease_ok_ = 0;      // kPaper: earliest time of the next decrease

  bool recovering_ = false;  // increase timer / byte counter running
  int t_stage_ = 0;
  int bc_stage_ = 0;
  int64_t bytes_ = 0;  // bytes sent since the last byte-counter event
};

}  // namespace rocesim
