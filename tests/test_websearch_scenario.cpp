// A small fat tree under WebSearch load (examples/websearch-incast.yaml: k=4,
// Poisson arrivals at 30% of each host link plus periodic incasts, DCQCN) and
// the summary a researcher reads from it: every flow completes, nothing is
// lost under PFC, the size buckets partition the flows, slowdowns are >= 1,
// the realised load is reported near the target.
#include <gtest/gtest.h>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"

namespace rocesim {
namespace test_websearch_scenario {
namespace {

TEST(WebSearchScenario, SmallFatTreeSummary) {
  const Scenario sc =
      LoadScenario(std::string(ROCESIM_SOURCE_DIR) + "/examples/websearch-incast.yaml",
                   {"monitors.interval=0"}, std::nullopt);
  Simulation sim(sc);
  const RunStats st = sim.Run();
  const nlohmann::json s = BuildSummary(sim, st);

  const uint64_t total = s["flows"]["total"];
  EXPECT_GT(total, 200u);
  EXPECT_EQ(s["flows"]["completed"], total);
  EXPECT_EQ(s["drops"]["total"], 0u);
  EXPECT_GE(s["slowdown"]["p50"].get<double>(), 1.0);
  EXPECT_GE(s["slowdown"]["p99"].get<double>(), s["slowdown"]["p50"].get<double>());

  uint64_t bucketed = 0;
  for (const auto& [name, g] : s["slowdown_groups"]["by_size"].items()) {
    bucketed += g["count"].get<uint64_t>();
    if (g["count"].get<uint64_t>() > 0) {
      EXPECT_GE(g["p50"].get<double>(), 1.0) << name;
    }
  }
  EXPECT_EQ(bucketed, total);
  const auto& tags = s["slowdown_groups"]["by_tag"];
  EXPECT_EQ(tags["incast"]["count"], 120u);  // 12 senders x 10 periods
  EXPECT_EQ(tags["poisson"]["count"].get<uint64_t>() + 120u, total);
  // Mice finish closer to their ideal than the 100 KB-1 MB flows stuck in incasts.
  EXPECT_LT(s["slowdown_groups"]["by_size"]["<10KB"]["p50"].get<double>(),
            s["slowdown_groups"]["by_size"]["100KB-1MB"]["p50"].get<double>());

  const auto& poisson = s["traffic"][0];
  EXPECT_EQ(poisson["type"], "poisson");
  EXPECT_DOUBLE_EQ(poisson["target_load"].get<double>(), 0.3);
  // A 5 ms window of WebSearch (mean 1.7 MB) holds few flows: within +-30%.
  EXPECT_NEAR(poisson["realised_load"].get<double>(), 0.3, 0.09);
}

}  // namespace
}  // namespace test_websearch_scenario
}  // namespace rocesim
