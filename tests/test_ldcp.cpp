// Tests of LDCP (cc/ldcp.h; seed 001, draft-dai-tsvwg-pfc-free-congestion-
// control-01) against hand-computed steps:
//  - zero-RTT fast start (§2.3, §3.1): IW = BDP at line rate, first-RTT
//    packets ECN-incapable, the IW-th (or a short message's last) packet
//    ECN-capable, the two exits (loss -> cw = packets acknowledged in order;
//    all of IW acknowledged -> cw = BDP);
//  - stable stage PAWA (§2.2): eq. (1) per ACK, eq. (2) with n packets per
//    ACK, the cw >= 1 floor, windows below one packet (gamma, eta, the RTT/cw
//    timer as a rate);
//  - the §3.2 event-API variant (AI per RTT probe, MD per CNP, window -> rate);
//  - parameters, factory and scenario reader.
// Numbers: 100 Gb/s, base RTT 10 us, 1000 B MTU -> BDP = 125000 B = 125 packets.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "cc/cc_factory.h"
#include "cc/ldcp.h"
#include "scenario/scenario_reader.h"

namespace rocesim {
namespace test_ldcp {
namespace {

constexpr int64_t kLine = 100'000'000'000;  // 100 Gb/s
constexpr Time kRtt = 10 * kMicrosecond;
constexpr int kMtu = 1000;
constexpr uint32_t kIw = 125;  // BDP in packets

CcState MakeState(int64_t message_bytes) {
  CcState s;
  s.line_rate_bps = kLine;
  s.base_rtt = kRtt;
  s.mtu_bytes = kMtu;
  s.message_bytes = message_bytes;
  return s;
}

struct Fixture {
  explicit Fixture(LdcpParams p = LdcpParams{}, int64_t message = 100'000'000)
      : cc(p), s(MakeState(message)) {
    cc.OnStart(0, s);
  }
  void Ack(uint32_t bytes, bool ece, Time rtt = 0) {
    AckInfo a;
    a.newly_acked_bytes = bytes;
    a.ecn_echo = ece;
    a.rtt = rtt;
    cc.OnAck(a, s);
  }
  void Sent(int n = 1) {
    for (int i = 0; i < n; ++i) cc.OnSent(0, kMtu, s);
  }
  Ldcp cc;
  CcState s;
};

// Stable stage from the start with cw = `packets` (fast start off, IW set).
LdcpParams StableAt(int packets) {
  LdcpParams p;
  p.fast_start = false;
  p.initial_window_bytes = int64_t{packets} * kMtu;
  return p;
}

// Rate of the sub-packet timer: one MTU per RTT / cw.
int64_t SubPacketRate(double cw, Time rtt = kRtt) {
  return std::llround(cw * kMtu * 8 * 1e12 / static_cast<double>(rtt));
}

// ----------------------------------------------------------------- fast start

TEST(Ldcp, FastStartOpensIwOfOneBdpAtLineRateEcnIncapable) {
  Fixture f;
  EXPECT_TRUE(f.cc.in_fast_start());
  EXPECT_DOUBLE_EQ(f.cc.bdp_packets(), 125.0);
  EXPECT_EQ(f.cc.iw_packets(), kIw);
  EXPECT_EQ(f.s.window_bytes, 125000);
  EXPECT_EQ(f.s.rate_bps, kLine);
  EXPECT_FALSE(f.s.ect);  // packet 0 is a first-RTT packet
}

TEST(Ldcp, IwRoundsTheBdpUpToWholePackets) {
  CcState s = MakeState(1'000'000);
  s.base_rtt = 10 * kMicrosecond + 40 * kNanosecond;  // BDP = 125.5 packets
  Ldcp cc;
  cc.OnStart(0, s);
  EXPECT_EQ(cc.iw_packets(), 126u);
  EXPECT_EQ(s.window_bytes, 126000);
}

TEST(Ldcp, FirstRttPacketsNotEctTheIwthAndLaterEct) {
  Fixture f;
  // After k packets the next one has index k; indices 0..123 are not ECT.
  for (uint32_t k = 1; k <= kIw - 2; ++k) {
    f.Sent();
    ASSERT_FALSE(f.s.ect) << "packet index " << k;
  }
  f.Sent();  // next: index 124, the IW-th packet
  EXPECT_TRUE(f.s.ect);
  f.Sent();  // index 125: after the first RTT
  EXPECT_TRUE(f.s.ect);
  f.Sent(50);
  EXPECT_TRUE(f.s.ect);
  EXPECT_TRUE(f.cc.in_fast_start());  // the stage lasts until IW is acknowledged
}

TEST(Ldcp, ShortMessageSendsItsLastPacketEct) {
  Fixture f(LdcpParams{}, 9500);  // 10 packets, the last one 500 B
  for (int k = 1; k <= 8; ++k) {
    f.Sent();
    ASSERT_FALSE(f.s.ect) << k;
  }
  f.Sent();  // next: index 9, the message's last packet
  EXPECT_TRUE(f.s.ect);
}

TEST(Ldcp, OnePacketMessageAndOnePacketIwStartEct) {
  Fixture one(LdcpParams{}, 700);
  EXPECT_TRUE(one.s.ect);
  LdcpParams p;
  p.initial_window_bytes = kMtu;
  Fixture iw1(p);
  EXPECT_TRUE(iw1.s.ect);
  EXPECT_EQ(iw1.s.window_bytes, kMtu);
}

TEST(Ldcp, AllOfIwAcknowledgedEntersStableWithCwBdp) {
  Fixture f;
  f.Sent(kIw);
  for (uint32_t i = 0; i < kIw - 1; ++i) {
    f.Ack(kMtu, false);
    ASSERT_TRUE(f.cc.in_fast_start());
    ASSERT_EQ(f.s.window_bytes, 125000);  // the window stays IW
  }
  EXPECT_EQ(f.cc.fast_start_acked(), 124u);
  f.Ack(kMtu, true);  // the IW-th packet: the transition (its ECE does not act)
  EXPECT_FALSE(f.cc.in_fast_start());
  EXPECT_DOUBLE_EQ(f.cc.cw(), 125.0);
  EXPECT_EQ(f.s.window_bytes, 125000);
  // From now on eq. (1): 125 + 1/125, then - 1/2.
  f.Ack(kMtu, false);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 125.0 + 1.0 / 125);
  EXPECT_EQ(f.s.window_bytes, 125000);
  f.Ack(kMtu, true);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 125.0 + 1.0 / 125 - 0.5);
  EXPECT_EQ(f.s.window_bytes, 124000);
  EXPECT_TRUE(f.s.ect);
}

TEST(Ldcp, CoalescedAcksCountPacketsTowardsIw) {
  Fixture f;
  f.Sent(kIw);
  for (int i = 0; i < 15; ++i) f.Ack(8 * kMtu, false);  // 120 packets
  EXPECT_TRUE(f.cc.in_fast_start());
  f.Ack(4 * kMtu + 500, false);  // 5 more packets (the last a short one)
  EXPECT_FALSE(f.cc.in_fast_start());
  EXPECT_DOUBLE_EQ(f.cc.cw(), 125.0);
}

TEST(Ldcp, LossInFastStartSetsCwToPacketsAckedInOrder) {
  Fixture f;
  f.Sent(kIw);
  for (int i = 0; i < 7; ++i) f.Ack(kMtu, false);
  f.cc.OnNack(0, f.s);
  EXPECT_FALSE(f.cc.in_fast_start());
  EXPECT_DOUBLE_EQ(f.cc.cw(), 7.0);
  EXPECT_EQ(f.s.window_bytes, 7000);
  EXPECT_EQ(f.s.rate_bps, kLine);
  EXPECT_TRUE(f.s.ect);  // retransmissions are stable-stage packets
  // A second NACK (stable stage) leaves cw alone.
  f.cc.OnNack(0, f.s);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 7.0);
}

TEST(Ldcp, LossBeforeAnyAckLeavesOnePacket) {
  Fixture f;
  f.Sent(10);
  f.cc.OnNack(0, f.s);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 1.0);
  EXPECT_EQ(f.s.window_bytes, kMtu);
  EXPECT_EQ(f.s.rate_bps, kLine);
}

TEST(Ldcp, NoFastStartBeginsStableWithEct) {
  Fixture f(StableAt(10));
  EXPECT_FALSE(f.cc.in_fast_start());
  EXPECT_TRUE(f.s.ect);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 10.0);
  f.Sent();
  EXPECT_TRUE(f.s.ect);
  f.Ack(kMtu, false);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 10.1);
}

// --------------------------------------------------------------- stable stage

TEST(Ldcp, Eq1PerAckIncreaseAlphaOverCwDecreaseBeta) {
  Fixture f(StableAt(2));
  f.Ack(kMtu, false);  // 2 + 1/2
  EXPECT_DOUBLE_EQ(f.cc.cw(), 2.5);
  EXPECT_EQ(f.s.window_bytes, 2000);
  f.Ack(kMtu, false);  // 2.5 + 1/2.5
  EXPECT_DOUBLE_EQ(f.cc.cw(), 2.9);
  f.Ack(kMtu, true);  // - 1/2
  EXPECT_DOUBLE_EQ(f.cc.cw(), 2.4);
  EXPECT_EQ(f.s.window_bytes, 2000);
  f.Ack(kMtu, true);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 1.9);
  EXPECT_EQ(f.s.window_bytes, 1000);
  f.Ack(kMtu, true);
  EXPECT_NEAR(f.cc.cw(), 1.4, 1e-12);
  f.Ack(kMtu, true);  // 0.9 -> the eq. (1) floor cw >= 1
  EXPECT_DOUBLE_EQ(f.cc.cw(), 1.0);
  EXPECT_EQ(f.s.window_bytes, kMtu);
  EXPECT_EQ(f.s.rate_bps, kLine);
}

TEST(Ldcp, Eq1UsesConfiguredAlphaAndBeta) {
  LdcpParams p = StableAt(4);
  p.alpha = 0.5;
  p.beta = 0.25;
  Fixture f(p);
  f.Ack(kMtu, false);  // 4 + 0.5/4
  EXPECT_DOUBLE_EQ(f.cc.cw(), 4.125);
  f.Ack(kMtu, true);  // - 0.25
  EXPECT_DOUBLE_EQ(f.cc.cw(), 3.875);
  EXPECT_EQ(f.s.window_bytes, 3000);
}

TEST(Ldcp, Eq2DelayedAckOfNPackets) {
  Fixture f(StableAt(4));
  f.Ack(3 * kMtu, false);  // n = 3: 4 + 3 * 1/4
  EXPECT_DOUBLE_EQ(f.cc.cw(), 4.75);
  f.Ack(2 * kMtu, true);  // n = 2: 4.75 - 2 * 1/2
  EXPECT_DOUBLE_EQ(f.cc.cw(), 3.75);
  f.Ack(2 * kMtu + 300, false);  // n = 3 (a short last packet counts as one)
  EXPECT_DOUBLE_EQ(f.cc.cw(), 3.75 + 3 / 3.75);
  f.Ack(8 * kMtu, true);  // 4.55 - 4 -> floored at 1
  EXPECT_DOUBLE_EQ(f.cc.cw(), 1.0);
}

TEST(Ldcp, DuplicateAckChangesNothing) {
  Fixture f(StableAt(4));
  f.Ack(0, true);
  f.Ack(0, false);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 4.0);
}

TEST(Ldcp, MaxWindowCapsCw) {
  LdcpParams p = StableAt(4);
  p.max_window_bytes = 4500;  // 4 packets
  Fixture f(p);
  f.Ack(kMtu, false);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 4.0);
  EXPECT_EQ(f.s.window_bytes, 4000);
}

TEST(Ldcp, BelowOnePacketHalvesToGammaAndPacesOnePacketPerRttOverCw) {
  Fixture f(StableAt(1));  // gamma = 1/8, eta = 1/2
  f.Ack(kMtu, true);       // at the floor: cw = max(1/8, 1/2 * 1)
  EXPECT_DOUBLE_EQ(f.cc.cw(), 0.5);
  EXPECT_EQ(f.s.window_bytes, kMtu);            // one packet in flight at most
  EXPECT_EQ(f.s.rate_bps, SubPacketRate(0.5));  // one MTU per 20 us = 400 Mb/s
  EXPECT_EQ(f.s.rate_bps, 400'000'000);
  f.Ack(kMtu, true);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 0.25);
  EXPECT_EQ(f.s.rate_bps, 200'000'000);
  f.Ack(kMtu, true);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 0.125);
  f.Ack(kMtu, true);  // eta * 1/8 < gamma: stays at gamma
  EXPECT_DOUBLE_EQ(f.cc.cw(), 0.125);
  EXPECT_EQ(f.s.rate_bps, 100'000'000);
}

TEST(Ldcp, BelowOnePacketIncreasesByGammaBackToEq1) {
  Fixture f(StableAt(1));
  for (int i = 0; i < 3; ++i) f.Ack(kMtu, true);  // 1/8
  ASSERT_DOUBLE_EQ(f.cc.cw(), 0.125);
  for (int i = 2; i <= 7; ++i) {
    f.Ack(kMtu, false);
    ASSERT_DOUBLE_EQ(f.cc.cw(), i / 8.0);
    ASSERT_EQ(f.s.rate_bps, SubPacketRate(i / 8.0));
  }
  f.Ack(kMtu, false);  // 7/8 + 1/8 = 1: window mode at line rate again
  EXPECT_DOUBLE_EQ(f.cc.cw(), 1.0);
  EXPECT_EQ(f.s.rate_bps, kLine);
  EXPECT_EQ(f.s.window_bytes, kMtu);
  f.Ack(kMtu, false);  // eq. (1): 1 + 1/1
  EXPECT_DOUBLE_EQ(f.cc.cw(), 2.0);
  EXPECT_EQ(f.s.window_bytes, 2000);
}

TEST(Ldcp, GammaAndEtaAreParameters) {
  LdcpParams p = StableAt(1);
  p.gamma = 0.25;
  p.eta = 0.75;
  Fixture f(p);
  f.Ack(kMtu, true);  // 3/4
  EXPECT_DOUBLE_EQ(f.cc.cw(), 0.75);
  f.Ack(kMtu, true);  // 9/16
  EXPECT_DOUBLE_EQ(f.cc.cw(), 0.5625);
  f.Ack(kMtu, false);  // + 1/4
  EXPECT_DOUBLE_EQ(f.cc.cw(), 0.8125);
  for (int i = 0; i < 10; ++i) f.Ack(kMtu, true);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 0.25);  // gamma is the minimum window
}

TEST(Ldcp, SubPacketTimerUsesTheLatestRttSampleNotBelowBase) {
  Fixture f(StableAt(1));
  f.Ack(kMtu, true, 20 * kMicrosecond);  // cw 1/2, RTT 20 us: one MTU per 40 us
  EXPECT_EQ(f.cc.rtt(), 20 * kMicrosecond);
  EXPECT_EQ(f.s.rate_bps, SubPacketRate(0.5, 20 * kMicrosecond));
  EXPECT_EQ(f.s.rate_bps, 200'000'000);
  f.Ack(kMtu, false, 5 * kMicrosecond);  // below the base RTT: the base RTT
  EXPECT_EQ(f.cc.rtt(), kRtt);
  EXPECT_EQ(f.s.rate_bps, SubPacketRate(0.625));
}

TEST(Ldcp, WindowVariantIgnoresCnps) {
  Fixture f(StableAt(4));
  f.cc.OnCnp(0, f.s);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 4.0);
}

// ---------------------------------------------------------- event API (§3.2)

LdcpParams EventApi() {
  LdcpParams p;
  p.variant = LdcpVariant::kEventApi;
  return p;
}

TEST(Ldcp, EventApiStartsAtLineRateNoWindowProbeTimerOneRtt) {
  Fixture f(EventApi());
  EXPECT_FALSE(f.cc.in_fast_start());
  EXPECT_DOUBLE_EQ(f.cc.cw(), 125.0);
  EXPECT_EQ(f.s.rate_bps, kLine);
  EXPECT_EQ(f.s.window_bytes, 0);
  EXPECT_TRUE(f.s.ect);
  EXPECT_EQ(f.s.timer_at[Ldcp::kProbeTimer], kRtt);
}

TEST(Ldcp, EventApiCnpSubtractsBetaProbeAddsAlphaWindowToRate) {
  Fixture f(EventApi());
  f.cc.OnCnp(1, f.s);  // 125 - 1/2
  EXPECT_DOUBLE_EQ(f.cc.cw(), 124.5);
  EXPECT_EQ(f.s.rate_bps, 99'600'000'000);  // 124.5 MTU per 10 us
  f.cc.OnCnp(2, f.s);
  f.cc.OnCnp(3, f.s);  // 123.5
  EXPECT_EQ(f.s.rate_bps, 98'800'000'000);
  f.s.timer_at[Ldcp::kProbeTimer] = kRtt;
  f.cc.OnTimer(kRtt, Ldcp::kProbeTimer, f.s);  // + alpha = 124.5
  EXPECT_DOUBLE_EQ(f.cc.cw(), 124.5);
  EXPECT_EQ(f.s.timer_at[Ldcp::kProbeTimer], 2 * kRtt);  // the next probe
  f.cc.OnTimer(2 * kRtt, Ldcp::kProbeTimer, f.s);        // 125.5 -> capped at the BDP
  EXPECT_DOUBLE_EQ(f.cc.cw(), 125.0);
  EXPECT_EQ(f.s.rate_bps, kLine);
}

TEST(Ldcp, EventApiBelowOnePacketUsesEtaAndGamma) {
  LdcpParams p = EventApi();
  p.probe_interval = 3 * kMicrosecond;
  Fixture f(p);
  EXPECT_EQ(f.s.timer_at[Ldcp::kProbeTimer], 3 * kMicrosecond);
  for (int i = 0; i < 248; ++i) f.cc.OnCnp(0, f.s);  // 125 - 124 = 1
  EXPECT_DOUBLE_EQ(f.cc.cw(), 1.0);
  f.cc.OnCnp(0, f.s);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 0.5);
  EXPECT_EQ(f.s.rate_bps, 400'000'000);
  f.cc.OnCnp(0, f.s);
  f.cc.OnCnp(0, f.s);
  f.cc.OnCnp(0, f.s);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 0.125);
  EXPECT_EQ(f.s.rate_bps, 100'000'000);
  f.cc.OnTimer(3 * kMicrosecond, Ldcp::kProbeTimer, f.s);  // + gamma below one packet
  EXPECT_DOUBLE_EQ(f.cc.cw(), 0.25);
  EXPECT_EQ(f.s.timer_at[Ldcp::kProbeTimer], 6 * kMicrosecond);
}

TEST(Ldcp, EventApiIgnoresAckEchoesAndNacks) {
  Fixture f(EventApi());
  f.Ack(kMtu, true);
  f.Ack(kMtu, false);
  f.cc.OnNack(0, f.s);
  EXPECT_DOUBLE_EQ(f.cc.cw(), 125.0);
  EXPECT_EQ(f.s.rate_bps, kLine);
}

// ------------------------------------------------ parameters, factory, reader

TEST(Ldcp, DefaultsAreTheDraftsValues) {
  const LdcpParams p;
  EXPECT_EQ(p.variant, LdcpVariant::kWindow);
  EXPECT_DOUBLE_EQ(p.alpha, 1.0);
  EXPECT_DOUBLE_EQ(p.beta, 0.5);
  EXPECT_DOUBLE_EQ(p.gamma, 1.0 / 8);
  EXPECT_DOUBLE_EQ(p.eta, 0.5);
  EXPECT_EQ(p.initial_window_bytes, 0);
  EXPECT_TRUE(p.fast_start);
}

TEST(Ldcp, ValidationRejectsOutOfRangeParameters) {
  auto bad = [](auto edit) {
    LdcpParams p;
    edit(p);
    EXPECT_THROW(ValidateLdcpParams(p), std::invalid_argument);
  };
  bad([](LdcpParams& p) { p.alpha = 0; });
  bad([](LdcpParams& p) { p.alpha = 1.5; });
  bad([](LdcpParams& p) { p.beta = 0; });
  bad([](LdcpParams& p) { p.gamma = 1; });
  bad([](LdcpParams& p) { p.eta = 0; });
  bad([](LdcpParams& p) { p.initial_window_bytes = -1; });
  EXPECT_NO_THROW(ValidateLdcpParams(LdcpParams{}));
}

TEST(Ldcp, FactoryNamesBuildsAndAsksForCnpsOnlyInEventApi) {
  HostConfig h;
  EXPECT_EQ(CcName(CcKind::kLdcp), "ldcp");
  EXPECT_NE(dynamic_cast<Ldcp*>(MakeCongestionControl(CcKind::kLdcp, h).get()), nullptr);
  EXPECT_FALSE(UsesCnps(CcKind::kLdcp, h));
  h.ldcp.variant = LdcpVariant::kEventApi;
  EXPECT_TRUE(UsesCnps(CcKind::kLdcp, h));
  EXPECT_FALSE(NeedsInt(CcKind::kLdcp));
}

TEST(Ldcp, ReaderReadsTheLdcpBlock) {
  const Scenario sc = ParseScenarioText(R"(topology: {type: star, hosts: 4}
host:
  cc: ldcp
  ldcp: {variant: event_api, alpha: 1/2, beta: 1/4, gamma: 1/16, eta: 0.75,
         initial_window: 64KB, fast_start: false, max_window: 1MB, probe_interval: 5us}
)",
                                        "x.yaml", "", {}, std::nullopt);
  EXPECT_EQ(sc.host.cc, CcKind::kLdcp);
  const LdcpParams& p = sc.host.ldcp;
  EXPECT_EQ(p.variant, LdcpVariant::kEventApi);
  EXPECT_DOUBLE_EQ(p.alpha, 0.5);
  EXPECT_DOUBLE_EQ(p.beta, 0.25);
  EXPECT_DOUBLE_EQ(p.gamma, 1.0 / 16);
  EXPECT_DOUBLE_EQ(p.eta, 0.75);
  EXPECT_EQ(p.initial_window_bytes, 64000);
  EXPECT_FALSE(p.fast_start);
  EXPECT_EQ(p.max_window_bytes, 1000000);
  EXPECT_EQ(p.probe_interval, 5 * kMicrosecond);
}

TEST(Ldcp, ReaderRejectsBadLdcpValues) {
  auto error = [](const std::string& block) -> std::string {
    try {
      ParseScenarioText("topology: {type: star, hosts: 4}\nhost: {cc: ldcp, ldcp: " + block + "}\n",
                        "x.yaml", "", {}, std::nullopt);
    } catch (const ScenarioError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error("{variant: rate}").find("host.ldcp.variant"), std::string::npos);
  EXPECT_NE(error("{gamma: 1}").find("gamma"), std::string::npos);
  EXPECT_NE(error("{alpha: 0}").find("alpha"), std::string::npos);
  EXPECT_NE(error("{kappa: 1}").find("kappa"), std::string::npos);
}

}  // namespace
}  // namespace test_ldcp
}  // namespace rocesim
