// More partitions than threads (`rocesim run X.yaml --threads T
// --partitions P`, sim/partitioned_run.h): each window a thread runs its own
// partitions and then any another thread has not begun, so a partition may
// run on a different thread from one window to the next. The results stay
// byte-identical to the serial run's — on one thread running several
// partitions, on two threads sharing several, and under mpirun — including
// the deadlock detector, whose windows split around the pooled sample. P
// below T is refused; a sweep hands --partitions to its points.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli_test_support.h"

namespace rocesim {
namespace test_shared_partitions_cli {
namespace {

using test::ExamplePath;
using test::HaveMpirun;
using test::ReadFile;

class SharedPartitionsCli : public test::CliTest {
 protected:
  nlohmann::json Summary(const std::string& name) {
    return nlohmann::json::parse(ReadFile(dir_ + name + "/summary.json"));
  }
  test::CliRun Run(const std::string& args) { return test::RunRocesimCli(args, dir_ + "run.log"); }
};

TEST_F(SharedPartitionsCli, K8WebSearchIsTheSameOnOneThreadAndOnTwoSharingSix) {
  const std::string k8 = std::string(ROCESIM_SOURCE_DIR) + "/bench/k8_websearch_dcqcn.yaml";
  const std::string sets = "--set duration=2.001s ";
  RunInto("serial", k8, sets);
  RunInto("one_thread", k8, sets + "--threads 1 --partitions 3");
  RunInto("shared", k8, sets + "--threads 2 --partitions 6");
  EXPECT_GE(ExpectSameResults("serial", "one_thread").size(), 3u);
  ExpectSameResults("serial", "shared");
  EXPECT_GT(Summary("shared")["flows"]["completed"].get<int>(), 100);
}

// The detector's sample falls inside a window: every partition runs up to
// it, the samples are pooled, and each partition (on whichever thread takes
// it) resolves and runs the rest of the window.
TEST_F(SharedPartitionsCli, FloodingDeadlockReportsTheSameCycle) {
  const std::string sc = ExamplePath("deadlock-flooding.yaml");
  RunInto("serial", sc, "");
  RunInto("one_thread", sc, "--threads 1 --partitions 2");
  RunInto("shared", sc, "--threads 2 --partitions 5");
  ExpectSameResults("serial", "one_thread");
  ExpectSameResults("serial", "shared");
  const nlohmann::json d = Summary("shared")["deadlocks"];
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d, Summary("serial")["deadlocks"]);
}

TEST_F(SharedPartitionsCli, PauseStormAndWatchdogsAreTheSame) {
  const std::string sc = ExamplePath("pfc-storm.yaml");
  RunInto("serial", sc, "");
  RunInto("shared", sc, "--threads 2 --partitions 4");
  EXPECT_GE(ExpectSameResults("serial", "shared").size(), 6u);
}

TEST_F(SharedPartitionsCli, RanksSharingPartitionsAreTheSame) {
  if (!HaveMpirun()) GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  const std::string sc = ExamplePath("deadlock-flooding.yaml");
  RunInto("serial", sc, "");
  RunInto("mpi", sc, "--threads 2 --partitions 3", test::MpirunPrefix(2));
  ExpectSameResults("serial", "mpi");
  const nlohmann::json run = Summary("mpi")["run"];
  EXPECT_EQ(run["ranks"], 2);
  EXPECT_EQ(run["threads"], 2);
  EXPECT_EQ(run["partitions"], 6);
}

// With no --partitions the count follows the fabric's size
// (sim/partition.h): a k=20 fat tree's 6,000 links make 4 partitions for 2
// threads, with the serial run's results; a count given is kept.
TEST_F(SharedPartitionsCli, LargeFabricsGetMorePartitionsThanThreadsByDefault) {
  const std::string sc = Write("k20.yaml", R"(name: k20
duration: 200us
topology: {type: fat_tree, k: 20}
traffic:
  - type: flows
    flows: [{src: 0, dst: 1999, size: 200KB}, {src: 500, dst: 1500, size: 200KB},
            {src: 1000, dst: 3, size: 200KB}, {src: 1999, dst: 0, size: 50KB}]
)");
  RunInto("serial", sc, "");
  const std::string said = RunInto("auto", sc, "--threads 2", "", /*quiet=*/false);
  EXPECT_NE(said.find("(1 rank x 2 threads sharing 4 partitions)"), std::string::npos) << said;
  EXPECT_GE(ExpectSameResults("serial", "auto").size(), 3u);
  EXPECT_EQ(Summary("auto")["flows"]["completed"].get<int>(), 4);
  EXPECT_EQ(Summary("auto")["run"]["partitions"], 4);
  EXPECT_EQ(Summary("auto")["run"]["threads"], 2);
  EXPECT_EQ(Summary("auto")["run"]["ranks"], 1);
  EXPECT_EQ(Summary("serial")["run"]["partitions"], 1);
  const std::string told = RunInto("told", sc, "--threads 2 --partitions 2", "", false);
  EXPECT_NE(told.find("partitions 2 (pods / leaf groups):"), std::string::npos) << told;
  EXPECT_EQ(told.find("sharing"), std::string::npos) << told;
  const test::CliRun check = Run("run '" + sc + "' --check --threads 2");
  ASSERT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("partitions 4 (pods / leaf groups):"), std::string::npos)
      << check.output;
  // Two ranks of one thread count as two threads: 2 partitions a rank.
  if (!HaveMpirun()) return;
  RunInto("mpi", sc, "", test::MpirunPrefix(2));
  ExpectSameResults("serial", "mpi");
  EXPECT_EQ(Summary("mpi")["run"]["partitions"], 4);
  EXPECT_EQ(Summary("mpi")["run"]["ranks"], 2);
}

TEST_F(SharedPartitionsCli, SaysHowManyPartitionsTheThreadsShare) {
  const test::CliRun r = Run("run '" + ExamplePath("quickstart.yaml") +
                             "' --threads 2 --partitions 3 -o '" + dir_ + "out'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("partitions 3 (METIS):"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(1 rank x 2 threads sharing 3 partitions)"), std::string::npos)
      << r.output;
}

TEST_F(SharedPartitionsCli, FewerPartitionsThanThreadsIsRefused) {
  const test::CliRun r = Run("run '" + ExamplePath("quickstart.yaml") +
                             "' --threads 4 --partitions 2 -o '" + dir_ + "out'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--partitions 2 is fewer than --threads 4"), std::string::npos)
      << r.output;
}

// The points get --partitions: a count the fabric cannot take fails the
// points with the partitioner's message (the sweep prints their logs' tails).
TEST_F(SharedPartitionsCli, SweepPointsGetThePartitionCount) {
  const std::string sweep = WriteQuickstartSeedSweep();
  ASSERT_EQ(Run("sweep '" + sweep + "' -j 1 -o '" + dir_ + "plain'").exit_code, 0);
  const test::CliRun ok = Run("sweep '" + sweep + "' -j 1 --partitions 3 -o '" + dir_ + "parts'");
  ASSERT_EQ(ok.exit_code, 0) << ok.output;
  for (const std::string p : {"p0000_seed=1", "p0001_seed=2"})
    EXPECT_EQ(ReadFile(dir_ + "plain/" + p + "/flows.csv"),
              ReadFile(dir_ + "parts/" + p + "/flows.csv"));
  const test::CliRun bad = Run("sweep '" + sweep + "' -j 1 --partitions 99 -o '" + dir_ + "bad'");
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_NE(bad.output.find("cannot cut the fabric into 99 partitions"), std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace test_shared_partitions_cli
}  // namespace rocesim
