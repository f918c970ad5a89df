// Scenario tests of seed 003's operational examples: buffer misconfiguration
// (examples/buffer-alpha.yaml, §6.2 incident 2) and transport livelock
// (examples/livelock.yaml, §6.3).
#include <gtest/gtest.h>

#include <memory>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"

namespace rocesim {
namespace {

std::unique_ptr<Simulation> RunExample(const std::string& name,
                                       const std::vector<std::string>& sets) {
  auto sim = std::make_unique<Simulation>(
      LoadScenario(std::string(ROCESIM_SOURCE_DIR) + "/examples/" + name, sets, std::nullopt));
  sim->Run();
  return sim;
}

TEST(OpsExamples, SmallerBufferAlphaPausesMoreOften) {
  const auto a16 = RunExample("buffer-alpha.yaml", {});
  const auto a64 = RunExample("buffer-alpha.yaml", {"switch.alpha=1/64"});
  for (const Simulation* s : {a16.get(), a64.get()}) {
    EXPECT_EQ(s->fabric().counters.TotalDrops(), 0u);
    EXPECT_EQ(s->fabric().flows_finished, s->fabric().flows.size());
  }
  // Measured: 768 pause frames with 1/16, 1,460 with 1/64.
  EXPECT_GT(a64->fabric().counters.pause_sent, 1.5 * a16->fabric().counters.pause_sent);
}

TEST(OpsExamples, GoBackZeroLivelocksWhereGoBackNFinishes) {
  const auto gbn = RunExample("livelock.yaml", {});
  const auto gb0 = RunExample("livelock.yaml", {"host.loss_recovery=go_back_0"});
  const Flow& n = gbn->fabric().flows[0];
  ASSERT_TRUE(n.Finished());
  // 4 MB at close to line rate despite 1/256 loss (measured slowdown 1.23).
  EXPECT_LT(static_cast<double>(n.finish - n.start) / static_cast<double>(n.ideal_fct), 1.5);
  EXPECT_FALSE(gb0->fabric().flows[0].Finished());
  // The link stayed busy: many times the message was delivered, in pieces.
  EXPECT_GT(gb0->fabric().counters.delivered_payload_bytes, 10u * 4'000'000);
}

}  // namespace
}  // namespace rocesim
