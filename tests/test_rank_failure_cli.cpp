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
// the staging directory and lock were left behind). A rank killed mid-run
// is named by the others, which end at once; a Ctrl-C still writes partial
// results.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/cli_test_support.h"

namespace rocesim {
namespace test_rank_failure_cli {
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

// Long enough (about 10 s under 2 ranks here) that a rank killed a second
// into its windows dies mid-run on any machine; quick to set up.
constexpr char kLongRun[] = R"(name: long
duration: 120ms
topology: {type: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 8}
switch: {pfc: {enabled: true}, ecn: {enabled: true}}
host: {cc: dcqcn}
traffic:
  - {type: poisson, load: 40%, cdf: websearch, span: 100ms}
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
    Write("long.yaml", kLongRun);
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

// With --window-trace, its file (made before the run) goes too.
TEST_F(RankFailureCli, APartitionThreadThatFailsEndsTheRun) {
  const CliRun r = Shell(Rocesim(true, "--threads 2 --window-trace '" + dir_ + "trace.csv'"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(test::CountOf(r.output, "rocesim: error:"), 1) << r.output;
  EXPECT_NE(r.output.find("File too large"), std::string::npos) << r.output;
  ExpectNothingLeft();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "trace.csv"));
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

// A script that starts `mpirun -n 1 rocesim run long.yaml : -n 1 sh -c
// '... exec rocesim run long.yaml'` into dir_/out (rank 1 writes its pid
// into dir_/rank1.pid), waits until the windows have begun (rank 0's
// partitions line) and a second more, runs `then`, waits for mpirun and
// prints its exit status and the job's output.
std::string MpirunThen(const std::string& dir, const std::string& then) {
  const std::string bin = std::getenv("ROCESIM_BIN");
  // Double quotes inside rank 1's single-quoted `sh -c`.
  const std::string run = " run \"" + dir + "long.yaml\" -o \"" + dir + "out\"";
  return test::MpirunPrefix(1) + bin + run + " : " + test::MpirunContext(1) + "sh -c 'echo $$ >\"" +
         dir + "rank1.pid\"; exec " + bin + run + "' >\"" + dir + "job.log\" 2>&1 &\n" +
         "job=$!\n"
         "i=0\n"
         "until grep -q 'rocesim: partitions' " +
         dir +
         "job.log; do\n"
         "  i=$((i + 1)); [ $i -gt 1200 ] && break; sleep 0.1\n"
         "done\n"
         "sleep 1\n" +
         then +
         "\n"
         "wait $job\n"
         "echo \"mpirun exited $?\"\n"
         "cat " +
         dir + "job.log\n";
}

// Rank 1 killed mid-run (`kill -9`, as the out-of-memory killer does): mpirun
// sends rank 0 SIGTERM. Rank 0 used to take it for a Ctrl-C, announcing
// that it would stop at the next window to write partial results, which it
// could never do (the window waits for rank 1); now it names the rank that
// ended and ends at once, writing nothing.
TEST_F(RankFailureCli, ARankKilledMidRunIsNamedByTheOthers) {
  if (!test::HaveMpirun()) GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  Write("kill-rank-1.sh", MpirunThen(dir_, "kill -9 \"$(cat " + dir_ + "rank1.pid)\""));
  const CliRun r = Shell("sh '" + dir_ + "kill-rank-1.sh'");
  EXPECT_EQ(r.output.find("mpirun exited 0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rocesim: rank 1 (pid "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(") ended mid-run (killed?): this job ends, writing nothing"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("stopping at the next window"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "out")) << r.output;
}

// ... while a Ctrl-C at mpirun (which sends every rank SIGTERM, all alive)
// still stops every rank at a window, and rank 0 writes partial results.
TEST_F(RankFailureCli, ACtrlCAtMpirunStillWritesPartialResults) {
  if (!test::HaveMpirun()) GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  Write("interrupt.sh", MpirunThen(dir_, "kill -INT $job"));
  const CliRun r = Shell("sh '" + dir_ + "interrupt.sh'");
  EXPECT_NE(r.output.find("stopping at the next window to write partial results"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("ended mid-run"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the results in " + dir_ + "out/ are partial"), std::string::npos)
      << r.output;
  EXPECT_NE(test::ReadFile(dir_ + "out/summary.json").find("\"partial\": true"), std::string::npos);
}

}  // namespace
}  // namespace test_rank_failure_cli
}  // namespace rocesim
