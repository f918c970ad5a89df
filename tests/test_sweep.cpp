// Tests of `rocesim sweep` (src/sweep/, apps/sweep_command.cpp, docs/sweep.md):
// the grid expands to the documented points (count, order, values, names),
// combined with explicit points and `set:`; bad sweep files and bad point values
// are rejected with file:line:column before anything runs; a sweep run as child
// processes of $ROCESIM_BIN (set by ctest) writes one results directory per
// point and a sweep.csv with the documented columns in point order; a rerun
// skips finished points and reruns only a deleted one; a failing point is
// reported and makes the exit status 1; and 2 MPI ranks write the same
// sweep.csv as a local run (skipped without mpirun or an MPI build). Scenarios
// are a 3-host star with KB flows, so a point runs in milliseconds.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sweep/sweep_results.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_spec.h"
#include "tests/cli_test_support.h"
#include "tests/sim_test_support.h"

namespace rocesim::sweep {
namespace test_sweep {
namespace {

namespace fs = std::filesystem;

constexpr char kBase[] = R"(name: tiny
duration: 1ms
topology: {type: star, hosts: 3}
traffic:
  - {type: incast, senders: "1-2", receiver: 0, size: 4KB}
)";

using test::ReadFile;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> Split(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, ',');) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.push_back("");
  return out;
}

class SweepTestBase : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = ::testing::TempDir() + "rocesim_sweep_" + info->test_suite_name() + "_" + info->name() +
           "_" + std::to_string(::getpid()) + "/";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    Write("base.yaml", kBase);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + name) << text;
    return dir_ + name;
  }
  SweepSpec Parse(const std::string& text) { return ParseSweepText(text, "sweep.yaml", dir_); }
  // The SweepError message for `text` (parse, expand and validate).
  std::string Error(const std::string& text) {
    try {
      const SweepSpec spec = Parse(text);
      ValidatePoints(spec, ExpandPoints(spec));
    } catch (const SweepError& e) {
      return e.what();
    }
    ADD_FAILURE() << "accepted:\n" << text;
    return "";
  }
  std::string dir_;
};

using SweepSpecTest = SweepTestBase;

TEST_F(SweepSpecTest, GridIsTheCartesianProductFirstKeyOutermost) {
  const SweepSpec spec = Parse(R"(base: base.yaml
grid:
  host.cc: [dcqcn, hpcc]
  traffic.0.size: [4KB, 8KB, 16KB]
  seed: [1, 2]
)");
  EXPECT_EQ(spec.base, (fs::path(dir_) / "base.yaml").lexically_normal().string());
  const std::vector<SweepPoint> pts = ExpandPoints(spec);
  ASSERT_EQ(pts.size(), 12u);
  std::vector<std::string> got;
  for (const SweepPoint& p : pts) {
    std::string s;
    for (const Setting& v : p.settings) s += v.label + " ";
    got.push_back(s);
  }
  EXPECT_EQ(got[0], "dcqcn 4KB 1 ");
  EXPECT_EQ(got[1], "dcqcn 4KB 2 ");
  EXPECT_EQ(got[2], "dcqcn 8KB 1 ");
  EXPECT_EQ(got[5], "dcqcn 16KB 2 ");
  EXPECT_EQ(got[6], "hpcc 4KB 1 ");
  EXPECT_EQ(got[11], "hpcc 16KB 2 ");
  for (size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(pts[i].index, i);
  EXPECT_EQ(pts[3].name, "p0003_host.cc=dcqcn_traffic.0.size=8KB_seed=2");
  EXPECT_EQ(ParameterKeys(spec), (std::vector<std::string>{"host.cc", "traffic.0.size", "seed"}));
  EXPECT_NO_THROW(ValidatePoints(spec, pts));
}

TEST_F(SweepSpecTest, PointsFollowTheGridAndSetComesFirst) {
  const SweepSpec spec = Parse(R"(base: base.yaml
set: {duration: 2ms, host.cc: timely}
grid:
  host.cc: [dcqcn, hpcc]
points:
  - {host.cc: dctcp, switch.pfc.priorities: [3, 4]}
  - {}
)");
  const std::vector<SweepPoint> pts = ExpandPoints(spec);
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(OverrideArgs(spec, pts[0]),
            (std::vector<std::string>{"duration=2ms", "host.cc=timely", "host.cc=dcqcn"}));
  EXPECT_EQ(OverrideArgs(spec, pts[2]),
            (std::vector<std::string>{"duration=2ms", "host.cc=timely", "host.cc=dctcp",
                                      "switch.pfc.priorities=[3, 4]"}));
  EXPECT_EQ(OverrideArgs(spec, pts[3]),
            (std::vector<std::string>{"duration=2ms", "host.cc=timely"}));
  EXPECT_EQ(pts[2].name, "p0002_host.cc=dctcp_switch.pfc.priorities=-3--4-");
  EXPECT_EQ(pts[3].name, "p0003");
  // Grid keys, then keys only explicit points set; `set:` keys are not swept.
  EXPECT_EQ(ParameterKeys(spec), (std::vector<std::string>{"host.cc", "switch.pfc.priorities"}));
  EXPECT_NO_THROW(ValidatePoints(spec, pts));

  const SweepSpec only_points = Parse("base: base.yaml\npoints: [{seed: 5}]\n");
  ASSERT_EQ(ExpandPoints(only_points).size(), 1u);
  EXPECT_EQ(ExpandPoints(only_points)[0].name, "p0000_seed=5");
}

TEST_F(SweepSpecTest, PointNamesAreSanitisedAndPadded) {
  Setting load{"traffic.0.load", "30%", "30%", {}, {}};
  Setting alpha{"switch.alpha", "1/16", "1/16", {}, {}};
  EXPECT_EQ(PointName(7, 4, {load, alpha}), "p0007_traffic.0.load=30pct_switch.alpha=1-16");
  EXPECT_EQ(PointName(12345, 4, {}), "p12345");
  Setting long_value{"name", "x", std::string(300, 'x'), {}, {}};
  EXPECT_LE(PointName(1, 4, {long_value}).size(), 110u);
}

TEST_F(SweepSpecTest, BadSweepFilesGiveFileLineColumn) {
  EXPECT_EQ(Error("base: base.yaml\ngird:\n  seed: [1]\n"),
            "sweep.yaml:2:1: unknown key 'gird'; did you mean 'grid'?");
  EXPECT_EQ(Error("base: base.yaml\ngrid:\n  host.cc: dcqcn\n"),
            "sweep.yaml:3:12: grid.host.cc: expected a list of values like [a, b], got \"dcqcn\"");
  EXPECT_EQ(Error("base: base.yaml\ngrid: {seed: []}\n"),
            "sweep.yaml:2:14: grid.seed: expected at least one value, got an empty list");
  EXPECT_EQ(Error("base: nope.yaml\ngrid: {seed: [1]}\n")
                .rfind("sweep.yaml:1:7: base: cannot open "
                       "scenario file",
                       0),
            0u);
  EXPECT_EQ(
      Error("base: base.yaml\npoints: [3]\n").rfind("sweep.yaml:2:10: points.0: expected a map", 0),
      0u);
  EXPECT_EQ(Error("base: base.yaml\npoints: [{seed: 1, seed: 2}]\n"),
            "sweep.yaml:2:20: points.0: key 'seed' appears twice");
  EXPECT_EQ(
      Error("base: base.yaml\npoints: [{a=b: 1}]\n").rfind("sweep.yaml:2:11: points.0: 'a=b'", 0),
      0u);
  EXPECT_EQ(
      Error("base: base.yaml\ngrid: {seed: [1, 2}\n").rfind("sweep.yaml:2:19: invalid YAML", 0),
      0u);
  EXPECT_EQ(Error("base: base.yaml\n").rfind("sweep.yaml:1:1: nothing to sweep", 0), 0u);
  EXPECT_EQ(Error("grid: {seed: [1]}\n").rfind("sweep.yaml:1:1: missing required key 'base'", 0),
            0u);
}

// A bad value fails validation naming its position in the sweep file, the point
// and the scenario reader's complaint; an unknown key points at the key.
TEST_F(SweepSpecTest, BadPointValuesNameThePointAndKey) {
  const std::string value = Error("base: base.yaml\ngrid:\n  host.cc: [dcqcn, hpccc]\n");
  EXPECT_EQ(value.rfind("sweep.yaml:3:20: point p0001_host.cc=hpccc: ", 0), 0u) << value;
  EXPECT_NE(value.find("(from --set host.cc=hpccc): host.cc: expected one of"), std::string::npos)
      << value;
  EXPECT_NE(value.find("did you mean 'hpcc'?"), std::string::npos) << value;

  const std::string key = Error("base: base.yaml\npoints:\n  - {host.ccc: dcqcn}\n");
  EXPECT_EQ(key.rfind("sweep.yaml:3:6: point p0000_host.ccc=dcqcn: ", 0), 0u) << key;
  EXPECT_NE(key.find("unknown key 'ccc'; did you mean 'cc'?"), std::string::npos) << key;

  const std::string set = Error("base: base.yaml\nset: {duration: 1parsec}\ngrid: {seed: [1]}\n");
  EXPECT_EQ(set.rfind("sweep.yaml:2:17: point p0000_seed=1: ", 0), 0u) << set;
}

using SweepCsvTest = SweepTestBase;

TEST_F(SweepCsvTest, RowsInPointOrderWithParametersStatusAndResults) {
  const SweepSpec spec = Parse(R"(base: base.yaml
set: {host.cc: hpcc}
grid:
  switch.pfc.priorities: [[3], [3, 4]]
points:
  - {host.cc: dcqcn}
)");
  const std::vector<SweepPoint> pts = ExpandPoints(spec);
  ASSERT_EQ(pts.size(), 3u);
  nlohmann::json summary = {
      {"flows", {{"total", 2}, {"completed", 2}}},
      {"slowdown", {{"p50", 1.5}, {"p95", 2}, {"p99", 2.25}, {"mean", 1.75}}},
      {"slowdown_groups",
       {{"by_size",
         {{"<10KB", {{"count", 2}, {"p99", 2.25}}}, {"10KB-100KB", {{"count", 0}, {"p99", 0}}}}}}},
      {"drops", {{"total", 0}}},
      {"pfc", {{"pause_frames_sent", 7}}},
      {"ecn_marks", 3},
      {"cnps_sent", 1},
      {"sim_seconds", 1e-05},
      {"events", 99},
      {"run", {{"cpu_seconds", 0.5}}}};
  std::vector<PointOutcome> outcomes(3);
  outcomes[0] = {PointStatus::kOk, SummaryRow(summary)};
  outcomes[1].status = PointStatus::kFailed;
  const std::vector<std::string> lines = Lines(SweepCsv(spec, pts, outcomes));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "point,dir,switch.pfc.priorities,host.cc,status,flows_total,flows_completed,"
            "flows_incomplete,flows_incomplete_fraction,slowdown_p50,slowdown_p95,slowdown_p99,"
            "slowdown_mean,slowdown_p99_lt10KB,drops_total,pause_frames_sent,ecn_marks,cnps_sent,"
            "sim_seconds,events,seeds,flows_incomplete_fraction_mean,"
            "flows_incomplete_fraction_ci95,slowdown_p50_mean,slowdown_p50_ci95,"
            "slowdown_p95_mean,slowdown_p95_ci95,slowdown_p99_mean,slowdown_p99_ci95,"
            "slowdown_mean_mean,slowdown_mean_ci95,slowdown_p99_lt10KB_mean,"
            "slowdown_p99_lt10KB_ci95,drops_total_mean,drops_total_ci95,pause_frames_sent_mean,"
            "pause_frames_sent_ci95,ecn_marks_mean,ecn_marks_ci95,cnps_sent_mean,cnps_sent_ci95,"
            "cpu_seconds");
  // One seed per point: the mean is the value and there is no interval.
  EXPECT_EQ(lines[1],
            "0,p0000_switch.pfc.priorities=-3-,[3],hpcc,ok,2,2,0,0,1.5,2,2.25,1.75,2.25,0,7,3,1,"
            "1e-05,99,1,0,,1.5,,2,,2.25,,1.75,,2.25,,0,,7,,3,,1,,0.5");
  const std::string empty_results(15, ','), empty_statistics(20, ',');
  EXPECT_EQ(lines[2], "1,p0001_switch.pfc.priorities=-3--4-,\"[3, 4]\",hpcc,failed" +
                          empty_results + ",0" + empty_statistics + ",");
  EXPECT_EQ(lines[3],
            "2,p0002_host.cc=dcqcn,,dcqcn,not_run" + empty_results + ",0" + empty_statistics + ",");

  // Outcomes survive the trip through JSON that MPI ranks send to rank 0.
  std::vector<PointOutcome> merged(3);
  MergeOutcomes(nlohmann::json::parse(OutcomesToJson(outcomes, {0, 1}).dump()), merged);
  EXPECT_EQ(SweepCsv(spec, pts, merged), SweepCsv(spec, pts, outcomes));
}

// The cells of column `name` of a CSV table, one per data row.
std::vector<std::string> ColumnOf(const std::vector<std::string>& lines, const std::string& name) {
  const std::vector<std::string> header = Split(lines.at(0));
  const auto it = std::find(header.begin(), header.end(), name);
  EXPECT_NE(it, header.end()) << "no column " << name << " in " << lines.at(0);
  std::vector<std::string> out;
  if (it == header.end()) return out;
  for (size_t i = 1; i < lines.size(); ++i) out.push_back(Split(lines[i]).at(it - header.begin()));
  return out;
}

nlohmann::json Summary(int total, int completed, double p99, int drops) {
  return {{"flows", {{"total", total}, {"completed", completed}}},
          {"slowdown", {{"p50", 1}, {"p95", p99}, {"p99", p99}, {"mean", 1}}},
          {"drops", {{"total", drops}}},
          {"pfc", {{"pause_frames_sent", 0}}},
          {"ecn_marks", 0},
          {"cnps_sent", 0},
          {"sim_seconds", 0.001},
          {"events", 10},
          {"run", {{"cpu_seconds", 0.1}}}};
}

// Points that differ only in their seed are one point repeated: each row
// carries the mean and Student-t 95% half-width over the group, computed by
// hand here.
TEST_F(SweepCsvTest, MeanAndConfidenceIntervalOverSeeds) {
  const SweepSpec spec = Parse(R"(base: base.yaml
grid:
  traffic.0.load: [30%, 50%]
  seed: [1, 2, 3]
)");
  const std::vector<SweepPoint> pts = ExpandPoints(spec);
  ASSERT_EQ(pts.size(), 6u);
  std::vector<PointOutcome> outcomes(6);
  // 30%: p99 slowdowns 2, 3, 7; incomplete fractions 1/4, 0, 2/4.
  outcomes[0] = {PointStatus::kOk, SummaryRow(Summary(4, 3, 2, 10))};
  outcomes[1] = {PointStatus::kOk, SummaryRow(Summary(4, 4, 3, 14))};
  outcomes[2] = {PointStatus::kOk, SummaryRow(Summary(4, 2, 7, 0))};
  // 50%: one seed failed, one completed no flow (its slowdown is not a
  // number and must not enter the mean), one ok.
  outcomes[3].status = PointStatus::kFailed;
  outcomes[4] = {PointStatus::kOk, SummaryRow(Summary(4, 0, 0, 5))};
  outcomes[5] = {PointStatus::kOk, SummaryRow(Summary(4, 4, 5, 7))};
  const std::vector<std::string> lines = Lines(SweepCsv(spec, pts, outcomes));
  ASSERT_EQ(lines.size(), 7u);

  // Percentages are numbers.
  EXPECT_EQ(ColumnOf(lines, "traffic.0.load"),
            (std::vector<std::string>{"0.3", "0.3", "0.3", "0.5", "0.5", "0.5"}));
  EXPECT_EQ(ColumnOf(lines, "flows_incomplete"),
            (std::vector<std::string>{"1", "0", "2", "", "4", "0"}));
  EXPECT_EQ(ColumnOf(lines, "flows_incomplete_fraction"),
            (std::vector<std::string>{"0.25", "0", "0.5", "", "1", "0"}));
  EXPECT_EQ(ColumnOf(lines, "slowdown_p99"),
            (std::vector<std::string>{"2.0", "3.0", "7.0", "", "", "5.0"}));
  EXPECT_EQ(ColumnOf(lines, "seeds"), (std::vector<std::string>{"3", "3", "3", "2", "2", "2"}));

  // 30%: mean (2+3+7)/3 = 4; s = sqrt((4+1+9)/2) = sqrt(7); t(0.975, 2) =
  // 4.302652730; half-width 4.302652730 * sqrt(7) / sqrt(3) = 6.572410608.
  const std::vector<std::string> mean = ColumnOf(lines, "slowdown_p99_mean");
  const std::vector<std::string> ci = ColumnOf(lines, "slowdown_p99_ci95");
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(mean[i], "4");
    EXPECT_NEAR(std::stod(ci[i]), 6.572410608, 1e-8);
  }
  // 50%: only one seed has a slowdown: its value, no interval.
  for (size_t i = 3; i < 6; ++i) {
    EXPECT_EQ(mean[i], "5");
    EXPECT_EQ(ci[i], "");
  }
  // Incomplete fraction at 30%: mean 0.25, s = 0.25, 4.302652730 * 0.25 /
  // sqrt(3) = 0.621034428. At 50%: 1 and 0, mean 0.5, s = sqrt(0.5),
  // t(0.975, 1) = 12.70620474, half-width 12.70620474 * 0.5 = 6.35310237.
  const std::vector<std::string> frac_mean = ColumnOf(lines, "flows_incomplete_fraction_mean");
  const std::vector<std::string> frac_ci = ColumnOf(lines, "flows_incomplete_fraction_ci95");
  EXPECT_EQ(frac_mean[0], "0.25");
  EXPECT_NEAR(std::stod(frac_ci[0]), 0.621034428, 1e-8);
  EXPECT_EQ(frac_mean[4], "0.5");
  EXPECT_NEAR(std::stod(frac_ci[4]), 6.35310237, 1e-7);
  // Drops 10, 14, 0 -> mean 8; 5, 7 -> mean 6, half-width 12.70620474 * 1.
  EXPECT_EQ(ColumnOf(lines, "drops_total_mean")[1], "8");
  EXPECT_EQ(ColumnOf(lines, "drops_total_mean")[5], "6");
  EXPECT_NEAR(std::stod(ColumnOf(lines, "drops_total_ci95")[5]), 12.70620474, 1e-7);
  // cpu_seconds stays the last column.
  EXPECT_EQ(Split(lines[0]).back(), "cpu_seconds");
}

// ---------------------------------------------------------------------------
// The command line, as child processes of $ROCESIM_BIN.

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

class SweepCliTest : public SweepTestBase {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("ROCESIM_BIN");
    if (bin == nullptr) GTEST_SKIP() << "ROCESIM_BIN not set (run via ctest)";
    bin_ = bin;
    SweepTestBase::SetUp();
  }
  CliResult Run(const std::string& args, const std::string& prefix = "") {
    const std::string out = dir_ + "cli_output.txt";
    const std::string cmd = prefix + "'" + bin_ + "' " + args + " >'" + out + "' 2>&1 </dev/null";
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.output = ReadFile(out);
    if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    return r;
  }
  // A 2 x 2 grid plus one explicit point, all tiny.
  std::string WriteSweep() {
    return Write("sweep.yaml", R"(base: base.yaml
grid:
  host.cc: [dcqcn, hpcc]
  traffic.0.size: [4KB, 8KB]
points:
  - {seed: 7}
set: {duration: 2ms}
)");
  }
  int64_t Mtime(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return -1;
    return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  }
  std::string bin_;
};

const std::vector<std::string> kPointDirs = {
    "p0000_host.cc=dcqcn_traffic.0.size=4KB", "p0001_host.cc=dcqcn_traffic.0.size=8KB",
    "p0002_host.cc=hpcc_traffic.0.size=4KB", "p0003_host.cc=hpcc_traffic.0.size=8KB",
    "p0004_seed=7"};

TEST_F(SweepCliTest, RunsEveryPointAndWritesSweepCsv) {
  const std::string sweep = WriteSweep();
  const CliResult r = Run("sweep '" + sweep + "' -j 2 -o '" + dir_ + "out'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("5/5 points ok"), std::string::npos) << r.output;
  for (const std::string& d : kPointDirs) {
    EXPECT_TRUE(fs::exists(dir_ + "out/" + d + "/summary.json")) << d;
    EXPECT_TRUE(fs::exists(dir_ + "out/" + d + "/scenario.yaml")) << d;
    EXPECT_TRUE(fs::exists(dir_ + "out/" + d + "/sweep_point.json")) << d;
    // The run's staging directory was moved into place, its empty log removed.
    EXPECT_FALSE(fs::exists(dir_ + "out/." + d + ".partial")) << d;
    EXPECT_FALSE(fs::exists(dir_ + "out/" + d + ".log")) << d;
  }
  // The override reached the point's scenario.
  EXPECT_NE(ReadFile(dir_ + "out/" + kPointDirs[3] + "/scenario.yaml").find("hpcc"),
            std::string::npos);

  const std::vector<std::string> lines = Lines(ReadFile(dir_ + "out/sweep.csv"));
  ASSERT_EQ(lines.size(), 6u);
  const std::vector<std::string> header = Split(lines[0]);
  const std::vector<std::string> expected = {"point",
                                             "dir",
                                             "host.cc",
                                             "traffic.0.size",
                                             "seed",
                                             "status",
                                             "flows_total",
                                             "flows_completed",
                                             "flows_incomplete",
                                             "flows_incomplete_fraction",
                                             "slowdown_p50",
                                             "slowdown_p95",
                                             "slowdown_p99",
                                             "slowdown_mean",
                                             "slowdown_p99_lt10KB",
                                             "drops_total",
                                             "pause_frames_sent",
                                             "ecn_marks",
                                             "cnps_sent",
                                             "sim_seconds",
                                             "events",
                                             "seeds"};
  ASSERT_GT(header.size(), expected.size());
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + expected.size()), expected);
  EXPECT_EQ(header.back(), "cpu_seconds");
  const std::vector<std::vector<std::string>> params = {{"dcqcn", "4KB", ""},
                                                        {"dcqcn", "8KB", ""},
                                                        {"hpcc", "4KB", ""},
                                                        {"hpcc", "8KB", ""},
                                                        {"", "", "7"}};
  for (size_t i = 0; i < 5; ++i) {
    const std::vector<std::string> row = Split(lines[i + 1]);
    ASSERT_EQ(row.size(), header.size()) << lines[i + 1];
    EXPECT_EQ(row[0], std::to_string(i));
    EXPECT_EQ(row[1], kPointDirs[i]);
    EXPECT_EQ((std::vector<std::string>{row[2], row[3], row[4]}), params[i]);
    EXPECT_EQ(row[5], "ok");
  }
  EXPECT_EQ(ColumnOf(lines, "flows_total"), std::vector<std::string>(5, "2"));
  EXPECT_EQ(ColumnOf(lines, "flows_completed"), std::vector<std::string>(5, "2"));
  EXPECT_EQ(ColumnOf(lines, "flows_incomplete"), std::vector<std::string>(5, "0"));
  // No point repeats another over seeds: one seed each, the mean is the value.
  EXPECT_EQ(ColumnOf(lines, "seeds"), std::vector<std::string>(5, "1"));
  const std::vector<std::string> p99s = ColumnOf(lines, "slowdown_p99");
  const std::vector<std::string> means = ColumnOf(lines, "slowdown_p99_mean");
  ASSERT_EQ(means.size(), p99s.size());
  for (size_t i = 0; i < p99s.size(); ++i) EXPECT_EQ(std::stod(means[i]), std::stod(p99s[i]));
  for (const std::string& p99 : ColumnOf(lines, "slowdown_p99")) EXPECT_GE(std::stod(p99), 1.0);
  for (const std::string& events : ColumnOf(lines, "events")) EXPECT_GT(std::stoll(events), 0);
}

TEST_F(SweepCliTest, RerunSkipsFinishedPointsAndRerunsOnlyADeletedOne) {
  const std::string sweep = WriteSweep();
  const std::string args = "sweep '" + sweep + "' -j 2 -o '" + dir_ + "out'";
  ASSERT_EQ(Run(args).exit_code, 0);
  const std::string csv = ReadFile(dir_ + "out/sweep.csv");
  std::map<std::string, int64_t> mtimes;
  for (const std::string& d : kPointDirs) mtimes[d] = Mtime(dir_ + "out/" + d + "/summary.json");

  const CliResult again = Run(args);
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("all 5 points already done"), std::string::npos) << again.output;
  for (const std::string& d : kPointDirs)
    EXPECT_EQ(Mtime(dir_ + "out/" + d + "/summary.json"), mtimes[d]) << d;

  fs::remove_all(dir_ + "out/" + kPointDirs[2]);
  // A killed run's leftovers (its staging directory) are not mistaken for results.
  const std::string staging = dir_ + "out/." + kPointDirs[2] + ".partial";
  fs::create_directories(staging);
  std::ofstream(staging + "/summary.json") << "{}";
  const CliResult third = Run(args);
  ASSERT_EQ(third.exit_code, 0) << third.output;
  EXPECT_NE(third.output.find("4 already done, running 1"), std::string::npos) << third.output;
  EXPECT_NE(third.output.find(kPointDirs[2] + " ok"), std::string::npos) << third.output;
  for (const std::string& d : kPointDirs) {
    if (d == kPointDirs[2]) continue;
    EXPECT_EQ(Mtime(dir_ + "out/" + d + "/summary.json"), mtimes[d]) << d;
  }
  EXPECT_TRUE(fs::exists(dir_ + "out/" + kPointDirs[2] + "/summary.json"));
  EXPECT_FALSE(fs::exists(staging));
  // Same rows (cpu_seconds aside: the last column).
  const auto strip = [](const std::string& text) {
    std::string out;
    for (const std::string& l : Lines(text)) out += l.substr(0, l.rfind(',')) + "\n";
    return out;
  };
  EXPECT_EQ(strip(ReadFile(dir_ + "out/sweep.csv")), strip(csv));
}

TEST_F(SweepCliTest, FailingPointIsReportedAndOthersStillRun) {
  // 10KB cannot hold the switch's headroom: the scenario validates, the run fails.
  const std::string sweep = Write("sweep.yaml", R"(base: base.yaml
grid:
  switch.buffer: [10KB, 1MB]
)");
  const CliResult r = Run("sweep '" + sweep + "' -j 1 -o '" + dir_ + "out'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("p0000_switch.buffer=10KB FAILED: exit status 2"), std::string::npos)
      << r.output;
  EXPECT_NE(
      r.output.find("(from --set switch.buffer=10KB): switch.buffer: 10000 bytes is too small"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("1 failed"), std::string::npos) << r.output;
  const std::vector<std::string> lines = Lines(ReadFile(dir_ + "out/sweep.csv"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(Split(lines[1])[3], "failed");
  EXPECT_EQ(Split(lines[2])[3], "ok");
  EXPECT_NE(ReadFile(dir_ + "out/p0000_switch.buffer=10KB.log").find("switch.buffer"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ + "out/p0000_switch.buffer=10KB"));
}

TEST_F(SweepCliTest, BadPointFailsBeforeAnythingRuns) {
  const std::string sweep = Write("sweep.yaml", R"(base: base.yaml
grid:
  host.cc: [dcqcn, hpccc]
)");
  const CliResult r = Run("sweep '" + sweep + "' -o '" + dir_ + "out'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("sweep.yaml:3:20: point p0001_host.cc=hpccc:"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ + "out"));
}

// `mpirun -n 2 rocesim sweep --mpi` writes the sweep.csv a local run writes.
TEST_F(SweepCliTest, MpiRanksGiveTheSameSweepCsv) {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  const std::string sweep = WriteSweep();
  const CliResult probe = Run("sweep '" + sweep + "' --mpi --dry-run");
  if (probe.output.find("without MPI support") != std::string::npos)
    GTEST_SKIP() << "rocesim built without MPI";

  ASSERT_EQ(Run("sweep '" + sweep + "' -j 2 -o '" + dir_ + "local'").exit_code, 0);
  // MpirunPrefix: root's flag only as root, and the sanitizer pass's rank options.
  const CliResult mpi =
      Run("sweep '" + sweep + "' --mpi -o '" + dir_ + "mpi'", test::MpirunPrefix(2));
  ASSERT_EQ(mpi.exit_code, 0) << mpi.output;
  EXPECT_NE(mpi.output.find("rank 1/2:"), std::string::npos) << mpi.output;
  const auto strip = [](const std::string& text) {
    std::string out;
    for (const std::string& l : Lines(text)) out += l.substr(0, l.rfind(',')) + "\n";
    return out;
  };
  const std::string local = strip(ReadFile(dir_ + "local/sweep.csv"));
  EXPECT_EQ(Lines(local).size(), 6u);
  EXPECT_EQ(strip(ReadFile(dir_ + "mpi/sweep.csv")), local);
}

// The ranks of `mpirun rocesim sweep --mpi` meet after reading the sweep
// (apps/rank_agreement.h): rank 1 alone given a bad sweep file says why
// and ends the job with exit 2 (until the twenty-fourth session it
// returned silently, and rank 0 waited for it forever); two ranks given the
// same bad file say it once; ranks whose sweeps have other points are
// refused.
TEST_F(SweepCliTest, MpiRanksAgreeOnTheSweepBeforeRunning) {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  const std::string sweep = WriteSweep();
  if (Run("sweep '" + sweep + "' --mpi --dry-run").output.find("without MPI support") !=
      std::string::npos)
    GTEST_SKIP() << "rocesim built without MPI";
  const std::string bad = Write("bad.yaml", "base: base.yaml\ngrid:\n  host.cc: [dcqcn, hpccc]\n");
  const std::string other = Write("other.yaml", "base: base.yaml\ngrid:\n  host.cc: [dcqcn]\n");
  const auto two_ranks = [&](const std::string& first, const std::string& second) {
    return Run("sweep '" + second + "' --mpi -o '" + dir_ + "out'",
               "timeout 120 " + test::MpirunPrefix(1) + "'" + bin_ + "' sweep '" + first +
                   "' --mpi -o '" + dir_ + "out' : " + test::MpirunContext(1));
  };
  const auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  CliResult r = two_ranks(sweep, bad);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(count(r.output, "rocesim: error:"), 1) << r.output;
  EXPECT_NE(r.output.find("bad.yaml:3:20: point p0001_host.cc=hpccc:"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ + "out"));
  r = Run("sweep '" + bad + "' --mpi -o '" + dir_ + "out'", "timeout 120 " + test::MpirunPrefix(2));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(count(r.output, "rocesim: error:"), 1) << r.output;
  r = two_ranks(sweep, other);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("ranks 0 and 1 differ in their point count: 5 against 1; every rank "
                          "must read the same sweep file"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ + "out/sweep.csv"));
}

// `rocesim compare` reads sweep.csv's parameter columns and draws the sweep plot.
TEST_F(SweepCliTest, CompareReadsSweepCsv) {
  // The interpreters `rocesim compare` tries (apps/python_tool.cpp).
  std::vector<std::string> pythons = {"python3", "/usr/bin/python3", "/usr/local/bin/python3"};
  if (const char* py = std::getenv("ROCESIM_PYTHON"); py != nullptr && *py != '\0') pythons = {py};
  bool have_python = false;
  for (const std::string& py : pythons) {
    const std::string cmd = "'" + py + "' -c 'import matplotlib, numpy' >/dev/null 2>&1";
    have_python = have_python || std::system(cmd.c_str()) == 0;
  }
  if (!have_python) GTEST_SKIP() << "no python3 with matplotlib and numpy";
  const std::string sweep = WriteSweep();
  ASSERT_EQ(Run("sweep '" + sweep + "' -j 2 -o '" + dir_ + "out'").exit_code, 0);
  const CliResult r = Run("compare '" + dir_ + "out'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The seed is what repeats a point, not a line of its own.
  EXPECT_NE(r.output.find("slowdown_p99 vs host.cc (lines: traffic.0.size), mean and 95% CI over "
                          "seeds"),
            std::string::npos)
      << r.output;
}

// Two seeds per point: sweep.csv has the mean and interval, and `rocesim
// compare` plots and tabulates them (one table row per point, seeds merged).
TEST_F(SweepCliTest, CompareShowsMeanAndIntervalOverSeeds) {
  std::vector<std::string> pythons = {"python3", "/usr/bin/python3", "/usr/local/bin/python3"};
  if (const char* py = std::getenv("ROCESIM_PYTHON"); py != nullptr && *py != '\0') pythons = {py};
  bool have_python = false;
  for (const std::string& py : pythons) {
    const std::string cmd = "'" + py + "' -c 'import matplotlib, numpy' >/dev/null 2>&1";
    have_python = have_python || std::system(cmd.c_str()) == 0;
  }
  if (!have_python) GTEST_SKIP() << "no python3 with matplotlib and numpy";
  // Poisson traffic, so seeds differ.
  Write("poisson.yaml", R"(name: tiny-poisson
duration: 20ms
topology: {type: star, hosts: 8}
traffic:
  - {type: poisson, load: 30%, cdf: websearch, span: 1ms}
)");
  const std::string sweep = Write("sweep.yaml", R"(base: poisson.yaml
grid:
  traffic.0.load: [20%, 40%]
  seed: [1, 2]
)");
  ASSERT_EQ(Run("sweep '" + sweep + "' -j 2 -o '" + dir_ + "out'").exit_code, 0);
  const std::vector<std::string> lines = Lines(ReadFile(dir_ + "out/sweep.csv"));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(ColumnOf(lines, "traffic.0.load"),
            (std::vector<std::string>{"0.2", "0.2", "0.4", "0.4"}));
  EXPECT_EQ(ColumnOf(lines, "seeds"), std::vector<std::string>(4, "2"));
  // The mean of the two seeds' values, on both rows of the point.
  const std::vector<std::string> p99 = ColumnOf(lines, "slowdown_p99");
  const std::vector<std::string> mean = ColumnOf(lines, "slowdown_p99_mean");
  EXPECT_NEAR(std::stod(mean[0]), (std::stod(p99[0]) + std::stod(p99[1])) / 2, 1e-12);
  EXPECT_EQ(mean[1], mean[0]);
  EXPECT_FALSE(ColumnOf(lines, "slowdown_p99_ci95")[0].empty());

  const CliResult r = Run("compare '" + dir_ + "out'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("slowdown_p99 vs traffic.0.load, mean and 95% CI over seeds"),
            std::string::npos)
      << r.output;
  const std::string page = ReadFile(dir_ + "out/compare/compare.html");
  EXPECT_NE(page.find("\u00b1"), std::string::npos);  // mean ± interval cells
  EXPECT_TRUE(fs::exists(dir_ + "out/compare/sweep_out.png"));
}

// Without -j, the workers times each point's threads fill the usable
// cores without outnumbering them (at least one worker).
TEST(SweepWorkers, DefaultFillsTheCoresWithoutOversubscribing) {
  EXPECT_EQ(DefaultWorkers(8, 1), 8);
  EXPECT_EQ(DefaultWorkers(8, 2), 4);
  EXPECT_EQ(DefaultWorkers(8, 3), 2);
  EXPECT_EQ(DefaultWorkers(2, 2), 1);
  EXPECT_EQ(DefaultWorkers(2, 4), 1);
  EXPECT_EQ(DefaultWorkers(1, 1), 1);
  EXPECT_EQ(DefaultWorkers(16, 0), 16);  // a count below 1 counts as 1
}

}  // namespace
}  // namespace test_sweep
}  // namespace rocesim::sweep
