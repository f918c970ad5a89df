// Flows that wait for flows from the command line: a partitioned run
// (`--threads 2`, and `mpirun -n 2` when there is one) resolves every
// dependency at the dependent flow's source host, inside its own partition,
// so it writes results byte-identical to the serial run's — flows.csv,
// collectives.csv, collective_steps.csv and summary.json but for its `run`
// object — for a dependency file whose flows wait across pods of a k=4 fat
// tree, ring / tree AllReduce and direct AllToAll collectives on it, and a
// hierarchical AllReduce on a rail-optimized fabric with NVLink servers. A
// scenario run twice with the same seed writes the same collectives.csv.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_test_support.h"
#include "tests/dependency_dag.h"

namespace rocesim {
namespace test_collective_cli {
namespace {

namespace fs = std::filesystem;
using test::ReadFile;

using test::HaveMpirun;

class CollectiveCli : public test::CliTest {
 protected:
  // Serial against 2 threads, and against 2 MPI ranks when mpirun is there;
  // collectives.csv and collective_steps.csv among the files when `jobs`.
  void ExpectPartitionedEqualsSerial(const std::string& scenario, bool jobs) {
    RunInto("serial", scenario, "");
    RunInto("threads", scenario, "--threads 2");
    std::vector<std::string> files = ExpectSameResults("serial", "threads");
    auto has = [&](const std::string& n) {
      return std::find(files.begin(), files.end(), n) != files.end();
    };
    EXPECT_TRUE(has("flows.csv"));
    EXPECT_TRUE(has("summary.json"));
    EXPECT_EQ(has("collectives.csv"), jobs);
    EXPECT_EQ(has("collective_steps.csv"), jobs);
    if (!HaveMpirun()) return;
    RunInto("mpi", scenario, "", test::MpirunPrefix(2));
    files = ExpectSameResults("serial", "mpi");
    EXPECT_EQ(has("collectives.csv"), jobs);
  }

  nlohmann::json Summary(const std::string& name) {
    return nlohmann::json::parse(ReadFile(dir_ + name + "/summary.json"));
  }
  // collectives.csv rows (without the header), split at commas.
  std::vector<std::vector<std::string>> CollectiveRows(const std::string& name) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(ReadFile(dir_ + name + "/collectives.csv"));
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::vector<std::string> cells;
      std::istringstream l(line);
      std::string c;
      while (std::getline(l, c, ',')) cells.push_back(c);
      rows.push_back(std::move(cells));
    }
    return rows;
  }
  // Every instance in collectives.csv is complete (column 9).
  void ExpectCollectivesComplete(const std::string& name, size_t instances) {
    const auto rows = CollectiveRows(name);
    ASSERT_EQ(rows.size(), instances);
    for (const auto& r : rows) {
      ASSERT_GT(r.size(), 11u);
      EXPECT_EQ(r[9], "1");
      EXPECT_FALSE(r[11].empty());
    }
  }
};

// k = 4 fat tree (pods of 4 hosts: `--threads 2` cuts it by pods, hosts
// 0-7 | 8-15), DCQCN, PFC, ECN.
const std::string kFatTree =
    "seed: 3\n"
    "duration: 50ms\n"
    "topology: {type: fat_tree, k: 4}\n"
    "switch: {pfc: {enabled: true, priorities: [3]}, ecn: {enabled: true}}\n"
    "host: {cc: dcqcn}\n";

TEST_F(CollectiveCli, DependencyFileAcrossPodsIsTheSame) {
  test::DagOptions o;
  o.hosts = 16;
  o.min_flows = 100;
  o.max_flows = 140;
  o.start_fraction = 0.1;
  const std::vector<test::DagFlow> dag = test::RandomDag(31, o);
  // Flows that wait for a flow arriving from the other partition.
  int across = 0;
  for (const test::DagFlow& d : dag)
    for (int p : d.deps) across += dag[p].dst == d.src && dag[p].src / 8 != d.src / 8;
  EXPECT_GT(across, 10);
  Write("deps.csv", test::DagCsv(dag, 31));
  const std::string sc = Write("deps.yaml", kFatTree +
                                                "traffic:\n"
                                                "  - type: dependency_file\n"
                                                "    file: deps.csv\n");
  ExpectPartitionedEqualsSerial(sc, false);
  EXPECT_EQ(Summary("threads")["flows"]["completed"].get<size_t>(), dag.size());
}

TEST_F(CollectiveCli, RingAllReduceIsTheSame) {
  // A plain entry first: the collective's flows and dependencies start at
  // an offset.
  const std::string sc = Write("ring.yaml", kFatTree +
                                                "traffic:\n"
                                                "  - type: flows\n"
                                                "    flows:\n"
                                                "      - {src: 0, dst: 15, size: 500KB}\n"
                                                "      - {src: 9, dst: 2, size: 300KB}\n"
                                                "  - type: collective\n"
                                                "    op: allreduce\n"
                                                "    algorithm: ring\n"
                                                "    size: 2MB\n"
                                                "    channels: 2\n"
                                                "    chunk: 256KB\n"
                                                "    iterations: 2\n"
                                                "    compute: 10us\n");
  ExpectPartitionedEqualsSerial(sc, true);
  ExpectCollectivesComplete("threads", 2);
  const nlohmann::json job = Summary("threads")["jobs"][0];
  EXPECT_EQ(job["completed"], 2);
  EXPECT_EQ(job["ranks"], 16);
}

TEST_F(CollectiveCli, TreeAllReduceIsTheSame) {
  const std::string sc = Write("tree.yaml", kFatTree +
                                                "traffic:\n"
                                                "  - type: collective\n"
                                                "    op: allreduce\n"
                                                "    algorithm: tree\n"
                                                "    size: 2MB\n"
                                                "    channels: 2\n"
                                                "    chunk: 256KB\n"
                                                "    iterations: 2\n"
                                                "    compute: 10us\n");
  ExpectPartitionedEqualsSerial(sc, true);
  ExpectCollectivesComplete("threads", 2);
}

TEST_F(CollectiveCli, DirectAllToAllIsTheSame) {
  const std::string sc = Write("a2a.yaml", kFatTree +
                                               "traffic:\n"
                                               "  - type: collective\n"
                                               "    op: alltoall\n"
                                               "    algorithm: direct\n"
                                               "    size: 2MB\n"
                                               "    iterations: 2\n"
                                               "    compute: 5us\n");
  ExpectPartitionedEqualsSerial(sc, true);
  ExpectCollectivesComplete("threads", 2);
}

// Rail-optimized: 4 servers of 4 GPUs in 2 rail groups (the cut), NVLink
// inside servers, rings across them per rail.
TEST_F(CollectiveCli, HierarchicalAllReduceOnRailIsTheSame) {
  const std::string sc = Write("rail.yaml",
                               "seed: 5\n"
                               "duration: 50ms\n"
                               "topology: {type: rail, servers: 4, gpus_per_server: 4,\n"
                               "           servers_per_rail_group: 2, spines: 2}\n"
                               "switch: {pfc: {enabled: true, priorities: [3]}, ecn: {enabled: "
                               "true}}\n"
                               "host: {cc: dcqcn}\n"
                               "traffic:\n"
                               "  - type: collective\n"
                               "    op: allreduce\n"
                               "    algorithm: hierarchical\n"
                               "    size: 2MB\n"
                               "    channels: 2\n"
                               "    chunk: 256KB\n"
                               "    iterations: 2\n"
                               "    compute: 10us\n");
  ExpectPartitionedEqualsSerial(sc, true);
  ExpectCollectivesComplete("threads", 2);
  EXPECT_GT(Summary("threads").value("nvlink_bytes", 0), 0);
}

// The same scenario and seed twice: the same collectives.csv (and steps).
TEST_F(CollectiveCli, SameSeedSameCollectivesCsv) {
  const std::string sc = Write("twice.yaml", kFatTree +
                                                 "traffic:\n"
                                                 "  - type: collective\n"
                                                 "    op: allreduce\n"
                                                 "    algorithm: ring\n"
                                                 "    size: 2MB\n"
                                                 "    channels: 2\n"
                                                 "    chunk: 256KB\n"
                                                 "    iterations: 2\n"
                                                 "    compute: 10us\n"
                                                 "  - type: poisson\n"
                                                 "    load: 20%\n"
                                                 "    cdf: websearch\n"
                                                 "    span: 200us\n");
  RunInto("one", sc, "");
  RunInto("two", sc, "");
  const std::string a = ReadFile(dir_ + "one/collectives.csv");
  EXPECT_GT(a.size(), 100u);
  EXPECT_EQ(a, ReadFile(dir_ + "two/collectives.csv"));
  EXPECT_EQ(ReadFile(dir_ + "one/collective_steps.csv"),
            ReadFile(dir_ + "two/collective_steps.csv"));
  EXPECT_EQ(ReadFile(dir_ + "one/flows.csv"), ReadFile(dir_ + "two/flows.csv"));
  ExpectCollectivesComplete("one", 2);
}

}  // namespace
}  // namespace test_collective_cli
}  // namespace rocesim

namespace rocesim {
namespace test_collective_cli {
namespace {

// A SimAI workload (tensor parallel 4, expert parallel 2, data parallel 4 on
// 16 GPUs) through `rocesim import-aicb`: the scenario it writes runs, and
// runs the same serial, on 2 threads and on 2 MPI ranks; a bad workload file
// is refused naming its line.
TEST_F(CollectiveCli, AicbWorkloadImportedRunsTheSamePartitioned) {
  Write("w.txt",
        "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 ep: 2 pp: 1 vpp: 2 ga: 1 "
        "all_gpus: 16 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0\n"
        "5\n"
        "grad_param_comm\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tREDUCESCATTER\t400000\t100\n"
        "attention_layer\t-1\t20000\tALLREDUCE\t200000\t25000\tALLREDUCE\t200000\t25000\tNONE\t0\t"
        "100\n"
        "moelayer\t-1\t1\tALLTOALL_EP\t100000\t1\tALLTOALL_EP\t100000\t1\tNONE\t0\t100\n"
        "mlp_layer\t-1\t15000\tALLREDUCE\t200000\t18000\tALLREDUCE\t200000\t18000\tALLREDUCE\t"
        "300000\t100\n"
        "moe_grad\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLGATHER_DP_EP\t80000\t100\n");
  const test::CliRun imp = test::RunRocesimCli(
      "import-aicb '" + dir_ + "w.txt' -o '" + dir_ + "s.yaml' --gpus-per-server 4 --iterations 2",
      dir_ + "import.log");
  ASSERT_EQ(imp.exit_code, 0) << imp.output;
  const std::string yaml = ReadFile(dir_ + "s.yaml");
  EXPECT_NE(yaml.find("type: rail"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("file: w.txt"), std::string::npos) << yaml;
  ExpectPartitionedEqualsSerial(dir_ + "s.yaml", true);
  ExpectCollectivesComplete("threads", 2);
  const nlohmann::json job = Summary("threads")["jobs"][0];
  EXPECT_EQ(job["op"], "training");
  EXPECT_EQ(job["ranks"], 16);
  EXPECT_EQ(job["workload"]["ep"], 2);
  EXPECT_GT(Summary("threads").value("nvlink_bytes", 0), 0);

  Write("bad.txt", "HYBRID_TRANSFORMER all_gpus: 16\n1\nl\t-1\t1\tALLREDUCE\t64\n");
  const test::CliRun bad = test::RunRocesimCli(
      "import-aicb '" + dir_ + "bad.txt' -o '" + dir_ + "bad.yaml'", dir_ + "bad.log");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("bad.txt:3: expected 12 fields"), std::string::npos) << bad.output;
  EXPECT_FALSE(fs::exists(dir_ + "bad.yaml"));
  Write("nogpus.txt", "DATA\n1\nl\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLREDUCE\t64\t1\n");
  const test::CliRun no_gpus = test::RunRocesimCli(
      "import-aicb '" + dir_ + "nogpus.txt' -o '" + dir_ + "n.yaml'", dir_ + "n.log");
  EXPECT_EQ(no_gpus.exit_code, 2);
  EXPECT_NE(no_gpus.output.find("give --gpus N"), std::string::npos) << no_gpus.output;
}

}  // namespace
}  // namespace test_collective_cli
}  // namespace rocesim
