// Tests of the rocesim command line (apps/main.cpp), run as a child process
// ($ROCESIM_BIN, set by ctest) with stdout and stderr captured: --version and
// --help, exit status 2 with a message that names the file, position and field
// for every kind of bad scenario (DESIGN.md §4: results a user reads; a user
// must be told what to fix, never see a crash), --set reaching the scenario.yaml
// written to the results directory, and the quickstart example's headline
// numbers (DESIGN.md §6 "Scenario tests that run the examples and check their
// headline numbers": a PFC incast with zero drops and pause frames sent).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_cli {
namespace {

struct CliResult {
  int exit_code = -1;
  bool crashed = false;
  std::string output;  // stdout and stderr
};

using test::ExamplePath;
using test::ReadFile;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("ROCESIM_BIN");
    if (bin == nullptr) GTEST_SKIP() << "ROCESIM_BIN not set (run via ctest)";
    bin_ = bin;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = ::testing::TempDir() + "rocesim_cli_" + info->name() + "_" + std::to_string(::getpid()) +
           "/";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty() && !HasFailure()) std::filesystem::remove_all(dir_);
  }

  // `shell` runs first in the same shell (e.g. a ulimit for the run).
  CliResult RunCli(const std::string& args, const std::string& shell = "") {
    const std::string out = dir_ + "cli_output.txt";
    const std::string cmd = shell + "'" + bin_ + "' " + args + " >'" + out + "' 2>&1";
    const int status = std::system(cmd.c_str());
    CliResult r;
    r.output = ReadFile(out);
    if (status == -1) {
      ADD_FAILURE() << "could not run " << cmd;
      return r;
    }
    if (WIFSIGNALED(status)) {
      r.crashed = true;
    } else if (WIFEXITED(status)) {
      r.exit_code = WEXITSTATUS(status);
      // A shell reports a child killed by a signal as 128 + signal.
      if (r.exit_code > 128) r.crashed = true;
    }
    if (r.output.find("terminate called") != std::string::npos) r.crashed = true;
    return r;
  }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + name;
    std::ofstream(path) << text;
    return path;
  }

  // Runs a scenario text that must be rejected: exit 2, no crash, and the
  // message names the file. Returns the message.
  std::string ExpectRejected(const std::string& yaml) {
    const std::string file = Write("bad.yaml", yaml);
    const CliResult r = RunCli("run '" + file + "' -o '" + dir_ + "out'");
    EXPECT_FALSE(r.crashed) << r.output;
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("bad.yaml"), std::string::npos) << r.output;
    return r.output;
  }

  std::string bin_;
  std::string dir_;
};

constexpr char kTiny[] = R"(name: tiny
duration: 1ms
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
switch: {alpha: 1/16}
traffic:
  - {type: incast, senders: "1-2", receiver: 0, size: 20KB}
)";

TEST_F(CliTest, VersionPrintsNameAndExitsZero) {
  const CliResult r = RunCli("--version");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("rocesim"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(ROCESIM_VERSION), std::string::npos) << r.output;
}

TEST_F(CliTest, HelpExitsZero) {
  const CliResult r = RunCli("--help");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("run"), std::string::npos) << r.output;
  const CliResult sub = RunCli("run --help");
  EXPECT_EQ(sub.exit_code, 0) << sub.output;
  EXPECT_NE(sub.output.find("--set"), std::string::npos) << sub.output;
}

TEST_F(CliTest, NoSubcommandIsAUsageError) {
  const CliResult r = RunCli("");
  EXPECT_FALSE(r.crashed) << r.output;
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// Every whole-number option refuses what is not a count in its range with
// what it takes (apps/count_options.h), exit 2, before reading any file; a
// positive-number check used to print the largest double in full.
TEST_F(CliTest, ACountOptionSaysWhatItTakes) {
  struct Case {
    std::string args, message;
  };
  const std::string run = "run '" + ExamplePath("quickstart.yaml") + "' -o '" + dir_ + "r' ";
  const std::string sweep = "sweep '" + dir_ + "absent.yaml' ";
  const std::string aicb = "import-aicb '" + dir_ + "absent.txt' -o '" + dir_ + "s.yaml' ";
  const std::vector<Case> cases = {
      {run + "--partitions many", "--partitions: 'many' is not a partition count: give 1 to 4096"},
      {run + "--partitions 0", "'0' is not a partition count"},
      {run + "--partitions 4097", "'4097' is not a partition count"},
      {run + "--partitions 2.0", "'2.0' is not a partition count"},
      {run + "--threads 3x", "'3x' is not a thread count: give 1 to 1024, or auto"},
      {sweep + "-j many", "--jobs: 'many' is not a job count: give 1 to 4096"},
      {sweep + "-j 0", "'0' is not a job count"},
      {sweep + "-j -2", "'-2' is not a job count"},
      {sweep + "--partitions 1e3", "'1e3' is not a partition count"},
      {sweep + "--threads many", "'many' is not a thread count"},
      {aicb + "--gpus -3", "--gpus: '-3' is not a GPU count: give 1 to 1048576"},
      {aicb + "--gpus-per-server 2000", "'2000' is not a GPU count: give 1 to 1024"},
      {aicb + "--iterations +5", "'+5' is not an iteration count: give 1 to 1000000"},
  };
  for (const Case& c : cases) {
    const CliResult r = RunCli(c.args);
    EXPECT_FALSE(r.crashed) << c.args;
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << ": " << r.output;
    EXPECT_EQ(r.output.find("not in range"), std::string::npos) << r.output;
  }
  // The ends of each range are taken (the sweep file is then found missing).
  for (const std::string& args : {sweep + "-j 4096", sweep + "--partitions 4096"}) {
    const CliResult r = RunCli(args);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("absent.yaml"), std::string::npos) << args << ": " << r.output;
  }
}

TEST_F(CliTest, MissingScenarioFileNamesIt) {
  const CliResult r = RunCli("run '" + dir_ + "no_such_scenario.yaml'");
  EXPECT_FALSE(r.crashed) << r.output;
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("no_such_scenario.yaml"), std::string::npos) << r.output;
}

// The unknown key sits on line 5, column 3.
TEST_F(CliTest, UnknownKeyGivesPositionAndSuggestion) {
  const std::string msg = ExpectRejected(R"(name: typo
topology: {type: star, hosts: 2}
switch:
  buffer: 12MB
  alpah: 1/16
)");
  EXPECT_NE(msg.find("bad.yaml:5:3:"), std::string::npos) << msg;
  EXPECT_TRUE(std::regex_search(msg, std::regex(R"(bad\.yaml:\d+:\d+:)"))) << msg;
  EXPECT_NE(msg.find("did you mean 'alpha'"), std::string::npos) << msg;
}

TEST_F(CliTest, WrongTypeNamesTheField) {
  const std::string msg = ExpectRejected("topology: {type: star, hosts: many}\n");
  EXPECT_NE(msg.find("topology.hosts"), std::string::npos) << msg;
  EXPECT_NE(msg.find("many"), std::string::npos) << msg;
}

TEST_F(CliTest, NegativeRateNamesTheField) {
  const std::string msg = ExpectRejected(
      "topology:\n  type: star\n  hosts: 2\n  host_link: {rate: -100Gbps, delay: 1us}\n");
  EXPECT_NE(msg.find("topology.host_link.rate"), std::string::npos) << msg;
}

TEST_F(CliTest, MissingTopologyFileNamesIt) {
  const std::string msg = ExpectRejected("topology: {type: file, file: no_such_topology.txt}\n");
  EXPECT_NE(msg.find("no_such_topology.txt"), std::string::npos) << msg;
}

// Validates as a file but cannot be built: reserved 4 KiB * 8 * 3 ports plus
// headroom exceeds a 10 KB buffer.
TEST_F(CliTest, BufferTooSmallForCarveOutsExitsTwo) {
  const std::string file = Write("small.yaml", kTiny);
  const CliResult r = RunCli("run '" + file + "' -q --set switch.buffer=10KB -o '" + dir_ + "o'");
  EXPECT_FALSE(r.crashed) << r.output;
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("switch.buffer"), std::string::npos) << r.output;
}

TEST_F(CliTest, MalformedSetExitsTwo) {
  const std::string file = Write("tiny.yaml", kTiny);
  const CliResult r = RunCli("run '" + file + "' --set switch.alpha -o '" + dir_ + "o'");
  EXPECT_FALSE(r.crashed) << r.output;
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("switch.alpha"), std::string::npos) << r.output;
}

TEST_F(CliTest, SetOverrideReachesScenarioAsRun) {
  const std::string file = Write("tiny.yaml", kTiny);
  const CliResult plain = RunCli("run '" + file + "' -q -o '" + dir_ + "plain'");
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  const CliResult set =
      RunCli("run '" + file + "' -q --set switch.alpha=1/8 --set seed=9 -o '" + dir_ + "set'");
  ASSERT_EQ(set.exit_code, 0) << set.output;

  const YAML::Node before = YAML::LoadFile(dir_ + "plain/scenario.yaml");
  const YAML::Node after = YAML::LoadFile(dir_ + "set/scenario.yaml");
  EXPECT_EQ(before["switch"]["alpha"].as<std::string>(), "1/16");
  EXPECT_EQ(after["switch"]["alpha"].as<std::string>(), "1/8");
  EXPECT_EQ(after["seed"].as<std::string>(), "9");
  EXPECT_EQ(after["name"].as<std::string>(), "tiny");
  const auto summary = nlohmann::json::parse(ReadFile(dir_ + "set/summary.json"));
  EXPECT_EQ(summary["seed"].get<uint64_t>(), 9u);
  // The written scenario runs again as is.
  const CliResult again = RunCli("run '" + dir_ + "set/scenario.yaml' -q -o '" + dir_ + "again'");
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(ReadFile(dir_ + "set/flows.csv"), ReadFile(dir_ + "again/flows.csv"));
}

TEST_F(CliTest, QuickstartRunsLossless) {
  const CliResult r =
      RunCli("run '" ROCESIM_SOURCE_DIR "/examples/quickstart.yaml' -o '" + dir_ + "qs'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("quickstart"), std::string::npos) << r.output;
  for (const char* f : {"flows.csv", "summary.json", "scenario.yaml"})
    EXPECT_TRUE(std::filesystem::exists(dir_ + "qs/" + f)) << f;
  const auto s = nlohmann::json::parse(ReadFile(dir_ + "qs/summary.json"));
  EXPECT_EQ(s["drops"]["total"].get<uint64_t>(), 0u) << s["drops"].dump();
  EXPECT_GT(s["pfc"]["pause_frames_sent"].get<uint64_t>(), 0u);
  EXPECT_EQ(s["flows"]["total"].get<uint64_t>(), 16u);
  EXPECT_EQ(s["flows"]["completed"].get<uint64_t>(), 16u);
  EXPECT_TRUE(s["all_flows_done"].get<bool>());
  // flows.csv: a header and one row per flow.
  const std::string csv = ReadFile(dir_ + "qs/flows.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 17);
}

}  // namespace
}  // namespace test_cli
}  // namespace rocesim

namespace rocesim {
namespace test_cli {
namespace {

// Results are written as carefully as they are computed: a file that cannot
// be written in full fails the run, naming the file, whether it is written
// at the end (flows.csv) or during the run (a monitor's file; merged from
// partitions with threads), and leaves no results directory. The write
// fails here as on a full disk: past a file size limit (`ulimit -f 1`, 512 or
// 1024 bytes, with SIGXFSZ ignored so that write() returns EFBIG), which
// the lock file and the write probe stay under and the quickstart's 16-flow
// flows.csv and every monitor file exceed.
TEST_F(CliTest, AFailedWriteFailsTheRunNamingTheFile) {
  const std::string limit = "trap '' XFSZ; ulimit -f 1; ";
  const std::string scenario = ROCESIM_SOURCE_DIR "/examples/quickstart.yaml";
  for (const char* monitors : {" --set monitors.interval=0", " --set monitors.interval=10us"}) {
    for (const char* threads : {"", " --threads 2"}) {
      const bool monitored = std::string_view(monitors).ends_with("10us");
      const std::string out = dir_ + "full" + (monitored ? "_m" : "") + (*threads ? "_t" : "");
      const CliResult r =
          RunCli("run '" + scenario + "' -q" + monitors + threads + " -o '" + out + "'", limit);
      SCOPED_TRACE(std::string(monitors) + threads);
      EXPECT_FALSE(r.crashed) << r.output;
      EXPECT_EQ(r.exit_code, 1) << r.output;
      EXPECT_NE(r.output.find("cannot write "), std::string::npos) << r.output;
      EXPECT_NE(r.output.find(monitored ? "s.csv: " : "/flows.csv: "), std::string::npos)
          << r.output;
      if (!monitored) {  // errno is the write's (a monitor's is read after later calls)
        EXPECT_NE(r.output.find("File too large"), std::string::npos) << r.output;
      }
      EXPECT_FALSE(std::filesystem::exists(out));
      EXPECT_FALSE(std::filesystem::exists(dir_ + "." + out.substr(dir_.size()) + ".partial"));
    }
  }
}

// A results directory that cannot take a file is reported before the run.
TEST_F(CliTest, AnUnwritableResultsDirectoryFailsBeforeSimulating) {
  const CliResult r = RunCli("run '" + Write("tiny.yaml", kTiny) + "' -o /proc/rocesim-results");
  EXPECT_FALSE(r.crashed) << r.output;
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cannot write to the results directory /proc/rocesim-results"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("flows"), std::string::npos) << "it simulated first: " << r.output;
}

// A fabric too large for the memory the process may use (a k=64 fat tree's
// 65,536 hosts under `ulimit -v` 200 MB, which the quickstart runs in with
// room to spare) is an error that says so, serial or partitioned, and leaves
// no results directory; its what() alone would say only "std::bad_alloc".
// AddressSanitizer reserves terabytes of address space for its shadow, so a
// sanitizer build cannot run under such a limit.
TEST_F(CliTest, RunningOutOfMemorySaysSo) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "ulimit -v and AddressSanitizer's shadow memory do not mix";
#endif
  const std::string scenario = Write("k64.yaml", R"(name: k64
duration: 10us
topology: {type: fat_tree, k: 64}
traffic:
  - type: flows
    flows: [{src: 0, dst: 65535, size: 4KB}]
)");
  for (const char* threads : {"", " --threads 2"}) {
    const CliResult r = RunCli("run '" + scenario + "' -q" + threads + " -o '" + dir_ + "out'",
                               "ulimit -v 200000; ");
    SCOPED_TRACE(threads);
    EXPECT_FALSE(r.crashed) << r.output;
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("rocesim: error: out of memory (std::bad_alloc): the run needs more "
                            "memory than this process may use"),
              std::string::npos)
        << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir_ + "out"));
    EXPECT_FALSE(std::filesystem::exists(dir_ + ".out.partial"));
  }
}

}  // namespace
}  // namespace test_cli
}  // namespace rocesim
