// Seed 002 §4.2 "Incast with Burst Flow" (Fig. 6): examples/rcm-incast-burst.yaml.
// The placement the seed describes (the four IncastFlows enter the last
// switch by one port, the BurstFlow by another), and RCM pushing the burst
// down at the last switch while DCQCN alone lets it keep half the port.
// Window 175-200 us: from 5 us after the burst began its second 20 us (RCC
// needs a sample and a measured window first, ~20 us after the burst hit the
// queue) until the DCQCN-only burst ends (~197 us). Goodput: acknowledged
// payload at the sender.
#include <gtest/gtest.h>

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_rcm_burst {
namespace {

using test::ExamplePath;
using test::ExpectConserved;

constexpr uint32_t kLast = 435;  // D0's edge switch (D0 = host 20)
constexpr int kBurst = 4;

Scenario BurstScenario(bool rcm) {
  return LoadScenario(ExamplePath("rcm-incast-burst.yaml"),
                      {std::string("switch.rcm.enabled=") + (rcm ? "true" : "false")},
                      std::nullopt);
}

uint16_t InPortAtLast(const Fabric& f, const Flow& fl) {
  // Walk the ECMP path from the source's edge switch to the last switch.
  uint32_t node = f.ports[f.ports[f.nics[fl.src].port()].peer].node;
  uint16_t in = f.ports[f.nics[fl.src].port()].peer - f.nodes[node].first_port;
  while (node != kLast) {
    const Node& n = f.nodes[node];
    const uint16_t l = f.routing.SelectLocal(n.index, fl.src, fl.dst, fl.sport);
    const PortId peer = f.ports[n.first_port + l].peer;
    node = f.ports[peer].node;
    in = static_cast<uint16_t>(peer - f.nodes[node].first_port);
  }
  return in;
}

TEST(RcmBurst, IncastEntersTheLastSwitchByOnePortAndTheBurstByAnother) {
  const Simulation sim(BurstScenario(false));
  const Fabric& f = sim.fabric();
  ASSERT_EQ(f.flows.Count(), 5u);
  const uint16_t incast_port = InPortAtLast(f, f.flows[0]);
  for (int i = 1; i < 4; ++i) EXPECT_EQ(InPortAtLast(f, f.flows[i]), incast_port) << i;
  EXPECT_NE(InPortAtLast(f, f.flows[kBurst]), incast_port);
}

std::array<double, 5> Goodput(Simulation& sim, Time from, Time to) {
  const auto mtu = static_cast<double>(sim.scenario().host.mtu_bytes);
  sim.Advance(from);
  std::array<uint32_t, 5> una{};
  for (const Flow& fl : sim.fabric().flows) una[fl.id] = fl.snd_una;
  sim.Advance(to);
  std::array<double, 5> g{};
  for (const Flow& fl : sim.fabric().flows)
    g[fl.id] = (fl.snd_una - una[fl.id]) * mtu * 8 / ToSeconds(to - from) / 1e9;
  return g;
}

TEST(RcmBurst, RcmPushesTheBurstDownAndTheIncastRecovers) {
  Simulation base(BurstScenario(false));
  Simulation rcm(BurstScenario(true));
  const auto g0 = Goodput(base, 175 * kMicrosecond, 195 * kMicrosecond);
  const auto g1 = Goodput(rcm, 175 * kMicrosecond, 195 * kMicrosecond);
  EXPECT_GT(g0[kBurst], 40.0) << "DCQCN alone: the burst keeps half the port";
  EXPECT_LT(g1[kBurst], 0.75 * g0[kBurst]) << "RCM: the burst is pushed down";
  double in0 = 0, in1 = 0;
  for (int i = 0; i < 4; ++i) {
    in0 += g0[i];
    in1 += g1[i];
  }
  EXPECT_GT(in1, in0 + 10.0) << "the incast flows get back what the burst gave up";
  const nlohmann::json s = BuildSummary(rcm, rcm.Run());
  EXPECT_EQ(s["drops"]["total"].get<uint64_t>(), 0u) << s["drops"].dump();
  EXPECT_EQ(s["rcm"]["notifications_at_hosts"].get<uint64_t>(), 0u);
  ExpectConserved(s);
}

}  // namespace
}  // namespace test_rcm_burst
}  // namespace rocesim
