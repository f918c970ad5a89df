// A partition that fails in the middle of a run, from the command line:
// here it cannot grow a time-series file past 10 MB (RLIMIT_FSIZE set by
// `ulimit -f`, with SIGXFSZ ignored so that the write fails with EFBIG, as
// on a full disk). The run says why once, exits 1 and leaves no results
// directory, nothing beside it and no scratch directory, whether one
// thread of several failed or one rank of an MPI job. The ranks stop
// together at the end of the window in which one failed (the failure is
// part of the window's agreement), so the job ends without MPI_Abort and
// rank 0 still removes what it had begun (before, the failing rank called
// MPI_Abort; mpirun sent rank 0 SIGTERM, which it took for a Ctrl-C, and
// the staging directory and lock were left behind).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/cli_test_support.h"

namespace rocesim {
namespace {

using test::CliRun;

// 32 hosts sampled every 100 ns for 2 ms: each half of the fabric writes
// counters.csv past 10 MB (the whole run writes 36 MB of it).
constexpr char kHeavilyMonitored[] = R"(name: heavily-monitored
duration: 2ms
topology: {type: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 8}
switch: {pfc: {enabled: true}, ecn: {enabled: true}}
host: {cc: dcqcn}
monitors: {interval: 100ns}
traffic:
  - {type: poisson, load: 40%, cdf: websearch, span: 1ms}
)";

class RankFailureCli : public test::CliTest {
 protected:
  // `rocesim run` of the scenario into dir_/out with `args`, its temporary
  // files under dir_/tmp (so that a scratch directory left behind would
  // show); when `limited`, its files may not grow past 10 MB (20,000 blocks:
  // dash counts 512 bytes a block; MPI's shared-memory segment, a file too,
  // fits under that).
  std::string Rocesim(bool limited, const std::string& args = "") const {
    return "sh -c \"" + std::string(limited ? "trap '' XFSZ; ulimit -f 20000; " : "") + "TMPDIR='" +
           dir_ + "tmp' exec " + std::getenv("ROCESIM_BIN") + " run '" + dir_ +
           "monitored.yaml' -q -o '" + dir_ + "out' " + args + "\"";
  }
  CliRun Shell(const std::string& command) {
    Write("monitored.yaml", kHeavilyMonitored);
    std::filesystem::create_directories(dir_ + "tmp");
    const std::string log = dir_ + "run.log";
    const int status = std::system(("timeout 120 " + command + " >'" + log + "' 2>&1").c_str());
    return {.exit_code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -2,
            .output = test::ReadFile(log)};
  }
  // Nothing of the run is left: no results, no staging directory or lock
  // beside them, no scratch directory.
  void ExpectNothingLeft() const {
    namespace fs = std::filesystem;
    for (const char* name : {"out", ".out.partial", ".out.lock"})
      EXPECT_FALSE(fs::exists(dir_ + name)) << name << " was left behind";
    EXPECT_TRUE(fs::is_empty(dir_ + "tmp")) << "a scratch directory was left behind";
  }
};

TEST_F(RankFailureCli, APartitionThreadThatFailsEndsTheRun) {
  const CliRun r = Shell(Rocesim(true, "--threads 2"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(test::CountOf(r.output, "rocesim: error:"), 1) << r.output;
  EXPECT_NE(r.output.find("File too large"), std::string::npos) << r.output;
  ExpectNothingLeft();
}

// Rank 1 fails, then rank 0 (which writes into the results' staging
// directory): the failing rank names itself, once; nobody aborts. Before,
// with rank 0 so limited, the job hung before its first window.
TEST_F(RankFailureCli, ARankThatFailsMidRunStopsEveryRankTogether) {
  if (!test::HaveMpirun()) GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  for (const int failing : {1, 0}) {
    const CliRun r = Shell(test::MpirunPrefix(1) + Rocesim(failing == 0) + " : " +
                           test::MpirunContext(1) + Rocesim(failing == 1));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(test::CountOf(r.output, "rocesim: error:"), 1) << r.output;
    EXPECT_NE(r.output.find("rocesim: error: rank " + std::to_string(failing) + ": cannot write "),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("File too large"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("MPI_ABORT"), std::string::npos) << r.output;
    // A rank that may not write the shared slots' file exchanges by message
    // (OpenMPI would leave the others inside MPI_Win_allocate_shared).
    EXPECT_NE(r.output.find("a rank may not write a file that large (ulimit -f)"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("stopping at the next window"), std::string::npos) << r.output;
    ExpectNothingLeft();
  }
}

}  // namespace
}  // namespace rocesim
