// Tests of DCTCP (cc/dctcp.h) against hand-computed steps: the alpha EWMA over
// one window of data (Alizadeh et al., SIGCOMM'10 §3.1), at most one cut per
// window, the 1-MTU floor, congestion-avoidance increase of one MTU per
// cwnd of ACKed bytes, and the HPCC simulator's rate-based variant
// (rdma-hw.cc HandleAckDctcp: CWR gating, rate AI per window, rate floor).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "cc/dctcp.h"

namespace rocesim {
namespace test_dctcp {
namespace {

constexpr int64_t kLine = 100'000'000'000;  // 100 Gb/s
constexpr Time kRtt = 10 * kMicrosecond;    // BDP = 125000 bytes
constexpr int kMtu = 1000;
constexpr double kBdp = 125000;
constexpr double kG = 1.0 / 16;

CcState MakeState() {
  CcState s;
  s.line_rate_bps = kLine;
  s.base_rtt = kRtt;
  s.mtu_bytes = kMtu;
  return s;
}

AckInfo Ack(uint32_t acked_psn, uint32_t next_psn, uint32_t bytes, bool ecn) {
  AckInfo a;
  a.acked_psn = acked_psn;
  a.next_psn = next_psn;
  a.newly_acked_bytes = bytes;
  a.ecn_echo = ecn;
  return a;
}

struct Fixture {
  explicit Fixture(DctcpParams p = DctcpParams{}) : cc(p), s(MakeState()) { cc.OnStart(0, s); }
  void Ack(uint32_t acked, uint32_t next, uint32_t bytes, bool ecn) {
    cc.OnAck(test_dctcp::Ack(acked, next, bytes, ecn), s);
  }
  Dctcp cc;
  CcState s;
};

DctcpParams RateMode() {
  DctcpParams p;
  p.mode = DctcpMode::kRate;
  return p;
}

// ---------------------------------------------------------------- window mode

TEST(Dctcp, StartsAtBdpLineRateAlphaOne) {
  Fixture f;
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kBdp);
  EXPECT_EQ(f.s.window_bytes, 125000);
  EXPECT_EQ(f.s.rate_bps, kLine);
  EXPECT_DOUBLE_EQ(f.cc.alpha(), 1.0);
  EXPECT_FALSE(f.cc.in_cwr());
}

TEST(Dctcp, AlphaUpdatedOnceAfterFullWindowWithMarkedFraction) {
  Fixture f;
  f.Ack(1, 10, 1000, false);  // opens the window; it ends at PSN 10
  EXPECT_EQ(f.cc.window_end_psn(), 10u);
  f.Ack(5, 12, 4000, true);
  f.Ack(10, 14, 5000, false);  // acked_psn == window end: not past it yet
  EXPECT_DOUBLE_EQ(f.cc.alpha(), 1.0);
  EXPECT_EQ(f.cc.alpha_updates(), 0u);
  f.Ack(11, 15, 1000, false);  // covers PSN 10: the window closes
  // F = 4000 marked of 1000 + 4000 + 5000 + 1000 = 11000 bytes.
  const double a1 = (1 - kG) * 1.0 + kG * (4000.0 / 11000.0);
  EXPECT_DOUBLE_EQ(f.cc.alpha(), a1);
  EXPECT_EQ(f.cc.alpha_updates(), 1u);
  EXPECT_EQ(f.cc.window_end_psn(), 15u);
  // Next window fully marked: F = 1.
  f.Ack(16, 20, 5000, true);
  EXPECT_DOUBLE_EQ(f.cc.alpha(), (1 - kG) * a1 + kG * 1.0);
  EXPECT_EQ(f.cc.alpha_updates(), 2u);
}

TEST(Dctcp, AlphaDecaysGeometricallyOverUnmarkedWindows) {
  Fixture f;
  f.Ack(1, 2, 1000, false);  // window ends at 2
  for (int n = 1; n <= 12; n++) {
    // Each ACK covers the previous window's last PSN and ends a window.
    f.Ack(2 * n + 1, 2 * n + 2, 1000, false);
    EXPECT_DOUBLE_EQ(f.cc.alpha(), std::pow(1 - kG, n)) << "after " << n << " windows";
  }
}

TEST(Dctcp, CutsAtMostOncePerWindowOfData) {
  Fixture f;
  f.Ack(1, 125, 1000, true);  // alpha = 1: halve
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kBdp / 2);
  EXPECT_TRUE(f.cc.in_cwr());
  EXPECT_EQ(f.cc.cwr_end_psn(), 125u);
  f.Ack(2, 125, 1000, true);
  f.Ack(125, 130, 1000, true);  // acknowledges only data sent before the cut
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kBdp / 2);
  EXPECT_EQ(f.cc.cuts(), 1u);
  EXPECT_EQ(f.s.window_bytes, 62500);
  // PSN 125 was sent after the cut: CWR ends and this echo cuts again (alpha
  // stays 1: the window that just closed was fully marked).
  f.Ack(126, 130, 1000, true);
  EXPECT_DOUBLE_EQ(f.cc.alpha(), 1.0);
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kBdp / 4);
  EXPECT_EQ(f.cc.cuts(), 2u);
  EXPECT_EQ(f.cc.cwr_end_psn(), 130u);
}

TEST(Dctcp, CutUsesCurrentAlpha) {
  Fixture f;
  f.Ack(1, 2, 1000, false);
  for (int n = 1; n <= 4; n++) f.Ack(2 * n + 1, 2 * n + 2, 1000, false);
  const double alpha = std::pow(1 - kG, 4);
  ASSERT_DOUBLE_EQ(f.cc.alpha(), alpha);
  // Marked ACK that does not close a window: cwnd *= 1 - alpha / 2. Four
  // unmarked windows of 1000 B each grew nothing (125000 B needed per MTU).
  f.Ack(10, 12, 1000, true);
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kBdp * (1 - alpha / 2));
  EXPECT_EQ(f.s.window_bytes, static_cast<int64_t>(std::floor(kBdp * (1 - alpha / 2))));
}

TEST(Dctcp, WindowNeverBelowOneMtu) {
  Fixture f;
  for (uint32_t psn = 1; psn <= 40; psn++) {
    // next_psn == acked_psn: every ACK covers all data sent before the last
    // cut, so each echo cuts.
    f.Ack(psn, psn, 1000, true);
    EXPECT_GE(f.cc.cwnd(), kMtu);
    EXPECT_GE(f.s.window_bytes, kMtu);
  }
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kMtu);
  EXPECT_EQ(f.s.window_bytes, kMtu);
  EXPECT_EQ(f.cc.cuts(), 40u);
}

TEST(Dctcp, AdditiveIncreaseOfOneMtuPerWindowOfAckedBytes) {
  Fixture f;
  uint32_t psn = 0;
  auto acks = [&](int n) {
    for (int i = 0; i < n; i++) {
      psn++;
      f.Ack(psn, psn + 200, 1000, false);
    }
  };
  acks(124);
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kBdp);  // 124000 < cwnd bytes acked
  acks(1);
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kBdp + kMtu);  // one cwnd of bytes: +1 MTU
  EXPECT_EQ(f.s.window_bytes, 126000);
  acks(125);
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kBdp + kMtu);  // the next +1 needs 126000 B
  acks(1);
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kBdp + 2 * kMtu);
  EXPECT_EQ(f.s.rate_bps, kLine);  // unpaced
}

TEST(Dctcp, NoIncreaseDuringCwr) {
  Fixture f;
  f.Ack(1, 1000, 1000, true);
  ASSERT_DOUBLE_EQ(f.cc.cwnd(), kBdp / 2);
  for (uint32_t psn = 2; psn <= 900; psn++) f.Ack(psn, 1000, 1000, false);
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kBdp / 2);  // 899000 B acked inside CWR
  EXPECT_TRUE(f.cc.in_cwr());
}

TEST(Dctcp, MaxWindowCapsGrowth) {
  DctcpParams p;
  p.max_window_bytes = 125500;
  Fixture f(p);
  for (uint32_t psn = 1; psn <= 125; psn++) f.Ack(psn, psn + 200, 1000, false);
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), 125500);
}

TEST(Dctcp, PacedWindowModeRateIsCwndOverBaseRtt) {
  DctcpParams p;
  p.pace = true;
  Fixture f(p);
  EXPECT_EQ(f.s.rate_bps, kLine);
  f.Ack(1, 125, 1000, true);  // cwnd 62500 B over 10 us
  EXPECT_EQ(f.s.rate_bps, 50'000'000'000);
  EXPECT_EQ(f.s.window_bytes, 62500);
}

TEST(Dctcp, NackAndCnpAreIgnored) {
  Fixture f;
  f.cc.OnNack(5, f.s);
  f.cc.OnCnp(6, f.s);
  EXPECT_DOUBLE_EQ(f.cc.cwnd(), kBdp);
  EXPECT_EQ(f.s.rate_bps, kLine);
}

// ------------------------------------------------------------------ rate mode

TEST(DctcpRate, StartsAtLineRateWithBdpWindow) {
  Fixture f(RateMode());
  EXPECT_EQ(f.s.rate_bps, kLine);
  EXPECT_EQ(f.s.window_bytes, 125000);
  EXPECT_DOUBLE_EQ(f.cc.rate_ai(), 1e9);
}

TEST(DctcpRate, CwrGatesCutsAndIncrease) {
  Fixture f(RateMode());
  f.Ack(1, 10, 1000, false);  // opens the window (ends at 10)
  f.Ack(2, 10, 1000, true);   // cut: 100G * (1 - 1/2)
  EXPECT_EQ(f.s.rate_bps, 50'000'000'000);
  EXPECT_EQ(f.s.window_bytes, 62500);  // rate * T / 8
  EXPECT_TRUE(f.cc.in_cwr());
  f.Ack(3, 10, 1000, true);  // in CWR: no second cut
  EXPECT_EQ(f.s.rate_bps, 50'000'000'000);
  // Covers PSN 10 (sent after the cut): window closes (F = 2000/4000), CWR
  // ends, no echo -> one rate AI step.
  f.Ack(11, 20, 1000, false);
  EXPECT_DOUBLE_EQ(f.cc.alpha(), (1 - kG) + kG * 0.5);
  EXPECT_FALSE(f.cc.in_cwr());
  EXPECT_EQ(f.s.rate_bps, 51'000'000'000);
  f.Ack(12, 20, 1000, false);  // same window: no AI
  EXPECT_EQ(f.s.rate_bps, 51'000'000'000);
  f.Ack(21, 30, 1000, false);  // next window closes: +1G
  EXPECT_EQ(f.s.rate_bps, 52'000'000'000);
  // A cut whose CWR outlasts the next window close: that close adds nothing.
  const double alpha = f.cc.alpha();
  f.Ack(22, 40, 1000, true);
  const double cut = 52e9 * (1 - alpha / 2);
  EXPECT_EQ(f.s.rate_bps, std::llround(cut));
  f.Ack(31, 45, 1000, false);  // closes the window (31 > 30), still in CWR (31 <= 40)
  EXPECT_TRUE(f.cc.in_cwr());
  EXPECT_EQ(f.cc.alpha_updates(), 3u);
  EXPECT_EQ(f.s.rate_bps, std::llround(cut));
  f.Ack(41, 50, 1000, false);  // CWR ends, but no window closed (end is 45)
  EXPECT_FALSE(f.cc.in_cwr());
  EXPECT_EQ(f.s.rate_bps, std::llround(cut));
  f.Ack(46, 55, 1000, false);  // window closes outside CWR: +1G
  EXPECT_EQ(f.s.rate_bps, std::llround(cut + 1e9));
}

TEST(DctcpRate, IncreaseCappedAtLineRate) {
  Fixture f(RateMode());
  f.Ack(1, 2, 1000, false);
  f.Ack(2, 2, 1000, true);  // 50G, CWR until an ACK passes PSN 2
  ASSERT_EQ(f.s.rate_bps, 50'000'000'000);
  uint32_t psn = 2;
  for (int i = 0; i < 60; i++) {
    psn += 2;
    f.Ack(psn, psn + 1, 1000, false);  // each closes a window
  }
  EXPECT_EQ(f.s.rate_bps, kLine);
  EXPECT_EQ(f.s.window_bytes, 125000);
}

TEST(DctcpRate, RateFloor) {
  Fixture f(RateMode());
  for (uint32_t psn = 1; psn <= 20; psn++) f.Ack(psn, psn, 1000, true);
  EXPECT_EQ(f.s.rate_bps, 1'000'000'000);  // MIN_RATE 1000Mb/s
  EXPECT_EQ(f.s.window_bytes, 1250);
}

TEST(DctcpRate, ZeroAiMeansOneMtuPerBaseRtt) {
  DctcpParams p = RateMode();
  p.rate_ai_bps = 0;
  Fixture f(p);
  EXPECT_DOUBLE_EQ(f.cc.rate_ai(), 800e6);  // 1000 B * 8 / 10 us
}

}  // namespace
}  // namespace test_dctcp
}  // namespace rocesim
