// A run owns its results directory (issues #18, #19, #20), from the command
// line: it refuses a directory that holds other results unless --force, and
// replaces it only once the new results are complete; a second run into the
// same directory at the same time is refused; Ctrl-C ends a run cleanly with
// partial, well-formed results; summary.json says which build made them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/build_info.h"
#include "core/dir_lock.h"
#include "tests/cli_test_support.h"

extern char** environ;

namespace rocesim {
namespace test_results_dir {
namespace {

namespace fs = std::filesystem;
using test::CliRun;
using test::HaveMpirun;
using test::MpirunPrefix;
using test::RunRocesimCli;

// A small run with every monitor file (a few hundred ms of wall time).
constexpr char kSmall[] = R"(name: small
seed: 1
duration: 1ms
topology:
  type: star
  hosts: 5
  host_link: {rate: 100Gbps, delay: 1us}
switch:
  buffer: 12MB
  pfc: {enabled: true, priorities: [3]}
host: {mtu: 1000B, cc: dcqcn}
traffic:
  - {type: incast, senders: "1-4", receiver: 0, size: 200KB, start: 10us, priority: 3}
monitors: {interval: 10us}
)";

// A run far longer than any test waits for: it ends only by a signal.
constexpr char kLong[] = R"(name: long
seed: 1
duration: 500ms
topology:
  type: star
  hosts: 9
  host_link: {rate: 100Gbps, delay: 1us}
switch:
  buffer: 12MB
  pfc: {enabled: true, priorities: [3]}
host: {mtu: 1000B, cc: none}
traffic:
  - {type: incast, senders: "1-8", receiver: 0, size: 1GB, start: 10us, priority: 3}
monitors: {interval: 1us}
)";

nlohmann::json Summary(const std::string& dir) {
  return nlohmann::json::parse(test::ReadFile(dir + "/summary.json"));
}

// The entries of `dir` whose names start with a dot: what a run leaves
// beside its results directory while it runs (staging, lock).
std::vector<std::string> Hidden(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().starts_with(".")) out.push_back(e.path().filename());
  return out;
}

// Starts `rocesim run scenario -o out` in the background, its stdout and
// stderr into `log`; -1 when it cannot.
pid_t SpawnRun(const std::string& scenario, const std::string& out, const std::string& log) {
  const char* bin = std::getenv("ROCESIM_BIN");
  std::vector<std::string> args = {bin, "run", scenario, "-o", out};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, bin, &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  return rc == 0 ? pid : -1;
}

// Every line of a CSV file is complete: it ends in a newline and each row
// has the header's number of fields.
void ExpectWellFormedCsv(const std::string& path) {
  const std::string text = test::ReadFile(path);
  ASSERT_FALSE(text.empty()) << path;
  EXPECT_EQ(text.back(), '\n') << path << " ends in the middle of a line";
  std::istringstream in(text);
  std::string header;
  std::getline(in, header);
  const auto fields = std::count(header.begin(), header.end(), ',');
  size_t n = 1;
  for (std::string line; std::getline(in, line); ++n)
    ASSERT_EQ(std::count(line.begin(), line.end(), ','), fields)
        << path << " line " << n + 1 << ": " << line;
}

class ResultsDirTest : public test::CliTest {
 protected:
  CliRun Run(const std::string& args) { return RunRocesimCli(args, dir_ + "cli.log"); }
  std::string Small() { return Write("small.yaml", kSmall); }
};

TEST_F(ResultsDirTest, RefusesAnExistingResultsDirectory) {
  RunInto("r", Small(), "");
  const std::string before = test::ReadFile(dir_ + "r/summary.json");
  const CliRun again = Run("run '" + Small() + "' -q --seed 2 -o '" + dir_ + "r'");
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find(dir_ + "r already exists and is not empty"), std::string::npos)
      << again.output;
  EXPECT_NE(again.output.find("--force"), std::string::npos) << again.output;
  EXPECT_EQ(test::ReadFile(dir_ + "r/summary.json"), before);  // untouched
  EXPECT_TRUE(Hidden(dir_).empty());
}

TEST_F(ResultsDirTest, TakesAnEmptyDirectoryWithoutForce) {
  fs::create_directories(dir_ + "empty");
  RunInto("empty", Small(), "");
  EXPECT_TRUE(fs::exists(dir_ + "empty/summary.json"));
}

TEST_F(ResultsDirTest, ForceReplacesTheWholeDirectory) {
  RunInto("r", Small(), "");
  ASSERT_TRUE(fs::exists(dir_ + "r/queues.csv"));
  fs::create_directories(dir_ + "r/report");  // e.g. an earlier `rocesim report`
  // The second run writes no monitor files: none of the first's may remain.
  RunInto("r", Small(), "--force --seed 2 --set monitors.interval=0");
  EXPECT_EQ(Summary(dir_ + "r")["seed"], 2);
  EXPECT_FALSE(fs::exists(dir_ + "r/queues.csv"));
  EXPECT_FALSE(fs::exists(dir_ + "r/report"));
  EXPECT_TRUE(Hidden(dir_).empty());
}

TEST_F(ResultsDirTest, ForceKeepsTheOldResultsWhenTheNewRunFails) {
  RunInto("r", Small(), "");
  const std::string before = test::ReadFile(dir_ + "r/summary.json");
  // Validates, then fails to build: 10KB cannot hold the switch's headroom.
  const CliRun bad =
      Run("run '" + Small() + "' -q --force --set switch.buffer=10KB -o '" + dir_ + "r'");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_EQ(test::ReadFile(dir_ + "r/summary.json"), before);
  EXPECT_TRUE(Hidden(dir_).empty());
}

TEST_F(ResultsDirTest, ForceDoesNotRemoveADirectoryThatIsNotResults) {
  fs::create_directories(dir_ + "mine");
  std::ofstream(dir_ + "mine/notes.txt") << "keep me";
  for (const std::string force : {"", " --force"}) {
    const CliRun r = Run("run '" + Small() + "' -q" + force + " -o '" + dir_ + "mine'");
    EXPECT_EQ(r.exit_code, 2) << force << ": " << r.output;
    EXPECT_NE(r.output.find(dir_ + "mine"), std::string::npos) << r.output;
  }
  EXPECT_EQ(test::ReadFile(dir_ + "mine/notes.txt"), "keep me");
  EXPECT_FALSE(fs::exists(dir_ + "mine/summary.json"));
}

TEST_F(ResultsDirTest, RefusesAFileAsResultsDirectory) {
  std::ofstream(dir_ + "file") << "x";
  const CliRun r = Run("run '" + Small() + "' -q --force -o '" + dir_ + "file'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is not a directory"), std::string::npos) << r.output;
}

TEST_F(ResultsDirTest, ADirectoryBeingWrittenIsRefused) {
  // Held here as a running rocesim holds it (core/dir_lock.h).
  const DirLock busy(dir_ + "r");
  const CliRun r = Run("run '" + Small() + "' -q --force -o '" + dir_ + "r'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("another rocesim (pid " + std::to_string(::getpid()) + ") is writing " +
                          dir_ + "r now"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ + "r"));
  // A sweep into a directory another sweep is writing, likewise.
  const std::string sweep = Write("sweep.yaml", "base: small.yaml\ngrid: {seed: [1, 2]}\n");
  const DirLock busy_sweep(dir_ + "s");
  const CliRun s = Run("sweep '" + sweep + "' -j 1 -o '" + dir_ + "s'");
  EXPECT_EQ(s.exit_code, 2) << s.output;
  EXPECT_NE(s.output.find("is writing " + dir_ + "s now"), std::string::npos) << s.output;
}

TEST_F(ResultsDirTest, ASweepDoesNotWriteIntoARunsResults) {
  RunInto("r", Small(), "");
  const std::string sweep = Write("sweep.yaml", "base: small.yaml\ngrid: {seed: [1, 2]}\n");
  const CliRun s = Run("sweep '" + sweep + "' -j 1 -o '" + dir_ + "r'");
  EXPECT_EQ(s.exit_code, 2) << s.output;
  EXPECT_NE(s.output.find("holds a run's results"), std::string::npos) << s.output;
  EXPECT_FALSE(fs::exists(dir_ + "r/sweep.csv"));
}

// A point whose run was stopped by Ctrl-C (its summary says partial) is not
// finished: a resumed sweep runs it again and replaces it.
TEST_F(ResultsDirTest, AResumedSweepRerunsAPartialPoint) {
  Small();
  const std::string sweep = Write("sweep.yaml", "base: small.yaml\ngrid: {seed: [1, 2]}\n");
  const std::string args = "sweep '" + sweep + "' -j 1 -o '" + dir_ + "s'";
  ASSERT_EQ(Run(args).exit_code, 0);
  const std::string point = dir_ + "s/p0001_seed=2";
  nlohmann::json s = Summary(point);
  s["partial"] = true;
  std::ofstream(point + "/summary.json") << s.dump(2);
  const CliRun again = Run(args);
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_NE(again.output.find("1 already done, running 1"), std::string::npos) << again.output;
  EXPECT_EQ(Summary(point)["partial"], false);
  EXPECT_TRUE(Hidden(dir_ + "s").empty());
}

TEST_F(ResultsDirTest, MpiRunRefusesAnExistingDirectoryOnEveryRank) {
  if (!HaveMpirun()) GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  RunInto("r", Small(), "");
  const std::string before = test::ReadFile(dir_ + "r/summary.json");
  // Rank 0 refuses; the other rank must not wait for it in the run's collectives.
  const CliRun r = RunRocesimCli("run '" + Small() + "' -q -o '" + dir_ + "r'", dir_ + "mpi.log",
                                 MpirunPrefix(2));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("already exists and is not empty"), std::string::npos) << r.output;
  EXPECT_EQ(test::ReadFile(dir_ + "r/summary.json"), before);
}

TEST_F(ResultsDirTest, SummaryRecordsVersionCommitAndRunId) {
  RunInto("a", Small(), "");
  RunInto("b", Small(), "");
  const nlohmann::json a = Summary(dir_ + "a"), b = Summary(dir_ + "b");
  EXPECT_EQ(a["partial"], false);
  const nlohmann::json& run = a["run"];
  EXPECT_EQ(run["rocesim_version"], ROCESIM_VERSION);
  EXPECT_EQ(run["git_commit"], GitCommit());
  EXPECT_FALSE(run["git_commit"].get<std::string>().empty());
  const std::string id = run["run_id"];
  EXPECT_EQ(id.size(), 16u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  EXPECT_NE(b["run"]["run_id"], run["run_id"]);  // one per run

  const CliRun v = Run("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.output.find(std::string("rocesim ") + ROCESIM_VERSION), std::string::npos)
      << v.output;
  EXPECT_NE(v.output.find(std::string("commit ") + GitCommit()), std::string::npos) << v.output;
}

TEST_F(ResultsDirTest, ThreadedRunWritesTheSerialRunsResults) {
  RunInto("serial", Small(), "");
  RunInto("threads", Small(), "--threads 2");
  EXPECT_GE(ExpectSameResults("serial", "threads").size(), 7u);
  EXPECT_TRUE(Hidden(dir_).empty());
}

// Ctrl-C: the run stops at a window boundary, writes complete files marked
// partial, says so and exits 130; meanwhile a second run into its directory
// is refused.
TEST_F(ResultsDirTest, InterruptedRunWritesPartialResults) {
  const std::string scenario = Write("long.yaml", kLong);
  const std::string out = dir_ + "r", log = dir_ + "long.log";
  const pid_t pid = SpawnRun(scenario, out, log);
  ASSERT_GT(pid, 0);

  // Wait until it has simulated something: its first monitor rows reached
  // the disk (a wait for a condition; nothing here depends on how long).
  const std::string staging = dir_ + ".r.partial";
  for (int i = 0; i < 6000; ++i) {
    std::error_code ec;
    if (fs::file_size(staging + "/ports.csv", ec) > 0 && !ec) break;
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, WNOHANG), 0) << test::ReadFile(log);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const CliRun second = Run("run '" + scenario + "' -q --force -o '" + out + "'");
  EXPECT_EQ(second.exit_code, 2) << second.output;
  EXPECT_NE(second.output.find("another rocesim (pid " + std::to_string(pid) + ")"),
            std::string::npos)
      << second.output;

  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string output = test::ReadFile(log);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 130) << output;
  EXPECT_NE(output.find("are partial"), std::string::npos) << output;

  const nlohmann::json s = Summary(out);
  EXPECT_EQ(s["partial"], true);
  EXPECT_EQ(s["run"]["stopped_by"], "SIGINT");
  EXPECT_GT(s["sim_seconds"].get<double>(), 0);
  EXPECT_LT(s["sim_seconds"].get<double>(), 0.5);
  EXPECT_EQ(s["all_flows_done"], false);
  for (const char* f : {"flows.csv", "ports.csv", "queues.csv", "rates.csv", "counters.csv"}) {
    SCOPED_TRACE(f);
    ExpectWellFormedCsv(out + "/" + f);
  }
  EXPECT_TRUE(fs::exists(out + "/scenario.yaml"));
  EXPECT_TRUE(Hidden(dir_).empty());
}

// A signal while the fabric is still being built (a 65,536-host fat tree:
// seconds) ends the process at once, as a user pressing Ctrl-C there
// expects, instead of waiting for the run's first window; nothing is written.
TEST_F(ResultsDirTest, SignalWhileBuildingEndsAtOnce) {
  const std::string scenario = Write("big.yaml", R"(name: big
topology: {type: fat_tree, k: 64}
duration: 1ms
traffic: []
)");
  const std::string out = dir_ + "big", log = dir_ + "big.log";
  const pid_t pid = SpawnRun(scenario, out, log);
  ASSERT_GT(pid, 0);
  // The staging directory is made just before the build starts.
  for (int i = 0; i < 6000 && !fs::exists(dir_ + ".big.partial"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const std::string output = test::ReadFile(log);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 143) << output;
  EXPECT_NE(output.find("stopped while building; nothing written"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace test_results_dir
}  // namespace rocesim
