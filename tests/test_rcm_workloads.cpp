// Seed 002 §4.2-§4.3 traffic with RCM (src/net/cioq_rcm.h): the hot-spot and
// the grouped data-mining examples, shortened further here. Whatever the
// performance, RCM must keep the fabric lossless and conserving, keep its
// notifications between switches, never move a harmful flow, and be
// deterministic; and the shared-buffer switch (which cannot run RCM) stays
// lossless on the same traffic.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_rcm_workloads {
namespace {

using nlohmann::json;
using test::ExamplePath;
using test::ExpectConserved;
using test::RunScenario;

json RunExample(const std::string& example, const std::vector<std::string>& sets) {
  return RunScenario(LoadScenario(ExamplePath(example), sets, std::nullopt)).summary;
}

void ExpectRcmSound(const json& s) {
  EXPECT_EQ(s["drops"]["total"].get<uint64_t>(), 0u) << s["drops"].dump();
  ExpectConserved(s);
  const json& r = s["rcm"];
  EXPECT_GT(r["notifications_sent"].get<uint64_t>(), 0u);
  EXPECT_EQ(r["notifications_at_hosts"].get<uint64_t>(), 0u);
  EXPECT_EQ(r["sar_harmful_rerouted"].get<uint64_t>(), 0u) << r.dump();
}

TEST(RcmWorkloads, HotspotStaysLosslessWithRcm) {
  const json s = RunExample("rcm-hotspot.yaml", {"switch.rcm.enabled=true", "duration=800us"});
  ExpectRcmSound(s);
  EXPECT_GT(s["rcm"]["sar_reroutes"].get<uint64_t>(), 0u) << "SAR moved new flows";
}

TEST(RcmWorkloads, DataminingGroupsStayLosslessWithRcm) {
  ExpectRcmSound(RunExample("rcm-workloads.yaml", {"switch.rcm.enabled=true", "duration=2ms"}));
}

TEST(RcmWorkloads, SharedBufferStaysLosslessOnTheSameTraffic) {
  const json s =
      RunExample("rcm-hotspot.yaml", {"switch.architecture=shared_buffer", "switch.cioq=null",
                                      "switch.rcm=null", "duration=800us"});
  EXPECT_EQ(s["drops"]["total"].get<uint64_t>(), 0u) << s["drops"].dump();
  EXPECT_FALSE(s.contains("rcm"));
  ExpectConserved(s);
}

TEST(RcmWorkloads, SameSeedSameFlowsCsv) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "rocesim_rcm_determinism";
  fs::remove_all(dir);  // a failed earlier run's: a run refuses a directory with results
  std::vector<std::string> csv;
  for (int i = 0; i < 2; ++i) {
    const std::string out = (dir / std::to_string(i)).string();
    const int rc = test::RunCli("run " + ExamplePath("rcm-hotspot.yaml") +
                                " -q --set switch.rcm.enabled=true --set duration=500us -o " + out);
    if (rc == -1) GTEST_SKIP() << "ROCESIM_BIN unset (run through ctest)";
    ASSERT_EQ(rc, 0);
    csv.push_back(test::ReadFile(out + "/flows.csv"));
  }
  EXPECT_FALSE(csv[0].empty());
  EXPECT_EQ(csv[0], csv[1]);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace test_rcm_workloads
}  // namespace rocesim
