// Warnings for likely mistakes (scenario/scenario_warnings.h): printed as a
// run starts (or ends), listed in summary.json `warnings`, the same in a
// partitioned run; and a directory given as the scenario is an error.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "scenario/scenario_reader.h"
#include "scenario/scenario_warnings.h"
#include "tests/cli_test_support.h"

namespace rocesim {
namespace test_warnings {
namespace {

Scenario ParseWarningsScenario(const std::string& text) {
  return ParseScenarioText(text, "w.yaml", "", {}, std::nullopt);
}

const std::string kTwoHosts = "topology: {type: star, hosts: 3}\n";
const std::string kOneFlow = "traffic: [{type: flows, flows: [{src: 0, dst: 1, size: 10KB}]}]\n";

TEST(Warnings, CleanScenarioHasNone) {
  EXPECT_TRUE(ScenarioWarnings(ParseWarningsScenario(kTwoHosts + "host: {cc: dcqcn}\n" + kOneFlow))
                  .empty());
}

TEST(Warnings, EcnCongestionControlWithEcnOff) {
  const auto w = ScenarioWarnings(ParseWarningsScenario(
      kTwoHosts + "host: {cc: dcqcn}\nswitch: {ecn: {enabled: false}}\n" + kOneFlow));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("dcqcn"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("switch.ecn.enabled is false"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("traffic[0]"), std::string::npos) << w[0];

  const auto d =
      ScenarioWarnings(ParseWarningsScenario(kTwoHosts + "host: {ecn_capable: false}\n" +
                                             "traffic: [{type: incast, senders: [1, 2], receiver: "
                                             "0, size: 10KB, cc: dctcp}]\n"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].find("dctcp"), std::string::npos) << d[0];
  EXPECT_NE(d[0].find("host.ecn_capable is false"), std::string::npos) << d[0];
  // TIMELY and HPCC do not read marks.
  EXPECT_TRUE(
      ScenarioWarnings(
          ParseWarningsScenario(kTwoHosts +
                                "host: {cc: timely}\nswitch: {ecn: {enabled: false}}\n" + kOneFlow))
          .empty());
  EXPECT_TRUE(ScenarioWarnings(
                  ParseWarningsScenario(
                      kTwoHosts + "host: {cc: hpcc}\nswitch: {ecn: {enabled: false}}\n" + kOneFlow))
                  .empty());
}

TEST(Warnings, FlowsThatStartAfterTheEnd) {
  const auto w = ScenarioWarnings(ParseWarningsScenario(kTwoHosts + R"(duration: 1ms
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 1, size: 10KB}
      - {src: 0, dst: 1, size: 10KB, start: 1ms}
      - {src: 1, dst: 0, size: 10KB, start: 2ms}
  - {type: incast, senders: [1, 2], receiver: 0, size: 1KB, start: 999us}
  - {type: incast, senders: [1, 2], receiver: 0, size: 1KB, start: 5ms}
)"));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0],
            "traffic[0]: 2 of 3 flows start at or after duration 1ms (the first: flow 1 at 1ms): "
            "they never run");
  EXPECT_EQ(w[1], "traffic[2] starts at 5ms, at or after duration 1ms: its flows never run");
}

TEST(Warnings, LdcpUnderPfc) {
  const std::string ldcp = kTwoHosts + "host: {cc: ldcp}\nswitch: {ecn: {wred_drop: 50KB}";
  const auto w = ScenarioWarnings(ParseWarningsScenario(ldcp + "}\n" + kOneFlow));
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("LDCP"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("switch.pfc.enabled is true"), std::string::npos) << w[0];
  EXPECT_TRUE(
      ScenarioWarnings(ParseWarningsScenario(ldcp + ", pfc: {enabled: false}}\n" + kOneFlow))
          .empty());
}

TEST(Warnings, LosslessExpectedOnAnUnprotectedPriority) {
  const Scenario sc =
      ParseWarningsScenario(kTwoHosts +
                            "traffic: [{type: incast, senders: [1, 2], receiver: 0, size: 10KB, "
                            "priority: 1}]\n");
  const auto w = RunWarnings(sc, 7);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("priority 1"), std::string::npos) << w[0];
  EXPECT_NE(w[0].find("dropped 7 packets"), std::string::npos) << w[0];
  EXPECT_TRUE(RunWarnings(sc, 0).empty());  // no drops: nothing happened to it
  // Protected priority, or no PFC at all (nothing was expected lossless).
  EXPECT_TRUE(RunWarnings(ParseWarningsScenario(kTwoHosts + kOneFlow), 7).empty());
  EXPECT_TRUE(RunWarnings(ParseWarningsScenario(
                              kTwoHosts + "switch: {pfc: {enabled: false}}\n" +
                              "traffic: [{type: incast, senders: [1, 2], receiver: 0, size: "
                              "10KB, priority: 1}]\n"),
                          7)
                  .empty());
}

using WarningsCli = test::CliTest;

TEST_F(WarningsCli, DirectoryAsScenarioIsAnError) {
  const test::CliRun r = test::RunRocesimCli("run '" + dir_ + "'", dir_ + "log");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is a directory, not a scenario file"), std::string::npos) << r.output;
}

TEST_F(WarningsCli, PrintedAndInSummaryTheSameInAPartitionedRun) {
  // DCQCN with marking off, one flow past the end, and an incast on
  // priority 0 into a small buffer: it drops what PFC would have held.
  const std::string s = Write("s.yaml", R"(
topology: {type: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 4}
duration: 2ms
switch: {buffer: 600KB, ecn: {enabled: false}}
host: {cc: dcqcn}
traffic:
  - {type: incast, senders: [1, 2, 3, 4, 5, 6, 7], receiver: 0, size: 200KB, priority: 0}
  - type: flows
    flows: [{src: 1, dst: 2, size: 1KB, start: 3ms}]
)");
  const std::string out = RunInto("serial", s, "", "", /*quiet=*/false);
  const auto summary =
      nlohmann::json::parse(test::ReadFile(dir_ + "serial/summary.json"))["warnings"];
  ASSERT_EQ(summary.size(), 3u) << summary.dump(2);
  EXPECT_NE(summary[0].get<std::string>().find("dcqcn"), std::string::npos);
  EXPECT_NE(summary[1].get<std::string>().find("traffic[1]"), std::string::npos);
  EXPECT_NE(summary[2].get<std::string>().find("priority 0"), std::string::npos);
  for (const auto& w : summary)
    EXPECT_NE(out.find("warning: " + w.get<std::string>()), std::string::npos) << out;
  RunInto("threads", s, "--threads 2");
  test::CliTest::ExpectSameResults("serial", "threads");
  // -q prints the warnings (likely mistakes) but not the summary.
  const std::string quiet = RunInto("quiet", s, "");
  for (const auto& w : summary)
    EXPECT_NE(quiet.find("warning: " + w.get<std::string>()), std::string::npos) << quiet;
  EXPECT_EQ(quiet.find("slowdown"), std::string::npos) << quiet;
}

}  // namespace
}  // namespace test_warnings
}  // namespace rocesim
