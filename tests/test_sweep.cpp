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

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sweep/sweep_results.h"
#include "sweep/sweep_spec.h"
#include "tests/sim_test_support.h"

namespace rocesim::sweep {
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
            "slowdown_p50,slowdown_p95,slowdown_p99,slowdown_mean,slowdown_p99_lt10KB,drops_total,"
            "pause_frames_sent,ecn_marks,cnps_sent,sim_seconds,events,cpu_seconds");
  EXPECT_EQ(lines[1],
            "0,p0000_switch.pfc.priorities=-3-,[3],hpcc,ok,2,2,1.5,2,2.25,1.75,2.25,0,7,3,1,1e-05,"
            "99,0.5");
  EXPECT_EQ(lines[2], "1,p0001_switch.pfc.priorities=-3--4-,\"[3, 4]\",hpcc,failed,,,,,,,,,,,,,,");
  EXPECT_EQ(lines[3], "2,p0002_host.cc=dcqcn,,dcqcn,not_run,,,,,,,,,,,,,,");

  // Outcomes survive the trip through JSON that MPI ranks send to rank 0.
  std::vector<PointOutcome> merged(3);
  MergeOutcomes(nlohmann::json::parse(OutcomesToJson(outcomes, {0, 1}).dump()), merged);
  EXPECT_EQ(SweepCsv(spec, pts, merged), SweepCsv(spec, pts, outcomes));
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
                                             "cpu_seconds"};
  EXPECT_EQ(header, expected);
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
    EXPECT_EQ(row[6], "2");                              // flows_total
    EXPECT_EQ(row[7], "2");                              // flows_completed
    EXPECT_GE(std::stod(row[10]), 1.0) << lines[i + 1];  // slowdown_p99
    EXPECT_GT(std::stoll(row[18]), 0) << lines[i + 1];   // events
  }
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
  EXPECT_NE(r.output.find("| rocesim: error: switch.buffer:"), std::string::npos) << r.output;
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
  const CliResult mpi = Run("sweep '" + sweep + "' --mpi -o '" + dir_ + "mpi'",
                            "mpirun --allow-run-as-root --oversubscribe -n 2 ");
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
  EXPECT_NE(r.output.find("slowdown_p99 vs host.cc (lines: traffic.0.size, seed)"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace rocesim::sweep
