// The run's progress line reaches the user's terminal, under mpirun too
// (sim/launcher_terminal.h): a rank's stderr is a pipe to mpirun, so rank 0
// draws the line when mpirun's own stderr is a terminal, and nothing when
// mpirun writes into a file, or when mpirun writes each rank's output into
// files of its own (`--output-filename`: a log of redraws helps no one). The terminal is a
// pseudo-terminal from util-linux's `script`. Under MPI the line's ETA measures the bytes of
// finished flows of the whole job, as in a threaded run (the ranks exchange
// them with each window's agreement): the scenario below runs for 10 s of
// simulated time but its flows finish in milliseconds, so an estimate by
// simulated time alone would say hours.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>

#include "tests/cli_test_support.h"

namespace rocesim::test {
namespace test_progress_terminal_cli {
namespace {

class ProgressTerminalCli : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (IsSkipped()) return;
    if (std::system("command -v script >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "no script (util-linux) to give the run a terminal";
    scenario_ = Write("progress.yaml",
                      "name: progress-on-a-terminal\nseed: 1\nduration: 10s\n"
                      "topology: {type: fat_tree, k: 4}\nhost: {cc: dcqcn}\n"
                      "traffic:\n  - {type: poisson, load: 60%, cdf: websearch, span: 10ms}\n");
  }

  // Runs `[prefix] rocesim run SCENARIO -o dir_/name [extra]`, its stdout
  // and stderr on a pseudo-terminal when `terminal`, else into a file;
  // returns what was shown.
  std::string Run(const std::string& name, const std::string& prefix, const std::string& extra,
                  bool terminal) {
    const std::string command = prefix + std::getenv("ROCESIM_BIN") + " run '" + scenario_ +
                                "' -o '" + dir_ + name + "'" + extra;
    const std::string log = dir_ + name + ".log";
    const std::string shell = terminal ? "script -qec \"" + command + "\" /dev/null" : command;
    const int status = std::system((shell + " < /dev/null > '" + log + "' 2>&1").c_str());
    const std::string shown = ReadFile(log);
    EXPECT_TRUE(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0) << shown;
    return shown;
  }

  // The progress lines drawn (each redraw starts with a carriage return).
  static int ProgressLines(const std::string& shown) {
    static const std::regex line("\r  sim [0-9.]+ ms / 10000\\.000 ms  flows [0-9]+/[0-9]+");
    return static_cast<int>(
        std::distance(std::sregex_iterator(shown.begin(), shown.end(), line), {}));
  }
  // Whether some line's ETA is in seconds: bytes measured the work done.
  static bool EtaInSeconds(const std::string& shown) {
    return std::regex_search(shown, std::regex("ETA [0-9]+ s"));
  }

  std::string scenario_;
};

TEST_F(ProgressTerminalCli, SerialAndThreadedRunsDrawTheLine) {
  for (const std::string threads : {"1", "2"}) {
    const std::string shown = Run("threads" + threads, "", " --threads " + threads, true);
    EXPECT_GT(ProgressLines(shown), 0) << threads << " threads:\n" << shown;
    EXPECT_TRUE(EtaInSeconds(shown)) << threads << " threads:\n" << shown;
  }
}

TEST_F(ProgressTerminalCli, MpirunOnATerminalDrawsRankZerosLine) {
  if (!HaveMpirun()) GTEST_SKIP() << "no mpirun";
  const std::string shown = Run("ranks", MpirunPrefix(2), "", true);
  EXPECT_GT(ProgressLines(shown), 0) << shown;
  EXPECT_TRUE(EtaInSeconds(shown)) << "the ETA went by simulated time alone:\n" << shown;
  // The line is gone before the ranks report how their windows went: no
  // rank's line is written onto it.
  EXPECT_EQ(shown.find("ETA", shown.find("rocesim: rank ")), std::string::npos) << shown;
  EXPECT_NE(shown.find("rocesim: rank 1: "), std::string::npos) << shown;
  EXPECT_EQ(shown.find("ms simulated"), shown.rfind("ms simulated")) << "one summary:\n" << shown;
}

TEST_F(ProgressTerminalCli, MpirunIntoAFileDrawsNothing) {
  if (!HaveMpirun()) GTEST_SKIP() << "no mpirun";
  const std::string shown = Run("ranks", MpirunPrefix(2), "", false);
  EXPECT_EQ(ProgressLines(shown), 0) << shown;
  EXPECT_EQ(shown.find('\r'), std::string::npos) << shown;
  EXPECT_NE(shown.find("ms simulated"), std::string::npos) << shown;
}

// `mpirun --output-filename DIR` writes each rank's stdout and stderr into
// DIR/1/rank.N/ and, unless told `:nocopy`, copies them onto mpirun's
// terminal. Those files are logs: rank 0 draws nothing into them, on a
// terminal or not, and its closing lines land there whole.
TEST_F(ProgressTerminalCli, MpirunWithOutputFilesDrawsNothingIntoThem) {
  if (!HaveMpirun()) GTEST_SKIP() << "no mpirun";
  for (const std::string copy : {"", ":nocopy"}) {
    const std::string name = copy.empty() ? "copied" : "nocopy";
    const std::string files = dir_ + name + "_rank_files";
    const std::string prefix = MpirunPrefix(2) + "--output-filename '" + files + "'" + copy + " ";
    const std::string shown = Run(name, prefix, "", true);
    const std::string log = ReadFile(files + "/1/rank.0/stderr");
    EXPECT_NE(log.find("rocesim: partitions 2"), std::string::npos) << copy << ":\n" << log;
    EXPECT_EQ(ProgressLines(log), 0) << copy << ":\n" << log;
    EXPECT_EQ(log.find('\r'), std::string::npos) << copy << ":\n" << log;
    EXPECT_EQ(ProgressLines(shown), 0) << copy << ":\n" << shown;
    EXPECT_NE(ReadFile(files + "/1/rank.0/stdout").find("ms simulated"), std::string::npos) << copy;
  }
}

}  // namespace
}  // namespace test_progress_terminal_cli
}  // namespace rocesim::test
