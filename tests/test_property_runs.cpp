// Property test (issue "Trustworthy at any input"): many small random valid
// scenarios -- topology, switch architecture, PFC, congestion control,
// traffic, faults, watchdogs, seeds -- each run to its end with every
// invariant of src/stats/invariants.h holding, and a second run of the same
// scenario giving the same results; every 8th also partitioned (2 threads),
// which must equal the serial run. ROCESIM_PROPERTY_RUNS sets how many
// (default 1000; scripts/sanitize.sh runs fewer under the sanitizers).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/rng.h"
#include "sim/partitioned_run.h"
#include "stats/results_writer.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_property_runs {
namespace {

// One random scenario; `hosts` gets its host count.
std::string RandomScenario(Rng& rng, int* hosts) {
  auto pick = [&](int n) { return static_cast<int>(rng.Next() % static_cast<uint64_t>(n)); };
  std::string y = "duration: " + std::to_string(100 + pick(900)) + "us\n";
  y += "seed: " + std::to_string(1 + pick(1000)) + "\n";
  switch (pick(3)) {
    case 0:
      *hosts = 2 + pick(7);
      y += "topology: {type: star, hosts: " + std::to_string(*hosts) + "}\n";
      break;
    case 1:
      *hosts = 2 * (1 + pick(4));
      y += "topology: {type: dumbbell, hosts_left: " + std::to_string(*hosts / 2) +
           ", hosts_right: " + std::to_string(*hosts / 2) + "}\n";
      break;
    default: {
      const int leaves = 2 + pick(2), per_leaf = 1 + pick(4);
      *hosts = leaves * per_leaf;
      y += "topology: {type: leaf_spine, leaves: " + std::to_string(leaves) +
           ", spines: " + std::to_string(1 + pick(2)) +
           ", hosts_per_leaf: " + std::to_string(per_leaf) + "}\n";
    }
  }
  const bool cioq = pick(4) == 0;
  y += std::string("switch: {architecture: ") + (cioq ? "cioq" : "shared_buffer") +
       ", pfc: {enabled: " + (pick(5) == 0 ? "false" : "true") + "}" +
       (pick(3) == 0 ? ", watchdog: {enabled: true, detect: 50us, poll: 10us, restore: 100us}"
                     : "") +
       "}\n";
  static const char* kCc[] = {"none", "dcqcn", "timely", "dctcp", "hpcc"};
  y += std::string("host: {cc: ") + kCc[pick(5)] + "}\n";
  y += "traffic:\n";
  const int entries = 1 + pick(3);
  for (int e = 0; e < entries; ++e) {
    const int src = pick(*hosts);
    int dst = pick(*hosts);
    if (dst == src) dst = (src + 1) % *hosts;
    const std::string size = std::to_string(1 + pick(300)) + "KB";
    if (pick(2) == 0) {
      y += "  - {type: flows, flows: [{src: " + std::to_string(src) +
           ", dst: " + std::to_string(dst) + ", size: " + size +
           ", start: " + std::to_string(pick(50)) + "us}]}\n";
    } else {
      // One or two senders; the second is the first host that is neither.
      std::string senders = std::to_string(src);
      if (pick(2) == 0 && *hosts > 2) {
        int other = 0;
        while (other == src || other == dst) ++other;
        senders += ", " + std::to_string(other);
      }
      y += "  - {type: incast, receiver: " + std::to_string(dst) + ", senders: [" + senders +
           "], size: " + size + "}\n";
    }
  }
  switch (pick(5)) {
    case 0:
      y += "faults:\n  - {type: nic_pause_storm, host: " + std::to_string(pick(*hosts)) +
           ", at: 20us, until: 80us}\n";
      break;
    case 1:
      y += "faults:\n  - {type: slow_receiver, host: " + std::to_string(pick(*hosts)) +
           ", at: 0us, rate: 20Gbps}\n";
      break;
    default:
      break;
  }
  return y;
}

nlohmann::json WithoutRun(nlohmann::json s) {
  s.erase("run");
  return s;
}

TEST(PropertyRuns, RandomScenariosKeepEveryInvariantAndRepeat) {
  const char* env = std::getenv("ROCESIM_PROPERTY_RUNS");
  const int runs = env ? std::atoi(env) : 1000;
  Rng rng(2026, 19);
  int partitioned = 0;
  for (int i = 0; i < runs; ++i) {
    int hosts = 0;
    const std::string yaml = RandomScenario(rng, &hosts);
    Scenario sc;
    try {
      sc = ParseScenarioText(yaml, "random.yaml", "", {}, std::nullopt);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "generated an invalid scenario (" << e.what() << "):\n" << yaml;
      continue;
    }
    const test::SimRun a = test::RunScenario(sc);
    ASSERT_FALSE(a.stats.invariant_break.has_value())
        << a.stats.invariant_break->name << ": " << a.stats.invariant_break->detail << "\n"
        << yaml;
    const test::SimRun b = test::RunScenario(sc);
    ASSERT_EQ(WithoutRun(a.summary), WithoutRun(b.summary)) << "second run differs:\n" << yaml;
    if (i % 8 == 0) {
      PartitionedRun run(sc, 2);
      const RunStats stats = run.Run();
      ASSERT_FALSE(stats.invariant_break.has_value()) << yaml;
      ASSERT_EQ(WithoutRun(BuildSummary(run.result(), stats)), WithoutRun(a.summary))
          << "partitioned run differs:\n"
          << yaml;
      ++partitioned;
    }
  }
  RecordProperty("runs", runs);
  RecordProperty("partitioned", partitioned);
}

}  // namespace
}  // namespace test_property_runs
}  // namespace rocesim
