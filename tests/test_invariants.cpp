// The invariants every run checks (src/stats/invariants.h): they hold on real
// runs (serial and partitioned, lossless and lossy, with faults and RCM), and
// each check finds the breakage it names when a count is corrupted by hand.
#include <gtest/gtest.h>

#include "net/switch_mmu.h"
#include "sim/partitioned_run.h"
#include "stats/invariants.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_invariants {
namespace {

using test::RunYaml;

constexpr const char* kIncast = R"(
duration: 2ms
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}
host: {cc: none}
traffic:
  - {type: incast, senders: "1-7", receiver: 0, size: 1MB}
)";

TEST(Invariants, HoldOnARealRunAndTheSummarySaysSo) {
  const test::SimRun r = RunYaml(kIncast);
  EXPECT_FALSE(r.stats.invariant_break.has_value()) << r.stats.invariant_break->detail;
  const nlohmann::json& inv = r.summary["invariants"];
  EXPECT_TRUE(inv["held"].get<bool>());
  EXPECT_EQ(inv["checked"].size(), kInvariantNames.size());
  EXPECT_FALSE(inv.contains("broken"));
  // The run paused (so pauses_answered had XOFFs to check).
  EXPECT_GT(r.summary["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
}

TEST(Invariants, HoldPartitionedAndWithFaultsAndCioq) {
  const Scenario sc = ParseScenarioText(std::string(kIncast) + R"(
faults:
  - {type: packet_loss, a: 8, b: 10, probability: 0.01, at: 0}
)",
                                        "t.yaml", "", {}, std::nullopt);
  PartitionedRun run(sc, 2);
  const RunStats stats = run.Run();
  EXPECT_FALSE(stats.invariant_break.has_value()) << stats.invariant_break->detail;
  const test::SimRun cioq = RunYaml(kIncast, {"switch.architecture=cioq"});
  EXPECT_FALSE(cioq.stats.invariant_break.has_value()) << cioq.stats.invariant_break->detail;
}

TEST(Invariants, ConservationFindsAFrameThatVanished) {
  Counters c;
  c.injected_frames = 10;
  c.delivered_frames = 7;
  c.dropped_frames = 1;
  c.injected_payload_bytes = 10000;
  c.delivered_payload_bytes = 7000;
  c.dropped_payload_bytes = 1000;
  const Scenario sc = ParseScenarioText(kIncast, "t.yaml", "", {}, std::nullopt);
  EXPECT_FALSE(CheckTotals(sc, c, 2, 2000).has_value());
  const auto frames = CheckTotals(sc, c, 1, 2000);
  ASSERT_TRUE(frames.has_value());
  EXPECT_EQ(frames->name, "frames_conserved");
  EXPECT_NE(frames->detail.find("in network 1"), std::string::npos) << frames->detail;
  const auto bytes = CheckTotals(sc, c, 2, 1000);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(bytes->name, "payload_conserved");
}

TEST(Invariants, AGapWithoutADropFaultOrAdaptiveRoutingIsOutOfOrderDelivery) {
  Counters c;
  c.naks_sent = 3;
  const Scenario plain = ParseScenarioText(kIncast, "t.yaml", "", {}, std::nullopt);
  const auto b = CheckTotals(plain, c, 0, 0);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->name, "in_order_delivery");
  // A drop explains it.
  c.dropped_frames = 1;
  c.injected_frames = 1;
  EXPECT_FALSE(CheckTotals(plain, c, 0, 0).has_value());
  c.rcm_notifications_at_hosts = 1;
  EXPECT_EQ(CheckTotals(plain, c, 0, 0)->name, "rcm_contained");
}

SwitchMmu SmallMmu() {
  SwitchConfig cfg;
  cfg.buffer_bytes = 1'000'000;
  cfg.reserved_bytes = 1000;
  std::array<bool, kNumPriorities> lossless{};
  lossless[3] = true;
  SwitchMmu m;
  m.Init(cfg, {20'000, 20'000}, lossless, {});
  return m;
}

TEST(Invariants, SwitchCountsFindANegativeOrInconsistentBuffer) {
  SwitchMmu m = SmallMmu();
  ASSERT_EQ(m.Admit(0, 3, 5000), Admission::kAdmitted);
  EXPECT_EQ(m.CheckCounts(), "");
  m.Release(0, 3, 5000);
  EXPECT_EQ(m.CheckCounts(), "");
  m.Release(0, 3, 100);  // released more than it admitted
  EXPECT_NE(m.CheckCounts(), "");
}

TEST(Invariants, AnXoffLeftOnAnEmptyPriorityGroupIsAnUnansweredPause) {
  SwitchMmu m = SmallMmu();
  ASSERT_EQ(m.Admit(1, 3, 5000), Admission::kAdmitted);
  m.Xoff(1, 3) = 1;
  EXPECT_EQ(m.CheckXoffs(), "");  // still holding frames: the pause is due
  m.Release(1, 3, 5000);
  EXPECT_NE(m.CheckXoffs().find("port 1 priority 3"), std::string::npos) << m.CheckXoffs();
}

TEST(Invariants, FabricStateFindsAQueueWhoseCountsDisagreeWithItsFrames) {
  test::SimRun r = RunYaml(kIncast, {"duration=20us"});
  ASSERT_FALSE(CheckFabricState(r.fabric()).has_value());
  Fabric& f = const_cast<Fabric&>(r.fabric());
  for (Port& p : f.ports) {
    if (!f.nodes[p.node].is_switch) continue;
    p.queue[3].bytes += 1;  // a byte that no frame carries
    break;
  }
  const auto b = CheckFabricState(f);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->name, "counts_consistent");
}

}  // namespace
}  // namespace test_invariants
}  // namespace rocesim
