// Tests of seed 002 §3.4 RCC window arithmetic (rcm/rcm_rcc_window.h):
//   W = W_c + W_nc (eq. 3); W_c <- W_c (1 - F_b G_d), G_d = 1/(2*63) (eq. 5);
//   W_nc = W - W_c (eq. 6); a harmful flow stops once W_c is used until the whole
//   W has been sent, then a new period starts; W and the initial W_c measured
//   from detection until the harmful backlog has been sent; one cut per period;
//   quit on congestion clearing; work-conserving (no deadlock).
#include <gtest/gtest.h>

#include "rcm/rcm_port_state.h"
#include "rcm/rcm_rcc_window.h"

namespace rocesim {
namespace test_rcm_rcc_window {
namespace {

RcmRccParams Measured() {
  RcmRccParams p;
  p.measure_window = true;
  p.min_window_bytes = 16'384;
  p.max_window_bytes = 1 << 20;
  p.min_wc_bytes = 1;
  return p;
}

RcmRccParams Fixed(int64_t w) {
  RcmRccParams p = Measured();
  p.measure_window = false;
  p.fixed_window_bytes = w;
  return p;
}

// Brings a window to W = 100 KB, W_c = 25 KB: measurement of 50 KB harmful and
// 50 KB non-harmful bytes, then eq. 5 with F_b = F_bmax halves W_c 50 -> 25 KB.
RcmRccWindow MeasuredBriefExample() {
  RcmRccWindow w(Measured());
  w.OnCongestion(63, 50'000);
  for (int i = 0; i < 50; ++i) {
    w.OnSent(1'000, false);
    w.OnSent(1'000, true);
  }
  return w;
}

TEST(RcmRccWindow, CutWcEq5) {
  EXPECT_EQ(RcmCutWc(100'000, 63), 50'000);  // F_bmax: at most -50%
  EXPECT_EQ(RcmCutWc(50'000, 63), 25'000);
  EXPECT_EQ(RcmCutWc(25'000, 21), 20'833);  // 25000 * 105/126 = 20833.3
  EXPECT_EQ(RcmCutWc(50'000, 30), 38'095);  // 50000 * 96/126 = 38095.2
  EXPECT_EQ(RcmCutWc(40'000, 0), 40'000);
  EXPECT_EQ(RcmCutWc(100'000, 200), 50'000);  // degree capped at 63
}

TEST(RcmRccWindow, InactiveAllowsEverythingAndIgnoresTraffic) {
  RcmRccWindow w;
  EXPECT_EQ(w.phase(), RccPhase::kInactive);
  EXPECT_TRUE(w.MayHarmfulSend());
  w.OnSent(5'000, true);
  EXPECT_EQ(w.sent_c(), 0);
  EXPECT_EQ(w.params().min_wc_bytes, 1);
  EXPECT_TRUE(w.params().measure_window);
}

TEST(RcmRccWindow, MeasuresWThenBlocksHarmfulAfterWcUntilW) {
  RcmRccWindow w(Measured());
  w.OnCongestion(63, 50'000);
  EXPECT_EQ(w.phase(), RccPhase::kMeasuring);
  for (int i = 0; i < 49; ++i) {
    w.OnSent(1'000, false);
    w.OnSent(1'000, true);
    EXPECT_TRUE(w.MayHarmfulSend());  // nothing held back while measuring
  }
  w.OnSent(1'000, false);
  EXPECT_EQ(w.phase(), RccPhase::kMeasuring);  // 49 KB harmful < 50 KB backlog
  w.OnSent(1'000, true);                       // the backlog has been sent
  ASSERT_EQ(w.phase(), RccPhase::kActive);
  EXPECT_EQ(w.w(), 100'000);
  EXPECT_EQ(w.wc(), 25'000);
  EXPECT_EQ(w.wnc(), 75'000);
  EXPECT_EQ(w.periods(), 1u);
  EXPECT_EQ(w.sent_c() + w.sent_nc(), 0);

  // Period 1: the harmful flow sends 25 KB, then is blocked.
  for (int i = 0; i < 25; ++i) {
    ASSERT_TRUE(w.MayHarmfulSend()) << i;
    w.OnSent(1'000, true);
  }
  EXPECT_FALSE(w.MayHarmfulSend());
  EXPECT_EQ(w.sent_c(), 25'000);
  // ... and stays blocked while non-harmful traffic fills the rest of W.
  for (int i = 0; i < 74; ++i) {
    w.OnSent(1'000, false);
    EXPECT_FALSE(w.MayHarmfulSend()) << i;
  }
  EXPECT_EQ(w.sent_nc(), 74'000);
  w.OnSent(1'000, false);  // 100 KB sent: period 2 starts
  EXPECT_TRUE(w.MayHarmfulSend());
  EXPECT_EQ(w.periods(), 2u);
  EXPECT_EQ(w.sent_c(), 0);
  EXPECT_EQ(w.sent_nc(), 0);
  EXPECT_EQ(w.wc(), 25'000);  // no new signal: no new cut

  // Period 2, harmful first again: the packet that crosses W_c still goes.
  w.OnSent(24'500, true);
  EXPECT_TRUE(w.MayHarmfulSend());
  w.OnSent(1'000, true);  // 25,500 >= 25,000
  EXPECT_FALSE(w.MayHarmfulSend());
}

TEST(RcmRccWindow, RoundRobinArbiterGivesHarmfulWcOverW) {
  // Both classes always backlogged, 1 KB packets, a round-robin arbiter that
  // skips a harmful head the window refuses: 25 harmful + 75 non-harmful per
  // 100 KB period, i.e. the harmful share is W_c / W = 25%.
  RcmRccWindow w = MeasuredBriefExample();
  ASSERT_EQ(w.wc(), 25'000);
  int harmful = 0;
  bool turn_harmful = true;
  for (int i = 0; i < 1'000; ++i) {
    const bool send_harmful = turn_harmful && w.AllowHarmful(/*non_harmful_eligible=*/true);
    w.OnSent(1'000, send_harmful);
    harmful += send_harmful;
    turn_harmful = !turn_harmful;
  }
  EXPECT_EQ(harmful, 250);
  EXPECT_EQ(w.periods(), 11u);  // the measured start plus 10 full periods
}

TEST(RcmRccWindow, SignalsFoldIntoOneCutAtNextPeriod) {
  RcmRccWindow w(Fixed(100'000));
  w.OnCongestion(63, 0);  // fixed W = 100 KB, W_c = W before eq. 5 -> 50 KB
  ASSERT_EQ(w.phase(), RccPhase::kActive);
  EXPECT_EQ(w.w(), 100'000);
  EXPECT_EQ(w.wc(), 50'000);
  EXPECT_EQ(w.wnc(), 50'000);
  w.OnCongestion(10, 0);
  w.OnCongestion(30, 0);
  EXPECT_EQ(w.pending_fb(), 30);
  EXPECT_EQ(w.wc(), 50'000);  // not applied mid-period
  w.OnSent(100'000, false);
  EXPECT_EQ(w.wc(), 38'095);  // the largest, 30: 50000 * 96/126
  EXPECT_EQ(w.wnc(), 100'000 - 38'095);
  w.OnSent(100'000, false);
  EXPECT_EQ(w.wc(), 38'095);  // a period without signal: unchanged
  w.OnCongestion(63, 0);
  w.OnSent(100'000, true);
  EXPECT_EQ(w.wc(), 19'047);  // 38095 / 2
  EXPECT_EQ(w.w(), 100'000);  // W kept while active
}

TEST(RcmRccWindow, EmptyBacklogStartsAtMinWindowAllHarmful) {
  RcmRccWindow w(Measured());
  w.OnCongestion(63, 0);
  ASSERT_EQ(w.phase(), RccPhase::kActive);
  EXPECT_EQ(w.w(), 16'384);
  EXPECT_EQ(w.wc(), 8'192);
}

TEST(RcmRccWindow, ShortMeasurementRaisedToMinWindowShortfallToWc) {
  RcmRccWindow w(Measured());
  w.OnCongestion(63, 2'000);
  w.OnSent(1'000, true);
  w.OnSent(1'000, false);
  w.OnSent(1'000, true);  // harmful 2,000 >= backlog: measured 3,000 B
  ASSERT_EQ(w.phase(), RccPhase::kActive);
  EXPECT_EQ(w.w(), 16'384);
  // W_c0 = 2,000 + (16,384 - 3,000) = 15,384; halved = 7,692.
  EXPECT_EQ(w.wc(), 7'692);
}

TEST(RcmRccWindow, MeasurementCappedAtMaxWindow) {
  RcmRccParams p = Measured();
  p.max_window_bytes = 200'000;
  RcmRccWindow w(p);
  w.OnCongestion(63, 10'000'000);  // a backlog that would take too long
  for (int i = 0; i < 50; ++i) {
    for (int j = 0; j < 3; ++j) w.OnSent(1'000, false);
    if (i < 49) {
      EXPECT_EQ(w.phase(), RccPhase::kMeasuring);
    }
    w.OnSent(1'000, true);
  }
  ASSERT_EQ(w.phase(), RccPhase::kActive);
  EXPECT_EQ(w.w(), 200'000);
  EXPECT_EQ(w.wc(), 25'000);  // W_c0 = 50,000 harmful bytes, halved
}

TEST(RcmRccWindow, LargestDegreeSignalledWhileMeasuringIsApplied) {
  RcmRccWindow w(Measured());
  w.OnCongestion(10, 2'000);
  w.OnCongestion(63, 999'999);  // the backlog of a later signal is not read
  EXPECT_EQ(w.phase(), RccPhase::kMeasuring);
  w.OnSent(2'000, true);
  ASSERT_EQ(w.phase(), RccPhase::kActive);
  // W = 16,384 (raised), W_c0 = 2,000 + 14,384 = W; cut by 63 -> 8,192 (by 10
  // it would be 15,083).
  EXPECT_EQ(w.wc(), 8'192);
}

TEST(RcmRccWindow, NoDeadlockWhenOnlyHarmfulTrafficWaits) {
  // Only harmful packets queued for the port. The window alone would refuse
  // them once W_c is used up; the arbiter asks AllowHarmful(false) and sends
  // them anyway, and those bytes still complete the period.
  RcmRccWindow w(Fixed(100'000));
  w.OnCongestion(63, 0);  // W_c = 50 KB
  int refused_by_window = 0;
  for (int i = 0; i < 300; ++i) {
    refused_by_window += !w.MayHarmfulSend();
    EXPECT_FALSE(!w.MayHarmfulSend() && w.AllowHarmful(true));  // non-harmful first
    ASSERT_TRUE(w.AllowHarmful(/*non_harmful_eligible=*/false)) << i;
    w.OnSent(1'000, true);
  }
  EXPECT_EQ(refused_by_window, 150);  // the last 50 KB of each of 3 periods
  EXPECT_EQ(w.periods(), 4u);         // 300 KB = 3 whole periods, the 4th begun
  EXPECT_TRUE(w.MayHarmfulSend());
}

TEST(RcmRccWindow, WcFloorLetsOneHarmfulPacketPerPeriod) {
  RcmRccWindow w(Fixed(10'000));
  w.OnCongestion(63, 0);  // W_c = 5,000
  for (int period = 0; period < 40; ++period) {
    w.OnCongestion(63, 0);  // congestion persists: halve again next period
    ASSERT_TRUE(w.MayHarmfulSend()) << period;
    w.OnSent(1'000, true);
    w.OnSent(9'000, false);  // end of period
  }
  EXPECT_EQ(w.wc(), 1);  // 5000, 2500, ..., 2, 1, then the floor
  EXPECT_TRUE(w.MayHarmfulSend());
}

TEST(RcmRccWindow, QuitsWhenCongestionClears) {
  RcmPortParams pp;
  pp.remote_expiry = 100 * kMicrosecond;
  RcmPortState port(pp);
  RcmRccWindow w(Fixed(100'000));
  // Edge point: a notification arrives at t = 0 and starts the window.
  port.OnNotification(0, 63);
  w.OnCongestion(63, 0);
  w.OnSent(60'000, true);
  EXPECT_FALSE(w.MayHarmfulSend());
  // The caller's quit rule: quit once the port's role is none.
  auto tick = [&](Time now) {
    if (w.phase() != RccPhase::kInactive && port.Role(now) == RcmRole::kNone) w.Quit();
  };
  tick(50 * kMicrosecond);
  EXPECT_TRUE(w.active());
  tick(100 * kMicrosecond);  // remote flag expired, no local congestion
  EXPECT_EQ(w.phase(), RccPhase::kInactive);
  EXPECT_TRUE(w.MayHarmfulSend());
  w.OnSent(60'000, true);
  EXPECT_EQ(w.sent_c(), 0);
  // A fresh signal starts from scratch (new measurement of the window).
  RcmRccWindow m(Measured());
  m.OnCongestion(63, 1'000);
  m.Quit();
  EXPECT_EQ(m.phase(), RccPhase::kInactive);
  m.OnCongestion(20, 0);
  EXPECT_EQ(m.w(), 16'384);
  EXPECT_EQ(m.wc(), RcmCutWc(16'384, 20));  // the old degree 63 is gone
}

}  // namespace
}  // namespace test_rcm_rcc_window
}  // namespace rocesim
