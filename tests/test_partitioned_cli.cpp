// A partitioned run (sim/partitioned_run.h) from the command line, as a user
// runs it: `rocesim run X.yaml --threads 2` and `mpirun -n 2 rocesim run
// X.yaml` write results byte-identical to the serial run's — every CSV file,
// and summary.json but for its `run` object (wall and CPU time, memory) —
// for the quickstart, the k=8 WebSearch reference run cut to 1 ms, link
// down + watchdogs + a pause storm, CIOQ + RCM with monitors, the flooding
// deadlock (the same cycle reported) and a sweep. A fabric that cannot be
// cut is refused with exit status 2 and a message that says why.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/usable_cores.h"
#include "sim/mpi_launch_env.h"
#include "sim/spin_barrier.h"
#include "tests/cli_test_support.h"

namespace rocesim {
namespace test_partitioned_cli {
namespace {

namespace fs = std::filesystem;
using test::ExamplePath;
using test::ReadFile;

using Cli = test::CliRun;
using test::HaveMpirun;

// Runs `[prefix] $ROCESIM_BIN args`, capturing its output.
Cli RunRocesim(const std::string& args, const std::string& prefix = "") {
  return test::RunRocesimCli(
      args,
      ::testing::TempDir() + "rocesim_part_" + std::to_string(::getpid()) + "_" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".log",
      prefix);
}
std::string Mpirun(int ranks) {
  return test::MpirunPrefix(ranks);
}

class PartitionedCli : public test::CliTest {
 protected:
  nlohmann::json Summary(const std::string& name) {
    return nlohmann::json::parse(ReadFile(dir_ + name + "/summary.json"));
  }

  // Serial against 2 threads, and against 2 MPI ranks when mpirun is there.
  void ExpectPartitionedEqualsSerial(const std::string& scenario, const std::string& sets = "") {
    RunInto("serial", scenario, sets);
    RunInto("threads", scenario, sets + " --threads 2");
    EXPECT_GE(ExpectSameResults("serial", "threads").size(), 3u);
    if (!HaveMpirun()) return;
    RunInto("mpi", scenario, sets, Mpirun(2));
    ExpectSameResults("serial", "mpi");
  }

  // Where each thread's time went (summary.json run.partitioned_time, rank
  // 0's own): one figure per partition and per thread, and a thread's
  // events, taking in and waiting fit in the run's wall time, as each thread
  // here runs its own partition alone and its three pieces do not overlap.
  void ExpectTimesWithinTheWall(const std::string& name, uint32_t threads, bool ranks) {
    const nlohmann::json run = Summary(name)["run"];
    ASSERT_TRUE(run.contains("partitioned_time")) << run;
    const nlohmann::json& pt = run["partitioned_time"];
    EXPECT_GT(pt["windows"].get<uint64_t>(), 100u) << pt;
    const auto events = pt["partition_event_seconds"].get<std::vector<double>>();
    const auto taking_in = pt["thread_take_in_seconds"].get<std::vector<double>>();
    const auto waiting = pt["thread_wait_seconds"].get<std::vector<double>>();
    ASSERT_EQ(events.size(), threads) << pt;
    ASSERT_EQ(taking_in.size(), threads) << pt;
    ASSERT_EQ(waiting.size(), threads) << pt;
    EXPECT_EQ(pt.contains("thread_rank_exchange_seconds"), ranks) << pt;
    const double spin = pt["barrier_spin_seconds"].get<double>();
    EXPECT_TRUE(spin == 0.001 || spin == 20e-6) << pt;
    EXPECT_TRUE(pt["barrier_backoffs"].is_number_unsigned()) << pt;
    EXPECT_GT(pt["window_event_imbalance"].get<double>(), 0) << pt;  // k8's windows are never even
    const auto frames = pt["partition_frames_taken_in"].get<std::vector<uint64_t>>();
    ASSERT_EQ(frames.size(), threads) << pt;
    for (const uint64_t f : frames) EXPECT_GT(f, 1000u) << pt;
    const double wall = run["wall_seconds"].get<double>();
    for (uint32_t t = 0; t < threads; ++t) {
      EXPECT_GT(events[t], 0) << pt;
      EXPECT_GT(taking_in[t], 0) << pt;  // frames cross every window
      EXPECT_GE(waiting[t], 0) << pt;
      EXPECT_LE(events[t] + taking_in[t] + waiting[t], wall) << pt;
    }
  }

  // After a serial run into "serial": 2 threads sharing `partitions`
  // partitions, and 2 MPI ranks when mpirun is there, give its results.
  void ExpectSharedAndRanksMatchSerial(const std::string& scenario, int partitions) {
    RunInto("shared", scenario, "--threads 2 --partitions " + std::to_string(partitions));
    ExpectSameResults("serial", "shared");
    if (!HaveMpirun()) return;
    RunInto("ranks", scenario, "", Mpirun(2));
    ExpectSameResults("serial", "ranks");
  }
};

TEST_F(PartitionedCli, QuickstartIsTheSameOnThreadsAndRanks) {
  ExpectPartitionedEqualsSerial(ExamplePath("quickstart.yaml"));
  EXPECT_EQ(Summary("threads")["flows"]["completed"], 16);
}

// --threads auto (or 0): one thread per core the affinity mask allows (under
// mpirun, each rank's share); the results are still the serial run's, and
// summary.json says how many ran.
// Anything else that is not a count is refused.
TEST_F(PartitionedCli, ThreadsAutoTakesEveryUsableCore) {
  RunInto("serial", ExamplePath("quickstart.yaml"), "");
  RunInto("auto", ExamplePath("quickstart.yaml"), "--threads auto");
  ExpectSameResults("serial", "auto");
  EXPECT_EQ(Summary("auto")["run"]["threads"], UsableCores());
  RunInto("zero", ExamplePath("quickstart.yaml"), "--threads 0");
  EXPECT_EQ(Summary("zero")["run"]["threads"], UsableCores());
  if (std::system("command -v taskset >/dev/null 2>&1") == 0) {
    RunInto("one", ExamplePath("quickstart.yaml"), "--threads auto", "taskset -c 0 ");
    EXPECT_EQ(Summary("one")["run"]["threads"], 1) << "one usable core: the serial run";
  }
  if (HaveMpirun()) {  // 2 ranks on this machine: each its share of the cores
    RunInto("ranks", ExamplePath("quickstart.yaml"), "--threads auto", Mpirun(2));
    ExpectSameResults("serial", "ranks");
    EXPECT_EQ(Summary("ranks")["run"]["ranks"], 2);
    EXPECT_EQ(Summary("ranks")["run"]["threads"], std::max(1u, UsableCores() / 2));
  }
  const Cli r = RunRocesim("run '" + ExamplePath("quickstart.yaml") + "' -q --threads many -o '" +
                           dir_ + "x'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--threads: 'many' is not a thread count: give 1 to 1024, or auto"),
            std::string::npos)
      << r.output;
  for (const char* bad : {"1025", "-1", "2.5"}) {
    const Cli b = RunRocesim("run '" + ExamplePath("quickstart.yaml") + "' -q --threads " + bad +
                             " -o '" + dir_ + "x'");
    EXPECT_EQ(b.exit_code, 2) << bad << ": " << b.output;
    EXPECT_NE(b.output.find(std::string("'") + bad + "' is not a thread count"), std::string::npos)
        << b.output;
  }
}

// --threads auto takes no more threads than the fabric can be cut for, nor
// than --partitions asks: a fabric that no cut may separate (a star whose
// window is longer than its links) runs serially and says why, where
// --threads 2 is refused; `--threads auto --partitions 1` is a serial run,
// not two partitions.
TEST_F(PartitionedCli, ThreadsAutoFitsTheFabricAndThePartitions) {
  const std::string whole =
      Write("whole.yaml",
            "name: whole\nseed: 1\nduration: 1ms\n"
            "topology: {type: star, hosts: 4, sync_window: 5us}\nhost: {cc: dcqcn}\n"
            "traffic:\n  - {type: incast, senders: \"0-2\", receiver: 3, size: 100KB}\n");
  RunInto("serial", whole, "");
  const std::string said = RunInto("auto", whole, "--threads auto", "", /*quiet=*/false);
  ExpectSameResults("serial", "auto");
  EXPECT_EQ(Summary("auto")["run"]["threads"], 1);
  if (UsableCores() > 1) {
    EXPECT_NE(said.find("rocesim: note: --threads auto: this fabric cannot be cut (links shorter "
                        "than the window"),
              std::string::npos)
        << said;
    EXPECT_NE(said.find("a serial run"), std::string::npos) << said;
  }
  const Cli two = RunRocesim("run '" + whole + "' -q --threads 2 -o '" + dir_ + "two'");
  EXPECT_EQ(two.exit_code, 2) << two.output;
  EXPECT_NE(two.output.find("cannot cut the fabric into 2 partitions: it has 1 separable parts"),
            std::string::npos)
      << two.output;
  // A sweep's points take what fits too: `--threads auto` reaches each run.
  const std::string sweep = Write("sweep.yaml", "base: " + whole + "\ngrid:\n  seed: [1, 2]\n");
  const Cli swept = RunRocesim("sweep '" + sweep + "' --threads auto -o '" + dir_ + "swept'");
  ASSERT_EQ(swept.exit_code, 0) << swept.output;
  for (const std::string p : {"p0000_seed=1", "p0001_seed=2"})
    EXPECT_EQ(Summary("swept/" + p)["run"]["threads"], 1) << p;

  const std::string quickstart = ExamplePath("quickstart.yaml");
  RunInto("qs_serial", quickstart, "");
  const std::string one = RunInto("qs_one", quickstart, "--threads auto --partitions 1", "", false);
  ExpectSameResults("qs_serial", "qs_one");
  EXPECT_EQ(Summary("qs_one")["run"]["threads"], 1);
  EXPECT_EQ(one.find("rocesim: partitions"), std::string::npos) << "a serial run:\n" << one;
  EXPECT_EQ(one.find("note: --threads auto"), std::string::npos) << "as asked:\n" << one;
}

// More threads than the cores the affinity mask allows: the run says so,
// its waiting threads sleep instead of holding the one core (the barrier,
// sim/spin_barrier.h), and the results are still the serial run's.
TEST_F(PartitionedCli, MoreThreadsThanCoresSaysSoAndStillMatches) {
  if (std::system("command -v taskset >/dev/null 2>&1") != 0) GTEST_SKIP() << "no taskset";
  RunInto("serial", ExamplePath("dcqcn-incast.yaml"), "");
  const std::string out = RunInto("pinned", ExamplePath("dcqcn-incast.yaml"), "--threads 3",
                                  "taskset -c 0 ", /*quiet=*/false);
  EXPECT_NE(out.find("note: 3 threads on 1 core (this process's affinity mask)"), std::string::npos)
      << out;
  EXPECT_GE(ExpectSameResults("serial", "pinned").size(), 6u);
}

// Unbound ranks (--bind-to none) each have every core in their masks but
// share them: 2 ranks with a thread per core each are told that their share
// is half the machine (and their threads wait briefly before sleeping at the
// barrier, as with more threads than cores: sim/partitioned_run.cpp; 3 ranks
// of 2 threads on 2 cores took 26.8 s for rcm-victim when they spun, 1.0 s
// now, against 0.24 s serial). The results are the serial run's.
TEST_F(PartitionedCli, UnboundRanksAreToldTheirShareOfTheCores) {
  if (!HaveMpirun()) GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores < 2 || cores > 4 || UsableCores() < cores)
    GTEST_SKIP() << "needs all of a 2- to 4-core machine (rcm-victim cuts at most 8 ways here)";
  RunInto("serial", ExamplePath("rcm-victim.yaml"), "");
  const std::string out =
      RunInto("ranks", ExamplePath("rcm-victim.yaml"), "--threads " + std::to_string(cores),
              Mpirun(2) + "--bind-to none ", /*quiet=*/false);
  const std::string note = "note: " + std::to_string(cores) + " threads on " +
                           std::to_string(cores / 2) + " core" + (cores / 2 == 1 ? "" : "s") +
                           ", each rank's share of this machine's " + std::to_string(cores);
  EXPECT_EQ(test::CountOf(out, note), 1) << "rank 0 alone says so: " << out;
  EXPECT_DOUBLE_EQ(Summary("ranks")["run"]["partitioned_time"]["barrier_spin_seconds"], 20e-6);
  ExpectSameResults("serial", "ranks");
}

// Ranks and threads together: 2 ranks x 2 threads, four partitions, with monitors.
TEST_F(PartitionedCli, RanksTimesThreadsIsTheSame) {
  if (!HaveMpirun()) GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  RunInto("serial", ExamplePath("dcqcn-incast.yaml"), "");
  RunInto("mpi", ExamplePath("dcqcn-incast.yaml"), "--threads 2", Mpirun(2));
  EXPECT_GE(ExpectSameResults("serial", "mpi").size(), 6u);
}

TEST_F(PartitionedCli, PrintsItsCutAndLookahead) {
  const Cli r =
      RunRocesim("run '" + ExamplePath("quickstart.yaml") + "' --threads 2 -o '" + dir_ + "out'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("partitions 2 (METIS):"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("lookahead 1000000 ps"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("seconds running events per partition"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("seconds per thread taking in frames: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(", waiting at the barrier: "), std::string::npos) << r.output;
}

// The HPCC reference run (k=8 fat tree, WebSearch 30%, DCQCN) for 1 ms of arrivals.
TEST_F(PartitionedCli, K8WebSearchIsTheSameOnThreadsAndRanks) {
  ExpectPartitionedEqualsSerial(std::string(ROCESIM_SOURCE_DIR) + "/bench/k8_websearch_dcqcn.yaml",
                                "--set duration=2.001s");
  EXPECT_GT(Summary("serial")["flows"]["completed"].get<int>(), 100);
  EXPECT_FALSE(Summary("serial")["run"].contains("partitioned_time"));
  ExpectTimesWithinTheWall("threads", 2, false);
  if (HaveMpirun()) ExpectTimesWithinTheWall("mpi", 1, true);
}

// How even the cut kept the windows (summary.json's window_event_imbalance:
// each window's busiest partition's events against the mean) counts events,
// so it is exact and the same for threads and ranks; so are the frames each
// partition took in from the others. Two leaves, a partition each (the
// leaf-group cut): a flow inside each leaf, alike, keeps the two partitions
// even; both flows inside leaf 0 leave partition 1 idle, so every window's
// busiest partition runs twice the mean.
TEST_F(PartitionedCli, WindowImbalanceAndFramesTakenInAreCountedExactly) {
  const std::string sc = Write("two_leaves.yaml", R"(
name: two-leaves
duration: 1ms
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 1, size: 200KB, start: 0us}
      - {src: 2, dst: 3, size: 200KB, start: 0us}
)");
  const auto imbalance = [&](const std::string& name) {
    return Summary(name)["run"]["partitioned_time"]["window_event_imbalance"].get<double>();
  };
  // No flow leaves its leaf, so no frame crosses the cut.
  const auto taken_in = [&](const std::string& name) {
    return Summary(name)["run"]["partitioned_time"]["partition_frames_taken_in"]
        .get<std::vector<uint64_t>>();
  };
  RunInto("even", sc, "--threads 2");
  EXPECT_LT(imbalance("even"), 0.002);  // 1,000 events against 999 in all
  EXPECT_EQ(taken_in("even"), std::vector<uint64_t>({0, 0}));
  const std::string one_leaf = "--set traffic.0.flows.1.src=0 --set traffic.0.flows.1.dst=1";
  const std::string out = RunInto("one_leaf", sc, one_leaf + " --threads 2", "", false);
  EXPECT_DOUBLE_EQ(imbalance("one_leaf"), 1.0);
  EXPECT_EQ(taken_in("one_leaf"), std::vector<uint64_t>({0, 0}));
  EXPECT_NE(out.find("(each window's busiest partition ran 100.0% more than the mean)"),
            std::string::npos)
      << out;
  if (!HaveMpirun()) return;
  RunInto("ranks", sc, one_leaf, Mpirun(2));
  EXPECT_DOUBLE_EQ(imbalance("ranks"), 1.0);
  RunInto("ranks_even", sc, "", Mpirun(2));
  EXPECT_DOUBLE_EQ(imbalance("ranks_even"), imbalance("even"));
}

// link_down (routes recomputed everywhere), a NIC pause storm, both
// watchdogs, and monitors.
TEST_F(PartitionedCli, LinkDownStormAndWatchdogsAreTheSame) {
  const std::string sc = Write("ops.yaml", R"(
name: ops
duration: 3ms
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
switch: {buffer: 12MB, pfc: {enabled: true, priorities: [3]}, watchdog: {enabled: true, detect: 100us, restore: 300us}}
host: {watchdog: {enabled: true, detect: 100us, restore: 300us}}
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 2, size: 4MB, start: 0us, priority: 3}
      - {src: 1, dst: 3, size: 4MB, start: 0us, priority: 3}
      - {src: 3, dst: 0, size: 4MB, start: 5us, priority: 3}
faults:
  - {type: link_down, a: 4, b: 6, at: 100us, convergence: 10us}
  - {type: nic_pause_storm, host: 2, at: 200us, until: 900us, priority: 3}
monitors: {interval: 20us}
)");
  ExpectPartitionedEqualsSerial(sc);
  const std::string events = ReadFile(dir_ + "threads/events.csv");
  EXPECT_NE(events.find("link_down"), std::string::npos) << events;
  EXPECT_NE(events.find("routes_recomputed"), std::string::npos) << events;
  EXPECT_NE(events.find("storm_start"), std::string::npos) << events;
  EXPECT_NE(events.find("watchdog_trigger"), std::string::npos) << events;
}

// CIOQ switches with regional congestion mitigation, sampled by monitors.
TEST_F(PartitionedCli, CioqWithRcmIsTheSame) {
  ExpectPartitionedEqualsSerial(ExamplePath("rcm-victim.yaml"),
                                "--set duration=1ms --set switch.rcm.enabled=true");
  EXPECT_TRUE(fs::exists(dir_ + "threads/input_queues.csv"));
  EXPECT_GT(Summary("threads")["rcm"]["notifications_sent"].get<int>(), 0);
}

// The experiment knobs: start rates (fair included) and rate caps, a BDP
// window, enqueue ECN marking and alpha per port speed, on a fat tree whose
// partitions each hold senders of cross-partition flows.
TEST_F(PartitionedCli, FlowAndSwitchKnobsAreTheSame) {
  const std::string sc = Write("knobs.yaml", R"(
name: knobs
duration: 2ms
topology: {type: fat_tree, k: 4, core_link: {rate: 400Gbps, delay: 1us}}
switch: {alpha: 1/8, alpha_by_rate: [{rate: 400Gbps, alpha: 1/2}], ecn: {mark_on: enqueue}}
host: {cc: dcqcn, window: bdp}
traffic:
  - {type: incast, senders: [4, 8, 12, 13], receiver: 0, size: 500KB, start_rate: 10Gbps}
  - {type: permutation, size: 300KB, start_rate: fair, max_rate: 40Gbps, cc: timely}
monitors: {interval: 20us}
)");
  ExpectPartitionedEqualsSerial(sc);
  EXPECT_GT(Summary("serial")["ecn_marks"].get<int>(), 0);
}

// HPCC on a k=4 fat tree: every data frame and ACK carries an INT stack.
constexpr const char* kHpccAcross = R"(
name: hpcc-cross
duration: 1ms
topology: {type: fat_tree, k: 4}
host: {cc: hpcc}
traffic:
  - {type: permutation, size: 200KB}
  - {type: incast, senders: [4, 8, 12], receiver: 1, size: 300KB, start: 20us}
)";

// HPCC: every data frame and ACK carries an INT stack beside it, which crosses
// partitions and ranks with the frame. With 2 ranks x 2 threads, a remote
// partition receives segments from two local partitions, each frame's stack
// found in its own segment's side data.
TEST_F(PartitionedCli, HpccIntStacksCrossThreadsAndRanks) {
  const std::string sc = Write("hpcc.yaml", kHpccAcross);
  ExpectPartitionedEqualsSerial(sc);
  EXPECT_EQ(Summary("serial")["flows"]["completed"].get<int>(), 19);
  if (!HaveMpirun()) return;
  RunInto("mpi_threads", sc, "--threads 2", Mpirun(2));
  ExpectSameResults("serial", "mpi_threads");
}

// Ranks on one machine exchange each window through shared memory
// (apps/mpi_node_window.h); a window too long for its rank's slot goes by
// MPI message, and ROCESIM_MPI_EXCHANGE=messages sends every window by
// message, as it does when /dev/shm has no room for the slots. Each gives
// the serial results, and so do 4 ranks, each taking only its own
// partitions' segments from messages that hold every rank's.
// (HPCC, for the INT stacks read in place beside their frames.)
TEST_F(PartitionedCli, RanksExchangeThroughSharedMemoryOrByMessageAlike) {
  if (!HaveMpirun()) GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  const std::string sc = Write("hpcc.yaml", kHpccAcross);
  RunInto("serial", sc, "");
  const std::string shared = RunInto("shared", sc, "", Mpirun(2), /*quiet=*/false);
  EXPECT_NE(shared.find("windows exchanged through shared memory (4 MiB slots)"), std::string::npos)
      << shared;
  EXPECT_GE(ExpectSameResults("serial", "shared").size(), 3u);
  const std::string messages =
      RunInto("messages", sc, "", Mpirun(2) + "-x ROCESIM_MPI_EXCHANGE=messages ", false);
  EXPECT_NE(messages.find("windows exchanged by MPI message"), std::string::npos) << messages;
  ExpectSameResults("serial", "messages");
  // 1 KiB slots: some windows fit, others go by message, in the same run.
  const std::string mixed =
      RunInto("mixed", sc, "--threads 2", Mpirun(2) + "-x ROCESIM_MPI_SLOT_BYTES=1000 ", false);
  EXPECT_NE(mixed.find("(1 KiB slots), "), std::string::npos) << mixed;
  EXPECT_NE(mixed.find(" of them by MPI message: too long for the slot"), std::string::npos)
      << mixed;
  ExpectSameResults("serial", "mixed");
  RunInto("four_ranks", sc, "", Mpirun(4));
  ExpectSameResults("serial", "four_ranks");
  // Slots larger than /dev/shm has room for: by message, and the run says why.
  const std::string no_room =
      RunInto("no_room", sc, "", Mpirun(2) + "-x ROCESIM_MPI_SLOT_BYTES=1099511627776 ", false);
  EXPECT_NE(no_room.find("rocesim: note: /dev/shm has "), std::string::npos) << no_room;
  EXPECT_NE(no_room.find("windows exchanged by MPI message"), std::string::npos) << no_room;
  ExpectSameResults("serial", "no_room");
}

TEST_F(PartitionedCli, ABadExchangeSettingIsRefused) {
  if (!HaveMpirun()) GTEST_SKIP() << "no mpirun (scripts/install-deps.sh installs OpenMPI)";
  for (const std::string setting :
       {"ROCESIM_MPI_EXCHANGE=pigeons", "ROCESIM_MPI_SLOT_BYTES=0", "ROCESIM_MPI_SLOT_BYTES=4k"}) {
    const Cli r = RunRocesim("run '" + ExamplePath("quickstart.yaml") + "' -q -o '" + dir_ + "out'",
                             Mpirun(2) + "-x " + setting + " ");
    EXPECT_NE(r.exit_code, 0) << setting;
    EXPECT_NE(r.output.find(setting.substr(0, setting.find('=')) + " is '" +
                            setting.substr(setting.find('=') + 1) + "'"),
              std::string::npos)
        << r.output;
  }
}

// A run without flows (only a pause storm, whose pauses hold switch ports
// past the duration) ends at its duration, as the serial run does. Until
// the twenty-fourth session a partitioned run took "every flow finished",
// true of no flows, as the run's end and stopped its clock at the last
// event it ran (sim_seconds 0.000127 against 0.0003; found by
// tests/differential_runs.py, seed 13).
TEST_F(PartitionedCli, ARunWithoutFlowsEndsAtItsDuration) {
  const std::string sc = Write("no-flows.yaml", R"(name: no-flows
duration: 300us
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2,
           host_link: {rate: 25Gbps, delay: 1us}}
switch: {pfc: {enabled: true, priorities: [3, 4]}}
faults:
  - {type: nic_pause_storm, host: 1, at: 25us, until: 126us}
)");
  ExpectPartitionedEqualsSerial(sc);
  EXPECT_EQ(Summary("serial")["sim_seconds"], 0.0003);
  EXPECT_EQ(Summary("threads")["sim_seconds"], 0.0003);
}

// The flooding deadlock: a cycle across partitions, found and reported the same way.
TEST_F(PartitionedCli, FloodingDeadlockReportsTheSameCycle) {
  ExpectPartitionedEqualsSerial(ExamplePath("deadlock-flooding.yaml"));
  const nlohmann::json d = Summary("threads")["deadlocks"];
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d, Summary("serial")["deadlocks"]);
}

// Fabric links of 120 us, so a window (120 us) holds two or three of the
// detector's samples (every 50 us): each is a meeting of the partitions, and
// the deadlock is found at the same sample as in the serial run (until the
// twenty-second session a partition took only a window's first sample and
// reported the deadlock at the next window's).
TEST_F(PartitionedCli, DeadlockSamplesSeveralTimesAWindow) {
  ExpectPartitionedEqualsSerial(ExamplePath("deadlock-flooding.yaml"),
                                "--set topology.fabric_link.delay=120us");
  const nlohmann::json d = Summary("threads")["deadlocks"];
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d, Summary("serial")["deadlocks"]);
  RunInto("shared", ExamplePath("deadlock-flooding.yaml"),
          "--set topology.fabric_link.delay=120us --threads 2 --partitions 3");
  ExpectSameResults("serial", "shared");
}

// A sweep's points run partitioned, with the serial results. Two points at
// once are told that they share the machine (ROCESIM_SWEEP_WORKERS), so
// that on 2 cores their threads wait briefly before sleeping at the barrier
// (a sweep of 4 rcm-victim points, -j 2 --threads 2 on 2 cores: 2.32 s when
// they spun, against 0.74 s with -j 1); the sweep says when its points'
// threads outnumber the cores.
TEST_F(PartitionedCli, SweepPointsRunPartitioned) {
  const std::string sweep = WriteQuickstartSeedSweep();
  ASSERT_EQ(RunRocesim("sweep '" + sweep + "' -j 1 -o '" + dir_ + "plain'").exit_code, 0);
  const Cli r = RunRocesim("sweep '" + sweep + "' -j 1 --threads 2 -o '" + dir_ + "threads'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Cli two = RunRocesim("sweep '" + sweep + "' -j 2 --threads 2 -o '" + dir_ + "two'");
  ASSERT_EQ(two.exit_code, 0) << two.output;
  const bool crowded = 2 * 2 > UsableCores();
  EXPECT_EQ(
      two.output.find("sweep: note: 2 points at once, each on 2 threads, on ") != std::string::npos,
      crowded)
      << two.output;
  EXPECT_EQ(r.output.find("note"), std::string::npos) << r.output;
  // How long a waiting thread spins: 1 ms when each thread of the points
  // running at once has a core (sim/spin_barrier.h).
  auto spin = [](uint32_t cores) {
    return std::chrono::duration<double>(SpinBarrier::ForCores(2, cores)).count();
  };
  const uint32_t machine = std::max(1u, std::thread::hardware_concurrency());
  for (const std::string p : {"p0000_seed=1", "p0001_seed=2"}) {
    nlohmann::json a = nlohmann::json::parse(ReadFile(dir_ + "plain/" + p + "/summary.json"));
    a.erase("run");
    for (const std::string way : {"threads", "two"}) {
      nlohmann::json b = nlohmann::json::parse(ReadFile(dir_ + way + "/" + p + "/summary.json"));
      const double spun = b["run"]["partitioned_time"]["barrier_spin_seconds"];
      EXPECT_DOUBLE_EQ(spun, spin(way == "threads" ? AutoThreads(UsableCores(), machine, nullptr)
                                                   : AutoThreads(UsableCores(), machine, "2")))
          << way << " " << p;
      b.erase("run");
      EXPECT_EQ(a, b) << way << " " << p;
      EXPECT_EQ(ReadFile(dir_ + "plain/" + p + "/flows.csv"),
                ReadFile(dir_ + way + "/" + p + "/flows.csv"));
    }
  }
}

TEST_F(PartitionedCli, RepeatedPartitionedRunsAreIdentical) {
  RunInto("a", ExamplePath("dcqcn-incast.yaml"), "--threads 2");
  RunInto("b", ExamplePath("dcqcn-incast.yaml"), "--threads 2");
  ExpectSameResults("a", "b");
}

// A star of `hosts` hosts on links of `delay`, run with `--threads threads`.
Cli RunStar(const std::string& dir, int hosts, const std::string& delay, int threads) {
  const std::string sc = dir + "star.yaml";
  std::ofstream(sc) << "name: star\nduration: 1ms\ntopology: {type: star, hosts: " << hosts
                    << ", host_link: {rate: 100Gbps, delay: " << delay << "}}\n"
                    << "traffic:\n  - type: flows\n    flows:\n"
                    << "      - {src: 0, dst: 1, size: 10KB, start: 0us}\n";
  return RunRocesim("run '" + sc + "' -q --threads " + std::to_string(threads) + " -o '" + dir +
                    "out'");
}

TEST_F(PartitionedCli, MorePartitionsThanTheFabricHasIsRefused) {
  const Cli r = RunStar(dir_, 2, "1us", 4);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cannot cut the fabric into 4 partitions"), std::string::npos)
      << r.output;
}

// A buffer too small for one switch's carve-outs is refused by every
// partition, thread and rank alike, naming the switch the serial run names:
// switch B (node 8, seven ports) cannot hold its headroom in 200 KB, switch A
// (node 7, two ports) can. Until the twenty-third session each partition
// checked only its own switches, so the partition holding A built on and,
// under mpirun, waited for B's rank forever.
TEST_F(PartitionedCli, ABufferTooSmallForOneSwitchIsRefusedEverywhere) {
  const std::string sc = Write("small.yaml", R"(duration: 100us
topology: {type: dumbbell, hosts_left: 1, hosts_right: 6}
switch:
  buffer: 200KB
traffic: [{type: flows, flows: [{src: 0, dst: 3, size: 10KB}]}]
)");
  std::vector<std::pair<std::string, std::string>> ways = {{"", ""}, {"--threads 2", ""}};
  if (HaveMpirun()) ways.push_back({"", "timeout 120 " + Mpirun(2)});
  for (const auto& [args, prefix] : ways) {
    const Cli r = RunRocesim("run '" + sc + "' -q " + args + " -o '" + dir_ + "out'", prefix);
    EXPECT_EQ(r.exit_code, 2) << prefix << args << ": " << r.output;
    EXPECT_NE(r.output.find("small.yaml:4:3: switch.buffer: 200000 bytes is too small for switch "
                            "node 8:"),
              std::string::npos)
        << prefix << args << ": " << r.output;
    EXPECT_EQ(r.output.find("node 7"), std::string::npos) << r.output;
  }
}

// Host links shorter than the fabric's (200 ns against 1 us): the window is
// the fabric links' delay, not the host links', and the results are still
// the serial run's; more partitions than switches are refused, naming a
// short link.
TEST_F(PartitionedCli, ShortHostLinksKeepTheFabricLinksWindow) {
  const std::string sc = Write(
      "short-host-links.yaml",
      "name: short-host-links\nduration: 2ms\nseed: 3\n"
      "topology: {type: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 4,\n"
      "  host_link: {rate: 100Gbps, delay: 200ns}, fabric_link: {rate: 100Gbps, delay: 1us}}\n"
      "switch: {pfc: {enabled: true}, ecn: {enabled: true}}\n"
      "host: {cc: dcqcn}\n"
      "traffic:\n  - {type: poisson, load: 50%, cdf: websearch, span: 300us}\n");
  RunInto("serial", sc, "");
  const std::string out = RunInto("threads", sc, "--threads 2", "", /*quiet=*/false);
  EXPECT_NE(out.find("lookahead 1000000 ps (smallest cut-link delay), window 1000000 ps"),
            std::string::npos)
      << out;
  EXPECT_GE(ExpectSameResults("serial", "threads").size(), 3u);
  ExpectSharedAndRanksMatchSerial(sc, 5);
  const Cli r = RunRocesim("run '" + sc + "' -q --threads 1 --partitions 7 -o '" + dir_ + "seven'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cannot cut the fabric into 7 partitions: it has 6 separable parts"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("shorter than the 1000000 ps window"), std::string::npos) << r.output;
}

// Pods on 200 ns links (hosts too) and cores on 1 us ones: the default window is 200 ns
// and the run says that its cut allows 1 us; with topology.sync_window: 1us
// the partitioned runs synchronise once per microsecond and still write the
// serial run's results (which ends after the same, longer windows).
TEST_F(PartitionedCli, SyncWindowLengthensTheWindowAndKeepsResultsIdentical) {
  const std::string topology =
      "topology: {type: fat_tree, k: 4, host_link: {rate: 100Gbps, delay: 200ns},\n"
      "  fabric_link: {rate: 100Gbps, delay: 200ns}, core_link: {rate: 100Gbps, delay: 1us}";
  const std::string rest =
      "switch: {pfc: {enabled: true}, ecn: {enabled: true}}\n"
      "host: {cc: dcqcn}\n"
      "traffic:\n  - {type: poisson, load: 50%, cdf: websearch, span: 300us}\n";
  const std::string head = "name: sync-window\nduration: 2ms\nseed: 5\n";
  const std::string by_default = Write("pods-default.yaml", head + topology + "}\n" + rest);
  const std::string out = RunInto("default", by_default, "--threads 2", "", /*quiet=*/false);
  EXPECT_NE(out.find("window 200000 ps"), std::string::npos) << out;
  EXPECT_NE(out.find("topology.sync_window: 1us would synchronise 5 times less often"),
            std::string::npos)
      << out;

  const std::string sc = Write("pods-1us.yaml", head + topology + ", sync_window: 1us}\n" + rest);
  RunInto("serial", sc, "");
  const std::string threads = RunInto("threads", sc, "--threads 2", "", /*quiet=*/false);
  EXPECT_NE(threads.find("lookahead 1000000 ps (smallest cut-link delay), window 1000000 ps"),
            std::string::npos)
      << threads;
  EXPECT_EQ(threads.find("sync_window: 1us would"), std::string::npos) << threads;
  EXPECT_GE(ExpectSameResults("serial", "threads").size(), 3u);
  ExpectSharedAndRanksMatchSerial(sc, 4);
  const Cli r = RunRocesim("run '" + sc + "' -q --threads 1 --partitions 9 -o '" + dir_ + "nine'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("window set by topology.sync_window cannot be cut"), std::string::npos)
      << r.output;
}

// Links of zero delay give no lookahead: never cut, and a fabric of nothing
// else cannot be split; the error names such a link.
TEST_F(PartitionedCli, ZeroDelayLinksAreNeverCut) {
  const Cli r = RunStar(dir_, 4, "0us", 2);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("zero delay cannot be cut"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("node "), std::string::npos) << r.output;
}

}  // namespace
}  // namespace test_partitioned_cli
}  // namespace rocesim
