// Tests of HPCC (cc/hpcc.h) against hand-computed steps of Algorithm 1 (Li et
// al., SIGCOMM'19): MeasureInflight (u from tx rate and the min of two queue
// samples, max-u hop, τ = min(Δts, T), U EWMA) and ComputeWind (MD toward η,
// AI by W_AI with incStage up to maxStage, Wc once per RTT), R = W / T.
//
// Setting: 100 Gb/s, T = 10 us -> BDP = 125000 B; R_AI = 40 Mb/s -> W_AI =
// 40e6 * 10e-6 / 8 = 50 B. A hop moving 125000 B in 10 us runs at B (txRate
// term 1); a queue of 12500 B is 0.1 of B*T.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "cc/hpcc.h"

namespace rocesim {
namespace test_hpcc {
namespace {

constexpr int64_t kLine = 100'000'000'000;
constexpr Time kT = 10 * kMicrosecond;
constexpr double kBdp = 125000;
constexpr double kWai = 50;
constexpr double kEta = 0.95;

CcState MakeState() {
  CcState s;
  s.line_rate_bps = kLine;
  s.base_rtt = kT;
  s.mtu_bytes = 1000;
  return s;
}

HpccParams Params() {
  HpccParams p;
  p.rate_ai_bps = 40'000'000;
  return p;
}

IntHop Hop(Time ts, uint64_t tx, uint32_t qlen, int64_t rate = kLine) {
  return IntHop{ts, tx, qlen, rate};
}

struct Fixture {
  explicit Fixture(HpccParams p = Params()) : cc(p), s(MakeState()) { cc.OnStart(0, s); }
  void Ack(uint32_t acked, uint32_t next, const std::vector<IntHop>& hops) {
    AckInfo a;
    a.acked_psn = acked;
    a.next_psn = next;
    a.newly_acked_bytes = 1000;
    a.hops = hops.data();
    a.num_hops = static_cast<int>(hops.size());
    cc.OnAck(a, s);
  }
  // One hop; every call passes lastUpdateSeq (a full update) unless told.
  void Ack1(uint32_t acked, uint32_t next, Time ts, uint64_t tx, uint32_t qlen) {
    Ack(acked, next, {Hop(ts, tx, qlen)});
  }
  Hpcc cc;
  CcState s;
};

TEST(Hpcc, StartsAtBdpAndLineRate) {
  Fixture f;
  EXPECT_DOUBLE_EQ(f.cc.window(), kBdp);
  EXPECT_DOUBLE_EQ(f.cc.reference_window(), kBdp);
  EXPECT_DOUBLE_EQ(f.cc.utilization(), 1.0);
  EXPECT_DOUBLE_EQ(f.cc.w_ai(), kWai);
  EXPECT_EQ(f.s.rate_bps, kLine);
  EXPECT_EQ(f.s.window_bytes, 125000);
}

TEST(Hpcc, DefaultAdditiveIncreaseIs40MbpsAt100G) {
  Hpcc cc;  // default params: R_AI = 4e-4 * line rate (run.py: 10 Mb/s per 25G)
  CcState s = MakeState();
  cc.OnStart(0, s);
  EXPECT_DOUBLE_EQ(cc.w_ai(), 50.0);
}

TEST(Hpcc, FirstAckOnlyRecordsInt) {
  Fixture f;
  f.Ack1(1, 100, 1 * kMicrosecond, 0, 50000);
  EXPECT_DOUBLE_EQ(f.cc.window(), kBdp);
  EXPECT_DOUBLE_EQ(f.cc.utilization(), 1.0);
  EXPECT_EQ(f.cc.last_hop(), -1);
  EXPECT_EQ(f.cc.last_update_psn(), 100u);
}

TEST(Hpcc, FullUtilizationShrinksWindowByEta) {
  Fixture f;
  f.Ack1(1, 100, 0, 0, 0);
  // txRate = 125000 B / 10 us = B, qlen 0: u = 1; τ = T so U = u = 1.
  f.Ack1(101, 200, kT, 125000, 0);
  EXPECT_DOUBLE_EQ(f.cc.utilization(), 1.0);
  EXPECT_DOUBLE_EQ(f.cc.window(), kBdp * kEta + kWai);  // 118800
  EXPECT_DOUBLE_EQ(f.cc.reference_window(), kBdp * kEta + kWai);
  EXPECT_EQ(f.cc.inc_stage(), 0);
  EXPECT_EQ(f.cc.last_update_psn(), 200u);
  EXPECT_EQ(f.s.window_bytes, 118800);
  EXPECT_EQ(f.s.rate_bps, 95'040'000'000);  // 118800 B * 8 / 10 us
}

TEST(Hpcc, QueueTermRaisesUtilizationUsingMinOfTwoSamples) {
  Fixture f;
  f.Ack1(1, 100, 0, 0, 5000);
  // Queue now 12500 B, before 5000 B: the min (5000 B = 0.04 BDP) counts.
  f.Ack1(101, 200, kT, 125000, 12500);
  const double u = 1.04;
  EXPECT_NEAR(f.cc.utilization(), u, 1e-12);
  EXPECT_NEAR(f.cc.window(), kBdp * kEta / u + kWai, 1e-6);
  EXPECT_LT(f.cc.window(), kBdp * kEta + kWai);
}

// Brings Wc down from the BDP with one MD step at u = 1.9 so that AI is
// visible below the line-rate cap. Returns the next PSN to acknowledge.
uint32_t DriveDown(Fixture& f, Time& ts, uint64_t& tx) {
  f.Ack1(1, 100, ts, tx, 112500);
  ts += kT;
  tx += 125000;
  f.Ack1(101, 200, ts, tx, 112500);  // u = 0.9 + 1 = 1.9
  return 201;
}

TEST(Hpcc, BelowEtaAdditiveIncreaseThenMultiplicativeAfterMaxStage) {
  Fixture f;
  Time ts = 0;
  uint64_t tx = 0;
  uint32_t psn = DriveDown(f, ts, tx);
  const double w0 = kBdp * kEta / 1.9 + kWai;  // 62550
  ASSERT_NEAR(f.cc.reference_window(), w0, 1e-6);
  double wc = f.cc.reference_window();
  // U = 0.5 < η (half the line rate over τ = T): five rounds of AI.
  for (int stage = 1; stage <= 5; stage++) {
    ts += kT;
    tx += 62500;
    f.Ack1(psn, psn + 99, ts, tx, 0);
    psn += 100;
    ASSERT_DOUBLE_EQ(f.cc.utilization(), 0.5);
    EXPECT_DOUBLE_EQ(f.cc.window(), wc + kWai) << "stage " << stage;
    wc += kWai;
    EXPECT_DOUBLE_EQ(f.cc.reference_window(), wc);
    EXPECT_EQ(f.cc.inc_stage(), stage);
  }
  // incStage == maxStage: the multiplicative branch applies although U < η.
  ts += kT;
  tx += 62500;
  f.Ack1(psn, psn + 99, ts, tx, 0);
  EXPECT_DOUBLE_EQ(f.cc.window(), wc * kEta / 0.5 + kWai);
  EXPECT_DOUBLE_EQ(f.cc.reference_window(), wc * kEta / 0.5 + kWai);
  EXPECT_EQ(f.cc.inc_stage(), 0);
}

TEST(Hpcc, ReferenceWindowUpdatedOnlyOncePerRtt) {
  Fixture f;
  f.Ack1(1, 100, 0, 0, 0);
  f.Ack1(101, 200, kT, 125000, 0);  // Wc = 118800, lastUpdateSeq = 200
  const double wc = kBdp * kEta + kWai;
  ASSERT_DOUBLE_EQ(f.cc.reference_window(), wc);
  // ACKs up to PSN 200 belong to the same RTT: W = Wc + W_AI each time (U =
  // 0.5 < η), never compounding, and Wc and incStage stay.
  Time ts = kT;
  uint64_t tx = 125000;
  for (uint32_t acked = 150; acked <= 200; acked += 50) {
    ts += kT;
    tx += 62500;
    f.Ack1(acked, 300, ts, tx, 0);
    EXPECT_DOUBLE_EQ(f.cc.window(), wc + kWai);
    EXPECT_DOUBLE_EQ(f.cc.reference_window(), wc);
    EXPECT_EQ(f.cc.inc_stage(), 0);
    EXPECT_EQ(f.cc.last_update_psn(), 200u);
  }
  // PSN 200 acknowledged (acked_psn 201 > 200): full update.
  ts += kT;
  tx += 62500;
  f.Ack1(201, 300, ts, tx, 0);
  EXPECT_DOUBLE_EQ(f.cc.reference_window(), wc + kWai);
  EXPECT_EQ(f.cc.inc_stage(), 1);
  EXPECT_EQ(f.cc.last_update_psn(), 300u);
}

TEST(Hpcc, UtilizationEwmaWeighsTauOverT) {
  Fixture f;
  f.Ack1(1, 100, 0, 0, 0);
  // τ = 2.5 us = T/4 at 50 Gb/s (15625 B): U = 0.75 * 1 + 0.25 * 0.5.
  f.Ack1(2, 100, 2500 * kNanosecond, 15625, 0);
  EXPECT_DOUBLE_EQ(f.cc.utilization(), 0.875);
  EXPECT_EQ(f.cc.last_tau(), 2500 * kNanosecond);
  // τ = 5 us = T/2 at line rate: U = 0.5 * 0.875 + 0.5 * 1.
  f.Ack1(3, 100, 7500 * kNanosecond, 15625 + 62500, 0);
  EXPECT_DOUBLE_EQ(f.cc.utilization(), 0.9375);
  // τ = 20 us > T: clamped to T, U = u (75000 B in 20 us = 30 Gb/s).
  f.Ack1(4, 100, 27500 * kNanosecond, 15625 + 62500 + 75000, 0);
  EXPECT_DOUBLE_EQ(f.cc.utilization(), 0.3);
  EXPECT_EQ(f.cc.last_tau(), 20 * kMicrosecond);
}

TEST(Hpcc, RateIsWindowOverBaseRtt) {
  Fixture f;
  f.Ack1(1, 100, 0, 0, 0);
  f.Ack1(101, 200, kT, 125000, 12500);
  f.Ack1(201, 300, 2 * kT, 250000, 40000);
  const double w = f.cc.window();
  EXPECT_EQ(f.s.rate_bps, std::llround(w * 8e12 / 1e7));
  EXPECT_EQ(f.s.window_bytes, std::llround(w));
  EXPECT_DOUBLE_EQ(f.cc.rate(), w * 8e12 / static_cast<double>(kT));
}

TEST(Hpcc, WindowClampedToMinRate) {
  Fixture f;
  f.Ack1(1, 100, 0, 0, 4'000'000);
  f.Ack1(101, 200, kT, 125000, 4'000'000);  // u = 33: W would be 3648 B
  f.Ack1(201, 300, 2 * kT, 250000, 4'000'000);
  EXPECT_DOUBLE_EQ(f.cc.window(), 1250);  // 1 Gb/s * 10 us / 8
  EXPECT_EQ(f.s.rate_bps, 1'000'000'000);
  EXPECT_EQ(f.s.window_bytes, 1250);
}

TEST(Hpcc, MaxUtilizationHopIsTheBottleneck) {
  Fixture f;
  f.Ack(1, 100, {Hop(0, 0, 0), Hop(0, 0, 12500), Hop(0, 0, 0)});
  // hop 0: 50000 B in 10 us -> u = 0.4, τ = 10 us
  // hop 1: 50000 B in 4 us = 100G, queue min 12500 B -> u = 1.1, τ = 4 us
  // hop 2: 80000 B in 8 us = 80G -> u = 0.8, τ = 8 us
  f.Ack(101, 200,
        {Hop(10 * kMicrosecond, 50000, 0), Hop(4 * kMicrosecond, 50000, 20000),
         Hop(8 * kMicrosecond, 80000, 0)});
  EXPECT_EQ(f.cc.last_hop(), 1);
  EXPECT_NEAR(f.cc.last_hop_u(), 1.1, 1e-12);
  EXPECT_EQ(f.cc.last_tau(), 4 * kMicrosecond);
  // U = (1 - 0.4) * 1 + 0.4 * 1.1: hop 1's u with hop 1's τ.
  EXPECT_NEAR(f.cc.utilization(), 1.04, 1e-12);
  EXPECT_NEAR(f.cc.window(), kBdp * kEta / 1.04 + kWai, 1e-6);
}

TEST(Hpcc, HopsWithoutElapsedTimeAreSkipped) {
  Fixture f;
  f.Ack(1, 100, {Hop(kT, 0, 0), Hop(kT, 0, 0)});
  // Hop 0 repeats its timestamp (Δts = 0: its huge Δtx would be an infinite
  // rate); hop 1 is a normal sample at half rate.
  f.Ack(101, 200, {Hop(kT, 1'000'000, 0), Hop(2 * kT, 62500, 0)});
  EXPECT_EQ(f.cc.last_hop(), 1);
  EXPECT_DOUBLE_EQ(f.cc.utilization(), 0.5);
  // Only Δts = 0 hops: nothing measured, W unchanged; the record is replaced.
  const double w = f.cc.window();
  const double u = f.cc.utilization();
  f.Ack(150, 200, {Hop(kT, 2'000'000, 0), Hop(2 * kT, 62500, 0)});
  EXPECT_DOUBLE_EQ(f.cc.window(), w);
  EXPECT_DOUBLE_EQ(f.cc.utilization(), u);
}

TEST(Hpcc, AckWithoutIntChangesNothing) {
  Fixture f;
  AckInfo a;
  a.acked_psn = 5;
  a.next_psn = 10;
  f.cc.OnAck(a, f.s);
  EXPECT_EQ(f.cc.last_update_psn(), 0u);
  EXPECT_DOUBLE_EQ(f.cc.window(), kBdp);
  EXPECT_EQ(f.s.rate_bps, kLine);
}

}  // namespace
}  // namespace test_hpcc
}  // namespace rocesim
