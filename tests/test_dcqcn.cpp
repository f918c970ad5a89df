// Unit tests of the DCQCN reaction point (cc/dcqcn.h) against hand-computed
// steps: the start state, the cut RC(1 - alpha/2) with the target rate, one cut
// per decrease interval, alpha slots, fast recovery / additive / hyper increase
// from the timer and the byte counter, the min-rate floor, the line-rate cap,
// the two presets, and the two congestion-signal modes.
#include <gtest/gtest.h>

#include <stdexcept>

#include "cc/dcqcn.h"

namespace rocesim {
namespace test_dcqcn {
namespace {

constexpr Time kUs = kMicrosecond;
constexpr int kInc = Dcqcn::kIncreaseTimer;
constexpr int kDec = Dcqcn::kDecreaseTimer;

CcState StartedState(Dcqcn& cc, int64_t line_bps) {
  CcState s;
  s.line_rate_bps = line_bps;
  cc.OnStart(0, s);
  return s;
}

AckInfo Ack(Time now, bool ecn_echo) {
  AckInfo a;
  a.now = now;
  a.newly_acked_bytes = 1000;
  a.ecn_echo = ecn_echo;
  return a;
}

// Fires the increase timer where it is due and returns the time it fired.
Time FireIncrease(Dcqcn& cc, CcState& s) {
  const Time at = s.timer_at[kInc];
  cc.OnTimer(at, kInc, s);
  return at;
}

// Small round numbers so every step can be checked by hand.
DcqcnParams HandParams() {
  DcqcnParams p;
  p.g = 1.0 / 256;
  p.alpha_interval = 1000 * kUs;  // alpha stays 1 during these tests
  p.decrease_interval = 10 * kUs;
  p.increase_timer = 100 * kUs;
  p.byte_counter = 1'000'000;
  p.fast_recovery_stages = 2;
  p.rate_ai_bps = 10'000'000;    // 10 Mb/s
  p.rate_hai_bps = 100'000'000;  // 100 Mb/s
  p.min_rate_bps = 1'000'000'000;
  p.clamp_target_rate = true;
  p.mode = DcqcnMode::kCnp;
  p.style = DcqcnStyle::kPaper;
  return p;
}

TEST(DcqcnPresets, PaperValues) {
  const DcqcnParams p = DcqcnPaperPreset();
  EXPECT_EQ(p.g, 1.0 / 256);
  EXPECT_EQ(p.alpha_interval, 55 * kUs);
  EXPECT_EQ(p.increase_timer, 55 * kUs);
  EXPECT_EQ(p.decrease_interval, 50 * kUs);
  EXPECT_EQ(p.byte_counter, 10'000'000);
  EXPECT_EQ(p.fast_recovery_stages, 5);
  EXPECT_EQ(p.rate_ai_bps, 40'000'000);
  EXPECT_EQ(p.rate_hai_bps, 200'000'000);
  EXPECT_EQ(p.min_rate_bps, 100'000'000);
  EXPECT_TRUE(p.clamp_target_rate);
  EXPECT_EQ(p.mode, DcqcnMode::kCnp);
  EXPECT_EQ(p.style, DcqcnStyle::kPaper);
}

// Values of /work/shared/bench/hpcc_config_k8_dcqcn_ws30.txt, line by line.
TEST(DcqcnPresets, HpccSimMatchesConfigFile) {
  const DcqcnParams p = DcqcnHpccSimPreset();
  EXPECT_EQ(p.alpha_interval, 1 * kUs);       // ALPHA_RESUME_INTERVAL 1
  EXPECT_EQ(p.decrease_interval, 4 * kUs);    // RATE_DECREASE_INTERVAL 4
  EXPECT_FALSE(p.clamp_target_rate);          // CLAMP_TARGET_RATE 0
  EXPECT_EQ(p.increase_timer, 300 * kUs);     // RP_TIMER 300
  EXPECT_EQ(p.g, 0.00390625);                 // EWMA_GAIN 0.00390625
  EXPECT_EQ(p.fast_recovery_stages, 1);       // FAST_RECOVERY_TIMES 1
  EXPECT_EQ(p.rate_ai_bps, 20'000'000);       // RATE_AI 20Mb/s
  EXPECT_EQ(p.rate_hai_bps, 200'000'000);     // RATE_HAI 200Mb/s
  EXPECT_EQ(p.min_rate_bps, 1'000'000'000);   // MIN_RATE 1000Mb/s
  EXPECT_EQ(p.byte_counter, 0);               // no byte counter in HPCC's model
  EXPECT_EQ(p.mode, DcqcnMode::kAckEcnEcho);  // CNP flag on ACKs
  EXPECT_EQ(p.style, DcqcnStyle::kHpccSim);
}

TEST(DcqcnParamsCheck, RejectsBadValues) {
  DcqcnParams p = DcqcnPaperPreset();
  p.g = 0;
  EXPECT_THROW(Dcqcn{p}, std::invalid_argument);
  p = DcqcnPaperPreset();
  p.alpha_interval = 0;
  EXPECT_THROW(Dcqcn{p}, std::invalid_argument);
  p = DcqcnPaperPreset();
  p.byte_counter = -1;
  EXPECT_THROW(Dcqcn{p}, std::invalid_argument);
  EXPECT_NO_THROW(Dcqcn{DcqcnPaperPreset()});
  EXPECT_NO_THROW(Dcqcn{DcqcnHpccSimPreset()});
}

TEST(Dcqcn, StartsAtLineRateWithAlphaOne) {
  Dcqcn cc(DcqcnPaperPreset());
  CcState s = StartedState(cc, 40'000'000'000);
  EXPECT_EQ(s.rate_bps, 40'000'000'000);
  EXPECT_EQ(s.window_bytes, 0);
  EXPECT_EQ(cc.current_rate_bps(), 40'000'000'000);
  EXPECT_EQ(cc.target_rate_bps(), 40'000'000'000);
  EXPECT_EQ(cc.AlphaAt(0), 1.0);
  EXPECT_EQ(cc.AlphaAt(10 * kMillisecond), 1.0);  // no slots run before the first CNP
  EXPECT_FALSE(cc.congested());
  for (Time t : s.timer_at) EXPECT_EQ(t, kTimeMax);
}

TEST(Dcqcn, FirstCnpHalvesRateAndKeepsLineRateAsTarget) {
  Dcqcn cc(DcqcnPaperPreset());
  CcState s = StartedState(cc, 40'000'000'000);
  cc.OnCnp(10 * kUs, s);
  EXPECT_EQ(s.rate_bps, 20'000'000'000);  // alpha = 1: RC(1 - 1/2)
  EXPECT_EQ(cc.target_rate_bps(), 40'000'000'000);
  EXPECT_EQ(s.timer_at[kInc], 65 * kUs);  // increase timer starts at the cut
  EXPECT_EQ(s.timer_at[kDec], kTimeMax);
  EXPECT_EQ(cc.time_stage(), 0);
  EXPECT_EQ(cc.byte_stage(), 0);
}

TEST(Dcqcn, SecondCnpInsideDecreaseIntervalDoesNotDecreaseAgain) {
  Dcqcn cc(DcqcnPaperPreset());
  CcState s = StartedState(cc, 40'000'000'000);
  cc.OnCnp(10 * kUs, s);
  cc.OnCnp(30 * kUs, s);
  cc.OnCnp(59 * kUs, s);
  EXPECT_EQ(s.rate_bps, 20'000'000'000);
  EXPECT_EQ(cc.target_rate_bps(), 40'000'000'000);
  // The CNPs inside the interval fold into one cut when it ends (10 + 50 us).
  EXPECT_EQ(s.timer_at[kDec], 60 * kUs);
  cc.OnTimer(60 * kUs, kDec, s);
  EXPECT_EQ(s.rate_bps, 10'000'000'000);            // alpha still 1 (slot ends at 65 us)
  EXPECT_EQ(cc.target_rate_bps(), 20'000'000'000);  // clamp: RT = RC before the cut
  EXPECT_EQ(s.timer_at[kDec], kTimeMax);
  EXPECT_EQ(s.timer_at[kInc], 115 * kUs);
}

TEST(Dcqcn, CnpAfterDecreaseIntervalCutsImmediately) {
  Dcqcn cc(DcqcnPaperPreset());
  CcState s = StartedState(cc, 40'000'000'000);
  cc.OnCnp(10 * kUs, s);
  cc.OnCnp(60 * kUs, s);
  EXPECT_EQ(s.rate_bps, 10'000'000'000);
  EXPECT_EQ(s.timer_at[kDec], kTimeMax);
}

TEST(Dcqcn, AlphaDecaysPerQuietSlotAndRisesOnCnpSlot) {
  const double g = 1.0 / 256;
  const double keep = 1.0 - g;
  Dcqcn cc(DcqcnPaperPreset());  // 55 us slots from the first CNP
  CcState s = StartedState(cc, 40'000'000'000);
  cc.OnCnp(0, s);  // paper style: counts in slot (0, 55]
  EXPECT_EQ(cc.AlphaAt(55 * kUs - 1), 1.0);
  EXPECT_EQ(cc.AlphaAt(55 * kUs), keep * 1.0 + g);  // == 1
  EXPECT_EQ(cc.AlphaAt(110 * kUs), keep);           // quiet slot (55, 110]
  EXPECT_EQ(cc.AlphaAt(165 * kUs), keep * keep);
  EXPECT_EQ(cc.AlphaAt(220 * kUs), keep * keep * keep);

  // A CNP in slot (110, 165]: the cut uses alpha as of 110 us ...
  cc.OnCnp(120 * kUs, s);
  EXPECT_EQ(cc.target_rate_bps(), 20'000'000'000);
  EXPECT_EQ(s.rate_bps, static_cast<int64_t>(20e9 * (1.0 - keep / 2.0)));
  // ... and alpha rises by g at the end of that slot, then decays again.
  const double a165 = keep * keep + g;
  EXPECT_EQ(cc.AlphaAt(165 * kUs), a165);
  EXPECT_EQ(cc.AlphaAt(219 * kUs), a165);
  EXPECT_EQ(cc.AlphaAt(220 * kUs), keep * a165);
  EXPECT_EQ(cc.AlphaAt(275 * kUs), keep * (keep * a165));
}

// Alpha is brought up to date on demand; after a long quiet spell (here past
// the point where (1-g)^k stops changing the double) it must equal a periodic
// timer applying every slot.
TEST(Dcqcn, AlphaCatchUpMatchesOneUpdatePerSlot) {
  const double keep = 1.0 - 0.00390625;
  Dcqcn cc(DcqcnHpccSimPreset());  // 1 us slots; the first signal is not counted
  CcState s = StartedState(cc, 100'000'000'000);
  cc.OnAck(Ack(0, true), s);
  double a = 1.0;
  for (int k = 1; k <= 1000; ++k) a = keep * a;
  EXPECT_EQ(cc.AlphaAt(1000 * kUs), a);
  for (int k = 1001; k <= 300'000; ++k) a = keep * a;
  EXPECT_EQ(cc.AlphaAt(300'000 * kUs), a);
  EXPECT_EQ(cc.AlphaAt(300'000 * kUs + 999'999), a);
  // A signal after the quiet spell counts in its own slot (300000, 300001] us.
  cc.OnAck(Ack(300'000 * kUs + 500'000, true), s);
  EXPECT_EQ(cc.AlphaAt(300'000 * kUs + 999'999), a);
  EXPECT_EQ(cc.AlphaAt(300'001 * kUs), keep * a + 0.00390625);
}

TEST(Dcqcn, FastRecoveryHalvesTheDistanceToTargetForFSteps) {
  Dcqcn cc(DcqcnPaperPreset());  // F = 5, T = 55 us
  CcState s = StartedState(cc, 40'000'000'000);
  cc.OnCnp(0, s);
  ASSERT_EQ(s.rate_bps, 20'000'000'000);
  const int64_t expected[5] = {30'000'000'000, 35'000'000'000, 37'500'000'000, 38'750'000'000,
                               39'375'000'000};
  for (int i = 0; i < 5; ++i) {
    const Time at = FireIncrease(cc, s);
    EXPECT_EQ(at, (i + 1) * 55 * kUs);
    EXPECT_EQ(s.rate_bps, expected[i]) << "fast-recovery step " << i + 1;
    EXPECT_EQ(cc.target_rate_bps(), 40'000'000'000);
    EXPECT_EQ(cc.time_stage(), i + 1);
    EXPECT_EQ(s.timer_at[kInc], at + 55 * kUs);
  }
  // T = 5 = F, BC = 0: additive increase, but RT is already the line rate.
  FireIncrease(cc, s);
  EXPECT_EQ(cc.target_rate_bps(), 40'000'000'000);
  EXPECT_EQ(s.rate_bps, 39'687'500'000);
}

TEST(Dcqcn, TimerAndByteCounterDriveAdditiveThenHyperIncrease) {
  Dcqcn cc(HandParams());  // F = 2, B = 1 MB, T = 100 us, R_AI 10M, R_HAI 100M
  CcState s = StartedState(cc, 10'000'000'000);
  cc.OnCnp(0, s);         // RC 5G, RT 10G
  cc.OnCnp(10 * kUs, s);  // clamp: RT = 5G, RC = 2.5G; timer at 110 us
  ASSERT_EQ(s.rate_bps, 2'500'000'000);
  ASSERT_EQ(cc.target_rate_bps(), 5'000'000'000);
  ASSERT_EQ(s.timer_at[kInc], 110 * kUs);

  // (T, BC) before each event -> phase.
  cc.OnSent(20 * kUs, 1'000'000, s);  // (0,0) fast recovery
  EXPECT_EQ(s.rate_bps, 3'750'000'000);
  EXPECT_EQ(cc.byte_stage(), 1);
  EXPECT_EQ(FireIncrease(cc, s), 110 * kUs);  // (0,1) fast recovery
  EXPECT_EQ(s.rate_bps, 4'375'000'000);
  EXPECT_EQ(cc.time_stage(), 1);
  cc.OnSent(120 * kUs, 1'000'000, s);  // (1,1) fast recovery
  EXPECT_EQ(s.rate_bps, 4'687'500'000);
  EXPECT_EQ(cc.target_rate_bps(), 5'000'000'000);

  EXPECT_EQ(FireIncrease(cc, s), 210 * kUs);  // (1,2): max >= F, min < F -> additive
  EXPECT_EQ(cc.target_rate_bps(), 5'010'000'000);
  EXPECT_EQ(s.rate_bps, 4'848'750'000);

  cc.OnSent(220 * kUs, 1'000'000, s);  // (2,2): hyper, i = 2 - 2 + 1 = 1
  EXPECT_EQ(cc.target_rate_bps(), 5'110'000'000);
  EXPECT_EQ(s.rate_bps, 4'979'375'000);
  EXPECT_EQ(FireIncrease(cc, s), 310 * kUs);  // (2,3): i = 1
  EXPECT_EQ(cc.target_rate_bps(), 5'210'000'000);
  EXPECT_EQ(s.rate_bps, 5'094'687'500);
  cc.OnSent(320 * kUs, 1'000'000, s);  // (3,3): i = 2
  EXPECT_EQ(cc.target_rate_bps(), 5'410'000'000);
  EXPECT_EQ(s.rate_bps, 5'252'343'750);
  EXPECT_EQ(FireIncrease(cc, s), 410 * kUs);  // (3,4): i = 2
  EXPECT_EQ(cc.target_rate_bps(), 5'610'000'000);
  EXPECT_EQ(s.rate_bps, 5'431'171'875);
  EXPECT_EQ(cc.time_stage(), 4);
  EXPECT_EQ(cc.byte_stage(), 4);
}

TEST(Dcqcn, ByteCounterCountsBytesSentSinceTheCut) {
  Dcqcn cc(HandParams());  // B = 1,000,000 bytes
  CcState s = StartedState(cc, 10'000'000'000);
  cc.OnSent(0, 5'000'000, s);  // before any CNP: at line rate, nothing to recover
  EXPECT_EQ(cc.byte_stage(), 0);
  cc.OnCnp(1 * kUs, s);
  cc.OnSent(2 * kUs, 400'000, s);
  cc.OnSent(3 * kUs, 400'000, s);
  EXPECT_EQ(cc.byte_stage(), 0);
  EXPECT_EQ(s.rate_bps, 5'000'000'000);
  cc.OnSent(4 * kUs, 400'000, s);  // 1.2 MB: one event, 200 KB carried
  EXPECT_EQ(cc.byte_stage(), 1);
  EXPECT_EQ(s.rate_bps, 7'500'000'000);
  cc.OnSent(5 * kUs, 800'000, s);  // 200 KB + 800 KB: second event
  EXPECT_EQ(cc.byte_stage(), 2);
  EXPECT_EQ(s.rate_bps, 8'750'000'000);
  cc.OnSent(6 * kUs, 2'000'000, s);  // two events at once
  EXPECT_EQ(cc.byte_stage(), 4);
}

TEST(Dcqcn, DecreaseResetsStagesByteCountAndTimer) {
  Dcqcn cc(HandParams());
  CcState s = StartedState(cc, 10'000'000'000);
  cc.OnCnp(0, s);
  FireIncrease(cc, s);                 // T = 1 at 100 us
  cc.OnSent(150 * kUs, 1'500'000, s);  // BC = 1, 500 KB carried
  ASSERT_EQ(cc.time_stage(), 1);
  ASSERT_EQ(cc.byte_stage(), 1);
  const int64_t before = s.rate_bps;
  cc.OnCnp(170 * kUs, s);
  EXPECT_EQ(cc.time_stage(), 0);
  EXPECT_EQ(cc.byte_stage(), 0);
  EXPECT_EQ(s.timer_at[kInc], 270 * kUs);
  EXPECT_EQ(cc.target_rate_bps(), before);
  EXPECT_EQ(s.rate_bps, before / 2);
  cc.OnSent(180 * kUs, 600'000, s);  // the carried 500 KB was dropped by the cut
  EXPECT_EQ(cc.byte_stage(), 0);
  // The old timer instant is no longer armed: a late call for it does nothing.
  cc.OnTimer(200 * kUs, kInc, s);
  EXPECT_EQ(cc.time_stage(), 0);
  EXPECT_EQ(s.rate_bps, before / 2);
}

TEST(Dcqcn, RateNeverFallsBelowMinRate) {
  Dcqcn cc(HandParams());  // min 1 Gb/s, one cut per 10 us, alpha stays 1
  CcState s = StartedState(cc, 10'000'000'000);
  const int64_t expected[6] = {5'000'000'000, 2'500'000'000, 1'250'000'000,
                               1'000'000'000, 1'000'000'000, 1'000'000'000};
  for (int i = 0; i < 6; ++i) {
    cc.OnCnp(i * 10 * kUs, s);
    EXPECT_EQ(s.rate_bps, expected[i]) << "cut " << i + 1;
  }
}

TEST(Dcqcn, RateNeverExceedsLineRateAndRecoveryStops) {
  DcqcnParams p = DcqcnPaperPreset();
  p.byte_counter = 100'000;        // many byte-counter events too
  p.rate_hai_bps = 5'000'000'000;  // big steps so the cap is hit hard
  Dcqcn cc(p);
  const int64_t line = 40'000'000'000;
  CcState s = StartedState(cc, line);
  cc.OnCnp(0, s);
  cc.OnCnp(50 * kUs, s);  // RT = 20G, RC = 10G
  int events = 0;
  while (s.timer_at[kInc] != kTimeMax && events < 10'000) {
    const Time at = FireIncrease(cc, s);
    cc.OnSent(at, 100'000, s);
    events += 2;
    ASSERT_LE(s.rate_bps, cc.target_rate_bps());
    ASSERT_LE(cc.target_rate_bps(), line);
  }
  EXPECT_LT(events, 10'000);
  EXPECT_EQ(s.rate_bps, line);
  EXPECT_EQ(cc.target_rate_bps(), line);
  // Recovered: the byte counter stops too.
  const int bc = cc.byte_stage();
  cc.OnSent(0, 10'000'000, s);
  EXPECT_EQ(cc.byte_stage(), bc);
  EXPECT_EQ(s.rate_bps, line);
}

TEST(Dcqcn, CnpModeIgnoresEcnEcho) {
  Dcqcn cc(DcqcnPaperPreset());
  CcState s = StartedState(cc, 40'000'000'000);
  cc.OnAck(Ack(10 * kUs, true), s);
  EXPECT_EQ(s.rate_bps, 40'000'000'000);
  EXPECT_FALSE(cc.congested());
  for (Time t : s.timer_at) EXPECT_EQ(t, kTimeMax);
  cc.OnNack(11 * kUs, s);
  EXPECT_EQ(s.rate_bps, 40'000'000'000);
}

// HPCC-sim: ECN-echo ACKs are the signal, the cut waits for the periodic check
// at first + 1 ns + k * 4 us, and alpha starts at 1 without counting the first.
TEST(Dcqcn, AckModeReactsToEcnEchoAtTheCheckAndIgnoresCnp) {
  const double g = 0.00390625;
  const double keep = 1.0 - g;
  Dcqcn cc(DcqcnHpccSimPreset());
  const int64_t line = 100'000'000'000;
  CcState s = StartedState(cc, line);
  cc.OnCnp(1 * kUs, s);  // ignored in ACK mode
  cc.OnAck(Ack(2 * kUs, false), s);
  EXPECT_FALSE(cc.congested());
  for (Time t : s.timer_at) EXPECT_EQ(t, kTimeMax);

  cc.OnAck(Ack(5 * kUs, true), s);  // first signal: grid origin 5 us
  EXPECT_TRUE(cc.congested());
  EXPECT_EQ(s.rate_bps, line);  // no cut before the check
  EXPECT_EQ(s.timer_at[kDec], 9 * kUs + kNanosecond);
  // Slot (5, 6] holds only the first signal, which HPCC does not count.
  cc.OnAck(Ack(6 * kUs + 500 * kNanosecond, true), s);  // slot (6, 7]
  cc.OnCnp(7 * kUs + 500 * kNanosecond, s);             // ignored: slot (7, 8] is quiet
  cc.OnAck(Ack(8 * kUs + 500 * kNanosecond, true), s);  // slot (8, 9]
  EXPECT_EQ(s.timer_at[kDec], 9 * kUs + kNanosecond);

  cc.OnTimer(9 * kUs + kNanosecond, kDec, s);
  double a = 1.0;
  a = keep * a;      // 6 us
  a = keep * a + g;  // 7 us
  a = keep * a;      // 8 us
  a = keep * a + g;  // 9 us
  EXPECT_EQ(cc.AlphaAt(9 * kUs + kNanosecond), a);
  EXPECT_EQ(s.rate_bps, static_cast<int64_t>(1e11 * (1.0 - a / 2.0)));
  EXPECT_EQ(cc.target_rate_bps(), line);
  EXPECT_EQ(s.timer_at[kInc], 309 * kUs + kNanosecond);
  EXPECT_EQ(s.timer_at[kDec], kTimeMax);

  // A later signal waits for the next grid point: 5 us + 1 ns + 4 us * k.
  cc.OnAck(Ack(20 * kUs, true), s);
  EXPECT_EQ(s.timer_at[kDec], 21 * kUs + kNanosecond);
}

// HPCC-sim increase rule with F = 1 and CLAMP_TARGET_RATE 0; alpha is kept at 1
// (long alpha slots) so every cut halves.
TEST(Dcqcn, HpccSimStagesAndTargetClamp) {
  DcqcnParams p = DcqcnHpccSimPreset();
  p.alpha_interval = kSecond;
  Dcqcn cc(p);
  const int64_t line = 100'000'000'000;
  CcState s = StartedState(cc, line);
  cc.OnAck(Ack(0, true), s);
  cc.OnTimer(4 * kUs + kNanosecond, kDec, s);
  EXPECT_EQ(s.rate_bps, 50'000'000'000);
  EXPECT_EQ(cc.target_rate_bps(), line);

  // Second cut with no increase in between: the target is not clamped.
  cc.OnAck(Ack(5 * kUs, true), s);
  ASSERT_EQ(s.timer_at[kDec], 8 * kUs + kNanosecond);
  cc.OnTimer(8 * kUs + kNanosecond, kDec, s);
  EXPECT_EQ(s.rate_bps, 25'000'000'000);
  EXPECT_EQ(cc.target_rate_bps(), line);
  ASSERT_EQ(s.timer_at[kInc], 308 * kUs + kNanosecond);

  FireIncrease(cc, s);  // stage 0 < F: fast recovery
  EXPECT_EQ(s.rate_bps, 62'500'000'000);

  // After an increase the next cut clamps RT to RC.
  cc.OnAck(Ack(400 * kUs, true), s);
  ASSERT_EQ(s.timer_at[kDec], 400 * kUs + kNanosecond);
  cc.OnTimer(400 * kUs + kNanosecond, kDec, s);
  EXPECT_EQ(cc.target_rate_bps(), 62'500'000'000);
  EXPECT_EQ(s.rate_bps, 31'250'000'000);

  FireIncrease(cc, s);  // stage 0: fast recovery
  EXPECT_EQ(s.rate_bps, 46'875'000'000);
  FireIncrease(cc, s);  // stage 1 == F: additive
  EXPECT_EQ(cc.target_rate_bps(), 62'520'000'000);
  EXPECT_EQ(s.rate_bps, 54'697'500'000);
  FireIncrease(cc, s);  // stage 2 > F: hyper, + R_HAI
  EXPECT_EQ(cc.target_rate_bps(), 62'720'000'000);
  EXPECT_EQ(s.rate_bps, 58'708'750'000);
  FireIncrease(cc, s);  // stage 3: hyper, still + R_HAI (not 2 * R_HAI)
  EXPECT_EQ(cc.target_rate_bps(), 62'920'000'000);
  EXPECT_EQ(s.rate_bps, 60'814'375'000);
}

}  // namespace
}  // namespace test_dcqcn
}  // namespace rocesim
