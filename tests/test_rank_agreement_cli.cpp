// The setup of an MPI job's run, agreed between its ranks
// (apps/rank_agreement.h), from the command line, giving one rank other
// arguments through mpirun's `A : B` form: an error is said once and ends
// every rank with its status, whichever rank met it (before, a rank that
// failed alone left the others waiting forever); ranks with different
// thread counts cut alike and run; ranks that set up different runs
// (another --seed, --set or flow file on one of them) are refused with a
// message naming what differs, and so are ranks running different rocesim
// builds. Ranks that keep the same files under other directories still run,
// and write the serial run's results; so do ranks that know the results
// directory by other paths (machines without a shared filesystem).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/cli_test_support.h"

namespace rocesim {
namespace test_rank_agreement_cli {
namespace {

using test::CliRun;
using test::HaveMpirun;

constexpr char kLeafSpine[] = R"(name: agree
duration: 200us
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}
switch: {pfc: {enabled: true}, ecn: {enabled: true}}
host: {cc: dcqcn}
traffic:
  - {type: poisson, load: 40%, cdf: websearch, span: 100us}
)";

constexpr char kFromFile[] = R"(name: agree-file
duration: 200us
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}
traffic:
  - {type: flow_file, file: flows.txt}
)";

// HPCC flow file: count, then src dst priority dport bytes start_seconds.
constexpr char kFlows[] =
    "3\n0 5 3 100 50000 0.000001\n1 6 3 100 60000 0.000002\n"
    "2 7 3 100 70000 0.000003\n";

// Time series every 5 us and packet captures of a host port on each leaf
// (hosts 0 and 7: partitions 0 and 1 of a cut by leaves).
constexpr char kMonitored[] = R"(name: rank-files
seed: 3
duration: 300us
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}
switch: {buffer: 4MB, pfc: {enabled: true}, ecn: {enabled: true}}
host: {cc: dcqcn}
monitors:
  interval: 5us
  pcap: {ports: [{node: 0, port: 0}, {node: 7, port: 0}]}
traffic:
  - {type: incast, senders: "1-7", receiver: 0, size: 100KB, start: 5us}
  - {type: incast, senders: "0-3", receiver: 7, size: 100KB, start: 10us}
)";

class RankAgreementCli : public test::CliTest {
 protected:
  void SetUp() override {
    test::CliTest::SetUp();
    if (IsSkipped()) return;
    if (!HaveMpirun()) GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  }

  // `mpirun -n 1 rocesim run A : -n 1 rocesim run B` into dir_/out: rank 0
  // runs `first`, rank 1 `second` (each "SCENARIO [options]"; rank 1 into
  // `second_out`, which only rank 0 writes to in a run that goes ahead),
  // with `second_context` among its mpirun options (`-x VAR=value `). The
  // timeout turns a hang, the failure these tests guard against, into exit
  // 124.
  CliRun TwoRanks(const std::string& first, const std::string& second,
                  const std::string& second_out = "out", const std::string& second_context = "") {
    return test::RunRocesimCli(
        "run " + second + " -q -o '" + dir_ + second_out + "'", dir_ + "mpi.log",
        "timeout 120 " + test::MpirunPrefix(1) + std::getenv("ROCESIM_BIN") + " run " + first +
            " -q -o '" + dir_ + "out' : " + test::MpirunContext(1) + second_context);
  }
};

TEST_F(RankAgreementCli, AScenarioErrorIsSaidOnceByTwoRanks) {
  const std::string bad = Write("bad.yaml",
                                "name: bad\nduration: 1ms\ntopology: {type: star, "
                                "hostz: 3}\n");
  const CliRun r = test::RunRocesimCli("run '" + bad + "' -q -o '" + dir_ + "out'",
                                       dir_ + "mpi.log", "timeout 120 " + test::MpirunPrefix(2));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(test::CountOf(r.output, "rocesim: error:"), 1) << r.output;
  EXPECT_EQ(test::CountOf(r.output, "bad.yaml:3:24: topology: unknown key 'hostz'"), 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "out"));
}

// Rank 1 (then rank 0) reads a scenario the other does not: the rank that
// failed says why, and the job ends with the reader's status, 2.
TEST_F(RankAgreementCli, ARankThatFailsAloneEndsTheJob) {
  const std::string good = "'" + Write("good.yaml", kLeafSpine) + "'";
  const std::string bad = "'" + Write("bad.yaml", "name: bad\nduration: -1ms\n") + "'";
  for (const auto& [first, second] : {std::pair{good, bad}, std::pair{bad, good}}) {
    const CliRun r = TwoRanks(first, second);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(test::CountOf(r.output, "rocesim: error:"), 1) << r.output;
    EXPECT_NE(r.output.find("bad.yaml"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir_ + "out")) << "the results directory is left out";
  }
  // Rank 1 alone cannot create the scratch directory its monitor files go
  // to (its TMPDIR is a file): its error, not rank 0's, and exit 1, as a
  // serial run that cannot write its monitors; rank 0, which had taken the
  // results directory, leaves it out.
  const std::string monitored =
      "'" + Write("monitored.yaml", std::string(kLeafSpine) + "monitors: {interval: 10us}\n") + "'";
  Write("a-file", "");
  const CliRun r = TwoRanks(monitored, monitored, "out", "-x TMPDIR='" + dir_ + "a-file' ");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(test::CountOf(r.output, "rocesim: error:"), 1) << r.output;
  EXPECT_NE(r.output.find("cannot create a scratch directory " + dir_ +
                          "a-file/rocesim-rank1-XXXXXX: Not a directory"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "out"));
}

// `--threads auto` on machines of other sizes gives ranks different thread
// counts: every rank cuts for the most threads (and partitions) any rank
// asked for, and the run writes the serial run's results. Until the
// twenty-fourth session rank 0 cut 2 partitions and rank 1 4, and the run
// ended with frames_conserved broken.
TEST_F(RankAgreementCli, RanksMayRunDifferentThreadCounts) {
  const std::string sc = Write("leaf-spine.yaml", kLeafSpine);
  RunInto("serial", sc, "");
  for (const auto& [first, second] : {std::pair{"--threads 1", "--threads 2"},
                                      std::pair{"--threads 1 --partitions 2", "--threads 1"}}) {
    std::filesystem::remove_all(dir_ + "ranks");
    const CliRun r = TwoRanks("'" + sc + "' " + first, "'" + sc + "' " + second);
    ASSERT_EQ(r.exit_code, 0) << first << " : " << second << ": " << r.output;
    std::filesystem::rename(dir_ + "out", dir_ + "ranks");
    EXPECT_GE(ExpectSameResults("serial", "ranks").size(), 3u) << first << " : " << second;
  }
}

// `--check` under mpirun shows the job's cut (each rank's share of the
// partitions), once; until the twenty-fourth session every rank printed
// "1 partition (a serial run)".
TEST_F(RankAgreementCli, CheckUnderMpirunShowsTheJobsCut) {
  const std::string sc = "'" + Write("leaf-spine.yaml", kLeafSpine) + "'";
  const CliRun r = test::RunRocesimCli("run " + sc + " --check", dir_ + "mpi.log",
                                       "timeout 120 " + test::MpirunPrefix(2));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(test::CountOf(r.output, " is valid: "), 1) << r.output;
  EXPECT_NE(r.output.find("; partitions 2 ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" (2 ranks x 1 partition)"), std::string::npos) << r.output;
  // Rank 1 asks for 2 threads: the cut is for the most any rank asked for.
  const CliRun two = TwoRanks(sc + " --check", sc + " --check --threads 2");
  EXPECT_EQ(two.exit_code, 0) << two.output;
  EXPECT_NE(two.output.find("; partitions 4 ("), std::string::npos) << two.output;
  EXPECT_NE(two.output.find(" (2 ranks x 2 partitions)"), std::string::npos) << two.output;
}

TEST_F(RankAgreementCli, RanksThatSetUpDifferentRunsAreRefused) {
  const std::string sc = "'" + Write("leaf-spine.yaml", kLeafSpine) + "'";
  const std::string differ =
      "rocesim: error: the ranks of this MPI job set up different runs: "
      "ranks 0 and 1 differ in their ";
  CliRun r = TwoRanks(sc, sc + " --seed 9");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(differ + "scenario (its file, --set and --seed, resolved);"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(test::CountOf(r.output, "rocesim: error:"), 1) << r.output;
  r = TwoRanks(sc, sc + " --set switch.ecn.kmin=10KB");
  EXPECT_NE(r.output.find(differ + "scenario"), std::string::npos) << r.output;

  // The same scenario naming a flow file that holds other flows on rank 1.
  std::filesystem::create_directories(dir_ + "a");
  std::filesystem::create_directories(dir_ + "b");
  const std::string a = "'" + Write("a/s.yaml", kFromFile) + "'";
  const std::string b = "'" + Write("b/s.yaml", kFromFile) + "'";
  Write("a/flows.txt", kFlows);
  std::string other = kFlows;
  other.replace(other.find("60000"), 5, "61000");
  Write("b/flows.txt", other);
  r = TwoRanks(a, b);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(differ + "flows (their ends, sizes and starts);"), std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "out"));

  // The same flows under another directory: the run goes ahead, and writes
  // the serial run's results.
  Write("b/flows.txt", kFlows);
  r = TwoRanks(a, b);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::filesystem::rename(dir_ + "out", dir_ + "ranks");
  RunInto("serial", dir_ + "a/s.yaml", "");
  EXPECT_GE(ExpectSameResults("serial", "ranks").size(), 3u);
}

// Another build of rocesim: the binary under test with another git commit
// compiled in (one hex digit of it changed in place), so that nothing but
// the commit differs.
TEST_F(RankAgreementCli, RanksRunningDifferentBuildsAreRefused) {
  const CliRun version = test::RunRocesimCli("--version", dir_ + "version.log");
  const size_t at = version.output.find("(commit ");
  ASSERT_NE(at, std::string::npos) << version.output;
  const std::string commit = version.output.substr(at + 8, version.output.find(')', at) - at - 8);
  if (commit == "unknown") GTEST_SKIP() << "built outside a git checkout: no commit to change";
  std::ifstream in(std::getenv("ROCESIM_BIN"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string needle = commit + '\0';
  const size_t where = bytes.find(needle);
  ASSERT_NE(where, std::string::npos) << "commit " << commit << " not found in the binary";
  ASSERT_EQ(bytes.find(needle, where + 1), std::string::npos) << "commit found twice";
  bytes[where] = bytes[where] == '0' ? '1' : '0';
  const std::string other = dir_ + "other-rocesim";
  std::ofstream(other, std::ios::binary) << bytes;
  std::filesystem::permissions(other, std::filesystem::perms::owner_all);

  const std::string sc = "'" + Write("leaf-spine.yaml", kLeafSpine) + "'";
  const CliRun r =
      test::RunRocesimCli("run " + sc + " -q -o '" + dir_ + "out'", dir_ + "mpi.log",
                          "timeout 120 " + test::MpirunPrefix(1) + "'" + other + "' run " + sc +
                              " -q -o '" + dir_ + "out' : " + test::MpirunContext(1));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("ranks 0 and 1 differ in their rocesim build (rank 0 runs rocesim "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("every rank must run the same rocesim build"), std::string::npos)
      << r.output;
  EXPECT_EQ(test::CountOf(r.output, "rocesim: error:"), 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "out"));
}

// Machines that share no filesystem: rank 1 knows the results directory by
// another path (its own -o), as a rank on another machine sees another disk.
// Its partition's time series and packet capture still reach rank 0's
// results, which are the serial run's, and nothing is left under rank 1's
// path or in its TMPDIR. Until the twenty-sixth session rank 1 wrote them
// into its own view of the results' staging directory, and rank 0's merged
// queues.csv, ports.csv, counters.csv and rates.csv silently lacked its
// rows, and pcap/ its capture.
TEST_F(RankAgreementCli, RanksWithoutASharedFilesystemSendTheirFilesToRankZero) {
  namespace fs = std::filesystem;
  const std::string sc = "'" + Write("monitored.yaml", kMonitored) + "'";
  RunInto("serial", sc, "");
  fs::create_directories(dir_ + "tmp");
  const CliRun r = test::RunRocesimCli(
      "run " + sc + " -q -o '" + dir_ + "elsewhere/out'", dir_ + "mpi.log",
      "TMPDIR='" + dir_ + "tmp' timeout 120 " + test::MpirunPrefix(1) + std::getenv("ROCESIM_BIN") +
          " run " + sc + " -q -o '" + dir_ + "out' : " + test::MpirunContext(1));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::vector<std::string> names = ExpectSameResults("serial", "out");
  for (const char* file :
       {"queues.csv", "ports.csv", "counters.csv", "rates.csv", "pcap/0-p0.pcap", "pcap/7-p0.pcap"})
    EXPECT_NE(std::find(names.begin(), names.end(), file), names.end()) << file;
  EXPECT_FALSE(fs::exists(dir_ + "elsewhere")) << "rank 1 wrote under its -o";
  for (const auto& e : fs::directory_iterator(dir_ + "tmp"))
    EXPECT_EQ(e.path().filename().string().rfind("rocesim-", 0), std::string::npos)
        << "left behind: " << e.path();
}

}  // namespace
}  // namespace test_rank_agreement_cli
}  // namespace rocesim
