// `rocesim params` (scenario/scenario_params.h), resolved.yaml
// (scenario/resolved_scenario.h), `rocesim run --check`, and the command
// line's checks: unknown commands, --seed, -v; and the summaries that say
// n/a or where congestion is signalled instead of printing a misleading 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "cc/dcqcn.h"
#include "core/units.h"
#include "scenario/resolved_scenario.h"
#include "scenario/scenario_params.h"
#include "scenario/scenario_reader.h"
#include "tests/cli_test_support.h"

namespace rocesim {
namespace test_params_check {
namespace {

// Every listed key, and every section above one ("host.dcqcn" for
// "host.dcqcn.g", "traffic" for "traffic[].size").
std::set<std::string> ParamKeysAndSections() {
  std::set<std::string> keys;
  for (const ResolvedSetting& p : ScenarioParams()) {
    keys.insert(p.key);
    for (size_t i = 0; i < p.key.size(); ++i)
      if (p.key[i] == '.' || p.key[i] == '[') keys.insert(p.key.substr(0, i));
  }
  return keys;
}

std::string Resolved(const std::string& text) {
  return ResolvedScenarioYaml(ParseScenarioText(text, "p.yaml", "", {}, std::nullopt));
}

// Scenarios whose resolved form opens every map the reader has: both switch
// architectures, every list with an entry.
const char* kShared = R"(
topology: {type: star, hosts: 3}
switch:
  alpha_by_rate: [{rate: 100Gbps, alpha: 1/8}]
  ecn: {by_rate: [{rate: 100Gbps, kmin: 5KB, kmax: 50KB, pmax: 0.1}]}
traffic:
  - {type: flows, flows: [{src: 0, dst: 1, size: 1KB}]}
faults:
  - {type: link_down, a: 0, b: 3, at: 1us}
)";
const char* kCioq = "topology: {type: star}\nswitch: {architecture: cioq}\n";

TEST(Params, EveryKeyTheReaderAcceptsIsListed) {
  const std::set<std::string> params = ParamKeysAndSections();
  size_t checked = 0;
  for (const char* text : {kShared, kCioq}) {
    for (const std::string& key : AcceptedKeys(Resolved(text))) {
      EXPECT_TRUE(params.count(key)) << key << " is accepted but missing from rocesim params";
      ++checked;
    }
  }
  EXPECT_GT(checked, 200u);  // the walk did open every section
}

TEST(Params, DefaultsAreTheReadersDefaults) {
  std::map<std::string, ResolvedSetting> by_key;
  for (const ResolvedSetting& p : ScenarioParams()) by_key[p.key] = p;
  EXPECT_EQ(by_key["duration"].value, "10ms");
  EXPECT_EQ(by_key["switch.ecn.kmin"].value, "5KB");
  EXPECT_EQ(by_key["switch.alpha"].value, "0.0625");
  EXPECT_EQ(by_key["switch.pfc.priorities"].value, "[3]");
  EXPECT_EQ(by_key["host.dcqcn.g"].value, FormatFraction(DcqcnPaperPreset().g));
  EXPECT_EQ(by_key["topology.type"].value, "(required)");
  EXPECT_EQ(by_key["traffic[].size"].value, "(required)");
  EXPECT_EQ(by_key["traffic[].priority"].value, "3");
  EXPECT_EQ(by_key["switch.cioq.input_queue_bytes"].value, "100KB");
  EXPECT_EQ(by_key["host.timely.min_rtt"].written, false);
  EXPECT_EQ(by_key["switch.ecn.kmin"].unit.substr(0, 4), "size");
  EXPECT_EQ(by_key["host.rto"].unit.substr(0, 4), "time");
}

// resolved.yaml read back resolves to itself: nothing written is lost or
// changed on the way through the reader.
TEST(Resolved, ExamplesResolveToAFixedPoint) {
  size_t n = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(ROCESIM_SOURCE_DIR) + "/examples")) {
    if (e.path().extension() != ".yaml" || e.path().filename().string().starts_with("sweep"))
      continue;
    SCOPED_TRACE(e.path().string());
    const Scenario sc = LoadScenario(e.path().string(), {}, std::nullopt);
    const std::string once = ResolvedScenarioYaml(sc);
    EXPECT_EQ(Resolved(once), once);
    ++n;
  }
  EXPECT_GT(n, 10u);
  for (const char* text : {kShared, kCioq}) EXPECT_EQ(Resolved(Resolved(text)), Resolved(text));
}

TEST(Resolved, PresetsAreWrittenAsTheirValues) {
  const std::string y = Resolved("topology: {type: star}\nhost: {dcqcn: {preset: hpcc-sim}}\n");
  EXPECT_EQ(y.find("preset"), std::string::npos);
  EXPECT_NE(y.find("signal: ack_ecn"), std::string::npos) << y;
  EXPECT_NE(y.find("increase_timer: 300us"), std::string::npos) << y;
}

using ParamsCli = test::CliTest;

TEST_F(ParamsCli, ParamsListsKeysWithDefaultsAndUnits) {
  const test::CliRun r = test::RunRocesimCli("params", dir_ + "log");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const ResolvedSetting& p : ScenarioParams())
    EXPECT_NE(r.output.find(p.key + " "), std::string::npos) << p.key;
  EXPECT_NE(r.output.find("size (B, KB"), std::string::npos);
}

TEST_F(ParamsCli, ResolvedYamlReproducesTheRun) {
  const std::string s = Write("s.yaml", R"(
name: resolved
topology: {type: star, hosts: 4}
duration: 300us
host: {cc: dcqcn, dcqcn: {preset: hpcc-sim}}
traffic:
  - {type: incast, senders: [1, 2, 3], receiver: 0, size: 50KB}
  - {type: poisson, load: 0.3, cdf: websearch, span: 100us, start: 10us}
)");
  RunInto("a", s, "--seed 7");
  RunInto("b", dir_ + "a/resolved.yaml", "");
  namespace fs = std::filesystem;
  for (const auto& e : fs::directory_iterator(dir_ + "a")) {
    const std::string n = e.path().filename().string();
    if (n == "scenario.yaml") continue;  // the input text: differs by design
    const std::string x = test::ReadFile(dir_ + "a/" + n), y = test::ReadFile(dir_ + "b/" + n);
    if (n == "summary.json") {
      auto jx = nlohmann::json::parse(x), jy = nlohmann::json::parse(y);
      jx.erase("run");
      jy.erase("run");
      EXPECT_EQ(jx.dump(2), jy.dump(2));
    } else {
      EXPECT_TRUE(x == y) << n << " differs";
    }
  }
}

TEST_F(ParamsCli, CheckBuildsWithoutRunning) {
  const std::string s = Write("s.yaml", R"(
topology: {type: fat_tree, k: 4}
traffic: [{type: permutation, size: 10KB}]
)");
  const test::CliRun r =
      test::RunRocesimCli("run '" + s + "' --check -o '" + dir_ + "r'", dir_ + "log");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("16 hosts, 20 switches, 48 links; 16 flows from 1 traffic entry"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("1 partition"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "r")) << "--check wrote results";
  const test::CliRun t = test::RunRocesimCli("run '" + s + "' --check --threads 2", dir_ + "log");
  ASSERT_EQ(t.exit_code, 0) << t.output;
  EXPECT_NE(t.output.find("partitions 2"), std::string::npos) << t.output;
  // An error the reader finds, and one only building finds (a fault on a
  // node the topology lacks).
  const std::string bad = Write("bad.yaml", "topology: {type: star}\nswitch: {alpha: -1}\n");
  EXPECT_EQ(test::RunRocesimCli("run '" + bad + "' --check", dir_ + "log").exit_code, 2);
  const std::string unbuildable =
      Write("u.yaml", "topology: {type: star}\nfaults: [{type: link_down, a: 0, b: 99, at: 0}]\n");
  const test::CliRun u = test::RunRocesimCli("run '" + unbuildable + "' --check", dir_ + "log");
  EXPECT_EQ(u.exit_code, 2) << u.output;
}

TEST_F(ParamsCli, UnknownCommandSuggestsTheClosest) {
  const test::CliRun r = test::RunRocesimCli("rnu x.yaml", dir_ + "log");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown command 'rnu'; did you mean 'run'?"), std::string::npos)
      << r.output;
  const test::CliRun p = test::RunRocesimCli("param", dir_ + "log");
  EXPECT_NE(p.output.find("did you mean 'params'?"), std::string::npos) << p.output;
}

TEST_F(ParamsCli, SeedMustBeANonNegativeInteger) {
  const std::string s = Write("s.yaml", "topology: {type: star}\nduration: 10us\n");
  for (const char* seed : {"-1", "18446744073709551616", "12abc", "''"}) {
    const test::CliRun r =
        test::RunRocesimCli("run '" + s + "' -o '" + dir_ + "r' --seed " + seed, dir_ + "log");
    EXPECT_EQ(r.exit_code, 2) << seed << ": " << r.output;
    EXPECT_NE(r.output.find("--seed: expected an integer from 0 to 18446744073709551615"),
              std::string::npos)
        << r.output;
  }
  RunInto("max", s, "--seed 18446744073709551615");
  EXPECT_EQ(nlohmann::json::parse(test::ReadFile(dir_ + "max/summary.json"))["seed"],
            18446744073709551615ull);
}

TEST_F(ParamsCli, VerboseShowsTheExpansion) {
  const std::string s = Write("s.yaml", R"(
topology: {type: star, hosts: 4}
duration: 50us
traffic: [{type: all_to_all, size: 1KB}]
)");
  const std::string out = RunInto("v", s, "-v", "", /*quiet=*/false);
  EXPECT_NE(out.find("4 hosts, 1 switch, 4 links"), std::string::npos) << out;
  EXPECT_NE(out.find("traffic[0] all_to_all: 12 flows, 12000 bytes"), std::string::npos) << out;
  EXPECT_NE(out.find("1 partition"), std::string::npos) << out;
  EXPECT_NE(test::RunRocesimCli("run '" + s + "' -q -v", dir_ + "log").exit_code, 0);
}

TEST_F(ParamsCli, NoCompletedFlowSaysNotApplicable) {
  const std::string s = Write("s.yaml", R"(
topology: {type: star}
duration: 5us
traffic: [{type: flows, flows: [{src: 0, dst: 1, size: 10MB}]}]
)");
  const std::string out = RunInto("r", s, "", "", /*quiet=*/false);
  EXPECT_NE(out.find("0/1 completed   slowdown n/a"), std::string::npos) << out;
  EXPECT_EQ(out.find("0.000"), std::string::npos) << out;
  const auto summary = nlohmann::json::parse(test::ReadFile(dir_ + "r/summary.json"));
  for (const char* stat : {"p50", "p95", "p99", "mean", "max"})
    EXPECT_TRUE(summary["slowdown"][stat].is_null()) << stat;
  EXPECT_TRUE(summary["slowdown_groups"]["mice"]["p99"].is_null());
  EXPECT_EQ(summary["slowdown_groups"]["mice"]["count"], 0);
}

TEST_F(ParamsCli, AckSignalledDcqcnSaysWhereItsSignalsGo) {
  const std::string base = R"(
topology: {type: star, hosts: 3}
duration: 100us
traffic: [{type: incast, senders: [1, 2], receiver: 0, size: 100KB}]
host: {cc: dcqcn, dcqcn: {preset: PRESET}}
)";
  const auto with = [&](const std::string& preset) {
    std::string text = base;
    text.replace(text.find("PRESET"), 6, preset);
    return RunInto(preset, Write(preset + ".yaml", text), "", "", /*quiet=*/false);
  };
  EXPECT_NE(with("hpcc-sim").find("congestion is signalled on ACKs, not CNPs"), std::string::npos);
  EXPECT_EQ(with("paper").find("signalled on ACKs"), std::string::npos);
}

}  // namespace
}  // namespace test_params_check
}  // namespace rocesim

namespace rocesim {
namespace test_params_check {
namespace {

TEST(UnitFormat, WritesTheLargestExactUnitAndParsesBack) {
  EXPECT_EQ(FormatTime(10 * kMillisecond), "10ms");
  EXPECT_EQ(FormatTime(1500 * kNanosecond), "1500ns");
  EXPECT_EQ(FormatTime(0), "0");
  EXPECT_EQ(FormatTime(7), "7ps");
  EXPECT_EQ(FormatRate(100'000'000'000), "100Gbps");
  EXPECT_EQ(FormatRate(615'000'000), "615Mbps");
  EXPECT_EQ(FormatSize(32'000'000), "32MB");
  EXPECT_EQ(FormatSize(4097), "4097B");
  EXPECT_EQ(FormatSize(0), "0B");
  for (Time t : {Time{1}, Time{999'999}, 3 * kSecond, Time{123'456'789'012}})
    EXPECT_EQ(ParseTime(FormatTime(t)), t);
  for (int64_t r : {int64_t{1}, int64_t{25'000'000'000}, int64_t{1'234'567}})
    EXPECT_EQ(ParseRate(FormatRate(r)), r);
  for (double f : {1.0 / 16, 1.0 / 3, 0.1, 1e-7, 0.95, 0.0})
    EXPECT_EQ(ParseFraction(FormatFraction(f)), f) << FormatFraction(f);
  EXPECT_EQ(FormatFraction(1e-7), "0.0000001");
}

}  // namespace
}  // namespace test_params_check
}  // namespace rocesim
