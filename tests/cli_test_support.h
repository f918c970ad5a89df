// Helpers shared by the tests that run the rocesim command line (ctest
// points ROCESIM_BIN at it): run it capturing its output, and compare two
// results directories file by file, as the partitioned-run tests do
// (summary.json but for its `run` object, every other file byte for byte).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "stats/results_diff.h"
#include "tests/sim_test_support.h"

namespace rocesim::test {

struct CliRun {
  int exit_code = -1;  // -1: ROCESIM_BIN unset; -2: it died
  std::string output;  // stdout and stderr
};

// Runs `[prefix] $ROCESIM_BIN args`, its output through the file `log`.
inline CliRun RunRocesimCli(const std::string& args, const std::string& log,
                            const std::string& prefix = "") {
  CliRun r;
  const char* bin = std::getenv("ROCESIM_BIN");
  if (bin == nullptr) return r;
  const int status = std::system((prefix + bin + " " + args + " >'" + log + "' 2>&1").c_str());
  r.exit_code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -2;
  r.output = ReadFile(log);
  std::filesystem::remove(log);
  return r;
}

// How many times `what` occurs in `text` (a message printed once, not per rank).
inline int CountOf(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

inline bool HaveMpirun() {
  return std::system("command -v mpirun >/dev/null 2>&1") == 0;
}
// `mpirun ... -n ranks ` (root in a container needs --allow-run-as-root).
// Under the sanitizers (scripts/sanitize.sh) ROCESIM_MPI_RANK_ASAN_OPTIONS
// gives the ranks their own ASAN_OPTIONS: LeakSanitizer cannot be told to
// ignore what OpenMPI allocates in plugins it has already unloaded (reported
// from "<unknown module>", which no suppression matches), so the ranks run
// without leak checking; every other check stays on.
// The rank options go with each application context (`-x` in the first
// context of `mpirun A : B` does not reach B's ranks): MpirunContext(n)
// starts another, `... A : ` + MpirunContext(1) + `B`.
inline std::string MpirunContext(int ranks) {
  std::string context = "-n " + std::to_string(ranks) + " ";
  if (const char* asan = std::getenv("ROCESIM_MPI_RANK_ASAN_OPTIONS"))
    context += "-x ASAN_OPTIONS=" + std::string(asan) + " ";
  return context;
}
// OpenMPI 4 makes its session directory, BASE/ompi.HOST.UID, by a stat then
// a mkdir, and fails the job ("mkdir ... File exists", orte_init failed)
// when another mpirun makes or removes it at that instant, as two of
// ctest -j's tests can: each test process gives its mpiruns a base of its
// own (orte_tmpdir_base; the ranks' TMPDIR is left alone), removed when the
// process exits.
inline const std::string& MpiSessionBase() {
  static const struct Base {
    std::string path;
    Base() {
      std::string t = (std::filesystem::temp_directory_path() / "rocesim-mpi-XXXXXX").string();
      if (::mkdtemp(t.data()) == nullptr) throw std::runtime_error("mkdtemp " + t + " failed");
      path = t;
    }
    ~Base() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  } base;
  return base.path;
}
inline std::string MpirunPrefix(int ranks) {
  return std::string("mpirun ") + (::geteuid() == 0 ? "--allow-run-as-root " : "") +
         "--oversubscribe --mca orte_tmpdir_base '" + MpiSessionBase() + "' " +
         MpirunContext(ranks);
}

// A fresh directory per test (dir_) for scenarios and results.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("ROCESIM_BIN") == nullptr)
      GTEST_SKIP() << "ROCESIM_BIN not set (run via ctest)";
    dir_ = ::testing::TempDir() + "rocesim_cli_" +
           ::testing::UnitTest::GetInstance()->current_test_suite()->name() + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
           std::to_string(::getpid()) + "/";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + name, std::ios::binary) << text;
    return dir_ + name;
  }

  // A sweep of the quickstart over seeds 1 and 2, each point cut to 2 ms.
  std::string WriteQuickstartSeedSweep() {
    return Write("sweep.yaml", "base: " + ExamplePath("quickstart.yaml") +
                                   "\ngrid:\n  seed: [1, 2]\nset:\n  duration: 2ms\n");
  }

  // Runs `scenario extra` into dir_/name (quietly unless `quiet` is false);
  // expects it to succeed and returns its output.
  std::string RunInto(const std::string& name, const std::string& scenario,
                      const std::string& extra, const std::string& prefix = "", bool quiet = true) {
    const CliRun r = RunRocesimCli(
        "run '" + scenario + "'" + (quiet ? " -q" : "") + " -o '" + dir_ + name + "' " + extra,
        dir_ + name + ".log", prefix);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  }

  // Every results file of dir_/a and dir_/b, in subdirectories too (pcap/),
  // is the same (summary.json but for its `run` object), and b's partition
  // files were merged away; returns the names compared (relative paths).
  std::vector<std::string> ExpectSameResults(const std::string& a, const std::string& b) {
    const std::optional<std::string> diff = FirstResultsDifference(dir_ + a, dir_ + b);
    EXPECT_FALSE(diff.has_value()) << *diff;
    EXPECT_FALSE(std::filesystem::exists(dir_ + b + "/.partition-0"))
        << "partition files were not merged";
    return ResultFiles(dir_ + a);
  }

  std::string dir_;
};

}  // namespace rocesim::test
