// A flow's start rate and open-loop rate cap (traffic `start_rate`,
// `max_rate`; scenario.h FlowSpec): read on every traffic type, applied by
// the NIC at the flow's start (net/nic.cpp StartFlow) and to every rate
// congestion control sets afterwards. The window cap of rate-based
// algorithms (host.window: bdp, the HPCC paper's DCQCN+w and TIMELY+w). And
// HPCC's INT bytes on the wire (host.hpcc.int_bytes).
#include <gtest/gtest.h>

#include "scenario/scenario_reader.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_experiment_knobs {
namespace {

Scenario ParseKnobsScenario(const std::string& yaml) {
  return ParseScenarioText(yaml, "knobs.yaml", "", {}, std::nullopt);
}

std::string ErrorOf(const std::string& yaml) {
  return test::ScenarioErrorOf(yaml, "knobs.yaml");
}

constexpr char kStar[] =
    "duration: 5ms\n"
    "topology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}\n";

TEST(FlowRateKnobs, ReadOnEveryTypeAndPerFlow) {
  const Scenario s = ParseKnobsScenario(std::string(kStar) + R"(traffic:
  - type: flows
    start_rate: 10Gbps
    max_rate: 40Gbps
    flows:
      - {src: 1, dst: 0, size: 1MB}
      - {src: 2, dst: 0, size: 1MB, start_rate: fair, max_rate: 20Gbps}
  - {type: incast, senders: [1, 2], receiver: 3, size: 1MB, start_rate: 5Gbps}
  - {type: permutation, size: 1MB, max_rate: 25Gbps}
)");
  ASSERT_EQ(s.traffic.size(), 3u);
  EXPECT_EQ(s.traffic[0].flows[0].start_rate_bps, 10'000'000'000);
  EXPECT_EQ(s.traffic[0].flows[0].max_rate_bps, 40'000'000'000);
  EXPECT_EQ(s.traffic[0].flows[1].start_rate_bps, kFairStartRate);
  EXPECT_EQ(s.traffic[0].flows[1].max_rate_bps, 20'000'000'000);
  EXPECT_EQ(s.traffic[1].start_rate_bps, 5'000'000'000);
  EXPECT_EQ(s.traffic[1].max_rate_bps, 0);
  EXPECT_EQ(s.traffic[2].max_rate_bps, 25'000'000'000);
}

TEST(FlowRateKnobs, BadValuesNameTheField) {
  const std::string bad_start = ErrorOf(std::string(kStar) + R"(traffic:
  - {type: incast, senders: [1], receiver: 0, size: 1MB, start_rate: fast}
)");
  EXPECT_NE(bad_start.find("knobs.yaml:4"), std::string::npos) << bad_start;
  EXPECT_NE(bad_start.find("traffic.0.start_rate"), std::string::npos) << bad_start;
  EXPECT_NE(bad_start.find("fair"), std::string::npos) << bad_start;
  const std::string bad_cap = ErrorOf(std::string(kStar) + R"(traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 1MB, max_rate: 0Gbps}]
)");
  EXPECT_NE(bad_cap.find("max_rate"), std::string::npos) << bad_cap;
  EXPECT_NE(bad_cap.find("greater than 0"), std::string::npos) << bad_cap;
}

// An open-loop cap: a lone 1 MB flow capped at 20 Gb/s takes 1 MB / 20 Gb/s
// (400 us) plus its headers' share of the wire and one RTT, with or without
// congestion control (DCQCN never cuts here: there is no congestion).
TEST(FlowRateKnobs, MaxRateCapsAnUncongestedFlow) {
  for (const char* cc : {"none", "dcqcn", "timely", "hpcc", "dctcp"}) {
    const test::SimRun r = test::RunYaml(std::string(kStar) + "host: {cc: " + cc + R"(}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 1MB, max_rate: 20Gbps}]
)");
    const Flow& fl = r.fabric().flows[0];
    ASSERT_TRUE(fl.Finished()) << cc;
    const double fct_us = ToSeconds(fl.finish - fl.start) * 1e6;
    EXPECT_GT(fct_us, 400.0) << cc;
    EXPECT_LT(fct_us, 400.0 * 1.08 + 10) << cc;  // headers (< 8% at MTU 1000) + RTT
  }
}

// Every algorithm starts where the scenario says: RC = RT = start for DCQCN,
// the rate (HPCC: and the window that rate fills in one RTT) for the
// others, the first window for window-based DCTCP.
TEST(FlowRateKnobs, StartRateIsWhereEveryAlgorithmStarts) {
  for (const char* cc : {"none", "dcqcn", "timely", "hpcc", "dctcp"}) {
    auto sim = std::make_unique<Simulation>(
        ParseKnobsScenario(std::string(kStar) + "host: {cc: " + cc + R"(}
traffic:
  - type: flows
    start_rate: 10Gbps
    flows: [{src: 1, dst: 0, size: 10MB, start: 5us}]
)"));
    sim->Advance(5 * kMicrosecond);
    const Flow& fl = sim->fabric().flows[0];
    if (std::string(cc) == "dctcp") {
      // A window algorithm (unpaced): the start rate is its first window,
      // what 10 Gb/s sends in one base RTT.
      EXPECT_EQ(fl.window_bytes, 10 * fl.cc.base_rtt / 8000) << cc;
    } else {
      EXPECT_EQ(fl.rate_bps, 10'000'000'000) << cc;
    }
  }
}

// start_rate: fair (the TIMELY paper): line rate / (the sender's active QPs
// + 1) when the flow starts: 100, then 50, then 33.3 Gb/s as the second and
// third flows of one sender join.
TEST(FlowRateKnobs, FairStartSharesTheSendersLineRate) {
  auto sim =
      std::make_unique<Simulation>(ParseKnobsScenario(std::string(kStar) + R"(host: {cc: timely}
traffic:
  - type: flows
    start_rate: fair
    flows:
      - {src: 1, dst: 0, size: 10MB, start: 0us}
      - {src: 1, dst: 2, size: 10MB, start: 10us}
      - {src: 1, dst: 3, size: 10MB, start: 20us}
)"));
  sim->Advance(0);
  EXPECT_EQ(sim->fabric().flows[0].rate_bps, 100'000'000'000);
  sim->Advance(10 * kMicrosecond);
  EXPECT_EQ(sim->fabric().flows[1].rate_bps, 50'000'000'000);
  sim->Advance(20 * kMicrosecond);
  EXPECT_EQ(sim->fabric().flows[2].rate_bps, 33'333'333'333);
}

// host.window: bdp: no QP ever has more than one BDP of its path in flight
// (line rate x base RTT), whatever congestion control says; two senders
// into one port, where queueing delays the ACKs, would have more without it.
TEST(WindowCap, BdpCapsBytesInFlight) {
  for (const char* cc : {"none", "dcqcn", "timely"}) {
    auto most_in_flight = [&](const char* window) {
      auto sim = std::make_unique<Simulation>(
          ParseKnobsScenario(std::string(kStar) + "host: {window: " + window + ", cc: " + cc + R"(}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 2MB}, {src: 2, dst: 0, size: 2MB}]
)"));
      const Flow& fl = sim->fabric().flows[0];
      uint32_t most = 0;
      for (Time t = 0; t < 200 * kMicrosecond; t += 100 * kNanosecond) {
        sim->Advance(t);
        most = std::max(most, fl.snd_nxt - fl.snd_una);
      }
      const int64_t bdp = 100 * fl.cc.base_rtt / 8000;  // 100 Gb/s x base RTT, bytes
      if (std::string(window) == "bdp") {
        EXPECT_EQ(fl.window_cap, bdp) << cc;
      }
      return std::pair{int64_t{most} * 1000, bdp};
    };
    const auto [capped, bdp] = most_in_flight("bdp");
    const auto [uncapped, same_bdp] = most_in_flight("none");
    // A packet may start while less than the window is in flight.
    EXPECT_LE(capped, bdp + 1000) << cc;
    EXPECT_GT(uncapped, 2 * bdp) << cc;
  }
}

// DCQCN+w: an 8-to-1 incast's queue holds at most the senders' windows, far
// less than DCQCN alone lets build before its first cuts.
TEST(WindowCap, BdpWindowBoundsAnIncastQueue) {
  const std::string yaml = R"(duration: 2ms
topology: {type: star, hosts: 9, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 32MB}
host: {cc: dcqcn}
traffic: [{type: incast, senders: "1-8", receiver: 0, size: 1MB}]
)";
  auto peak = [&](const std::string& window) {
    auto sim = std::make_unique<Simulation>(
        ParseScenarioText(yaml, "incast.yaml", "", {"host.window=" + window}, std::nullopt));
    const Fabric& f = sim->fabric();
    const FabricLayout& l = *f.layout;
    PortId to_receiver = 0;
    for (PortId p = 0; p < l.ports.size(); ++p)
      if (l.nodes[l.ports[p].node].is_switch && l.PeerNode(p) == l.host_nodes[0]) to_receiver = p;
    int64_t most = 0;
    for (Time t = 0; t < 200 * kMicrosecond; t += 100 * kNanosecond) {
      sim->Advance(t);
      most = std::max(most, f.ports[to_receiver].queue[3].bytes);
    }
    return std::pair{most, f.flows[0].window_cap};
  };
  const auto [capped, bdp] = peak("bdp");
  const auto [uncapped, none] = peak("none");
  EXPECT_EQ(none, 0);
  EXPECT_LE(capped, 8 * bdp * 1062 / 1000);  // 8 windows of frames (payload + headers)
  EXPECT_LT(capped, uncapped / 2);
}

// HPCC's INT header on the wire: a lone 1 MB HPCC flow at line rate sends
// 1000 + 62 + 42 (+ 20 IFG) bytes per packet instead of 1082, so it takes
// 1124 / 1082 = 1.039 times as long (the HPCC paper's ~4-5% overhead).
TEST(HpccIntBytes, IntHeaderLengthensEveryDataFrame) {
  auto fct = [](const std::string& int_bytes) {
    const test::SimRun r =
        test::RunYaml(std::string(kStar) + "host: {cc: hpcc, hpcc: {int_bytes: " + int_bytes + R"(}}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 10MB}]
)");
    const Flow& fl = r.fabric().flows[0];
    EXPECT_TRUE(fl.Finished());
    return static_cast<double>(fl.finish - fl.start);
  };
  const double ratio = fct("42") / fct("0");
  EXPECT_NEAR(ratio, 1124.0 / 1082.0, 0.005);
}

}  // namespace
}  // namespace test_experiment_knobs
}  // namespace rocesim
