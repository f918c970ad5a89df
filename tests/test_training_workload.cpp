// SimAI workload files (workload/simai_workload.h) and the training loops
// they expand into (workload/training_loop.h): the reader against
// hand-written files, the groups against Megatron's layout, and each rank's
// program against the picosecond its messages start (issue "AI training on
// RoCE fabrics", import of a public workload format).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "scenario/scenario_reader.h"
#include "tests/sim_test_support.h"
#include "workload/simai_workload.h"
#include "workload/training_loop.h"

namespace rocesim {
namespace test_training_workload {
namespace {

using test::RunYaml;

std::string ErrorOf(const std::string& text) {
  try {
    ParseSimaiWorkload(text, "w.txt");
  } catch (const SimaiWorkloadError& e) {
    return e.what();
  }
  return "";
}

TEST(SimaiWorkloadFile, ReadsAicbsHeaderAndLayers) {
  // As AICB writes it: tabs, the newer header keys, trailing newline.
  const SimaiWorkload w = ParseSimaiWorkload(
      "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 ep: 2 pp: 1 vpp: 8 ga: 2 "
      "all_gpus: 16 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0\n"
      "2\n"
      "attention_layer\t-1\t539986\tALLREDUCE\t16777216\t592000\tALLREDUCE_EP\t8\t592000\tNONE\t0"
      "\t100\n"
      "moe\t-1\t1\tALLTOALL_EP\t1024\t2\tNONE\t0\t3\tREDUCESCATTER_DP_EP\t4096\t100\n",
      "w.txt");
  EXPECT_EQ(w.loop, SimaiLoop::kTransformer);
  EXPECT_EQ(w.tp, 4);
  EXPECT_EQ(w.ep, 2);
  EXPECT_EQ(w.ga, 2);
  EXPECT_EQ(w.all_gpus, 16);
  ASSERT_EQ(w.layers.size(), 2u);
  const SimaiLayer& a = w.layers[0];
  EXPECT_EQ(a.name, "attention_layer");
  EXPECT_EQ(a.line, 3);
  EXPECT_EQ(a.forward_compute, 539986 * kNanosecond);
  EXPECT_EQ(a.forward.type, SimaiCommType::kAllReduce);
  EXPECT_EQ(a.forward.group, SimaiGroup::kTensor);
  EXPECT_EQ(a.forward.bytes, 16777216);
  EXPECT_EQ(a.input_grad.group, SimaiGroup::kExpert);
  EXPECT_EQ(a.weight_grad.type, SimaiCommType::kNone);
  const SimaiLayer& m = w.layers[1];
  EXPECT_EQ(m.forward.type, SimaiCommType::kAllToAll);
  EXPECT_EQ(m.forward.group, SimaiGroup::kExpert);
  // Unsuffixed, a weight-gradient comm runs in the data-parallel group.
  EXPECT_EQ(m.weight_grad.type, SimaiCommType::kReduceScatter);
  EXPECT_EQ(m.weight_grad.group, SimaiGroup::kDataExpert);
  EXPECT_EQ(m.weight_update, 100 * kNanosecond);
}

TEST(SimaiWorkloadFile, ReadsTheOlderHeaderAndMixedWhitespace) {
  // AICB's older files: no all_gpus, spaces and tabs mixed, no final newline.
  const SimaiWorkload w = ParseSimaiWorkload(
      "HYBRID_TRANSFORMER_FWD_IN_BCKWD\tmodel_parallel_NPU_group: 1 checkpoints: 0 "
      "checkpoint_initiates: 0\n1\nl1\t-1\t 14356000\tNONE\t0   4756000\tALLGATHER\t357468\t 1"
      "\tREDUCESCATTER\t1889785610\t100",
      "w.txt");
  EXPECT_EQ(w.all_gpus, 0);
  EXPECT_EQ(w.tp, 1);
  ASSERT_EQ(w.layers.size(), 1u);
  EXPECT_EQ(w.layers[0].input_grad_compute, 4756000 * kNanosecond);
  EXPECT_EQ(w.layers[0].weight_grad.bytes, 1889785610);
  EXPECT_EQ(ParseSimaiWorkload("MICRO\n1\nm\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLREDUCE\t4096\t1\n",
                               "w.txt")
                .loop,
            SimaiLoop::kMicro);
}

TEST(SimaiWorkloadFile, ErrorsNameTheLineAndField) {
  const std::string head = "HYBRID_TRANSFORMER model_parallel_NPU_group: 2\n";
  const std::string ok = "l\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLREDUCE\t64\t1\n";
  EXPECT_EQ(ErrorOf(""),
            "w.txt:1: expected the training loop (e.g. "
            "HYBRID_TRANSFORMER_FWD_IN_BCKWD), got an empty line");
  EXPECT_NE(ErrorOf("HYBRID_DLRM\n1\n" + ok).find("w.txt:1: training loop \"HYBRID_DLRM\" is not"),
            std::string::npos);
  EXPECT_NE(ErrorOf("DATA pp: 4\n1\n" + ok).find("w.txt:1: pp: pipeline parallelism (4 stages)"),
            std::string::npos);
  EXPECT_NE(ErrorOf("DATA checkpoints: 2 3 4\n1\n" + ok).find("activation checkpointing"),
            std::string::npos);
  EXPECT_EQ(ErrorOf("DATA colour: 3\n1\n" + ok), "w.txt:1: unknown key \"colour:\"");
  EXPECT_EQ(ErrorOf(head + "two\n" + ok),
            "w.txt:2: layer count: expected a non-negative integer, got \"two\"");
  EXPECT_EQ(ErrorOf(head + "2\n" + ok),
            "w.txt:4: the file ends after 1 of the 2 layer lines that line 2 announces");
  EXPECT_EQ(ErrorOf(head + "1\n" + ok + ok),
            "w.txt:4: more layer lines than the 1 that line 2 "
            "announces");
  EXPECT_NE(ErrorOf(head + "1\nl\t-1\t1\tNONE\t0\n").find("w.txt:3: expected 12 fields"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(head + "1\nl\t-1\t1\tALLREDUCE\t64\t-5\tNONE\t0\t1\tNONE\t0\t1\n"),
            "w.txt:3: input-gradient compute: expected a non-negative integer, got \"-5\"");
  EXPECT_NE(ErrorOf(head + "1\nl\t-1\t1\tALLSCATTER\t64\t1\tNONE\t0\t1\tNONE\t0\t1\n")
                .find("w.txt:3: forward comm: unknown comm type \"ALLSCATTER\""),
            std::string::npos);
  EXPECT_EQ(ErrorOf(head + "1\nl\t-1\t1\tALLREDUCE\t0\t1\tNONE\t0\t1\tNONE\t0\t1\n"),
            "w.txt:3: forward comm: ALLREDUCE of 0 bytes");
  EXPECT_NE(ErrorOf(head + "1\nl\t-1\t99999999999999\tNONE\t0\t1\tNONE\t0\t1\tNONE\t0\t1\n")
                .find("w.txt:3: forward compute: 99999999999999 is more than"),
            std::string::npos);
}

TEST(SimaiGroups, FollowMegatronsLayout) {
  using G = std::vector<std::vector<int>>;
  EXPECT_EQ(SimaiGroups(SimaiGroup::kTensor, 8, 2, 2), (G{{0, 1}, {2, 3}, {4, 5}, {6, 7}}));
  EXPECT_EQ(SimaiGroups(SimaiGroup::kData, 8, 2, 2), (G{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_EQ(SimaiGroups(SimaiGroup::kExpert, 8, 2, 2), (G{{0, 2}, {4, 6}, {1, 3}, {5, 7}}));
  EXPECT_EQ(SimaiGroups(SimaiGroup::kDataExpert, 8, 2, 2), (G{{0, 4}, {2, 6}, {1, 5}, {3, 7}}));
}

// A workload file in a temporary directory, run on a 4-host star.
class TrainingRun : public ::testing::Test {
 protected:
  test::SimRun Run(const std::string& workload, const std::string& entry_keys = "", int hosts = 4) {
    const std::string dir = test::TestTempDir();
    std::ofstream(dir + "w.txt") << workload;
    return RunYaml(
        "name: t\nduration: 100ms\ntopology: {type: star, hosts: " + std::to_string(hosts) +
        ", host_link: {rate: 100Gbps, delay: 1us}}\ntraffic:\n"
        "  - {type: aicb_workload, file: " +
        dir + "w.txt" + entry_keys + "}\n");
  }
};

// When rank `h` is done with flows [first, end) that touch it: its sends
// acknowledged, its receives complete (a blocking comm's end at the rank).
Time DoneAt(const FlowTable& flows, uint32_t host, size_t first, size_t end) {
  Time t = -1;
  for (size_t i = first; i < end; ++i) {
    if (flows[i].src == host) t = std::max(t, flows[i].finish);
    if (flows[i].dst == host) t = std::max(t, flows[i].received);
  }
  return t;
}

Time FirstStartFrom(const FlowTable& flows, uint32_t host, size_t first, size_t end) {
  Time t = kTimeMax;
  for (size_t i = first; i < end; ++i)
    if (flows[i].src == host) t = std::min(t, flows[i].start);
  return t;
}

TEST_F(TrainingRun, TransformerRanksComputeThenWaitForEachBlockingComm) {
  // tp 2, dp 2 on 4 ranks. One layer: forward 10 us then an AllReduce of
  // 1 MB in the tensor group {0,1} / {2,3}; input gradient 20 us (no comm);
  // weight gradient 30 us then an AllReduce of 2 MB in the data group
  // {0,2} / {1,3}. Ring AllReduce of two ranks: 2 messages per rank.
  const test::SimRun r =
      Run("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 4\n1\n"
          "layer\t-1\t10000\tALLREDUCE\t1000000\t20000\tNONE\t0\t30000\tALLREDUCE\t2000000\t0\n",
          ", iterations: 2");
  ASSERT_TRUE(r.stats.all_flows_done);
  const FlowTable& f = r.fabric().flows;
  // Per iteration: 4 ranks x 2 messages in the tensor comm, then in the data comm.
  ASSERT_EQ(f.Count(), 32u);
  for (uint32_t h = 0; h < 4; ++h) {
    // Iteration 0: the forward compute delays the first message.
    EXPECT_EQ(FirstStartFrom(f, h, 0, 8), 10 * kMicrosecond);
    // The weight-gradient comm starts 20 + 30 us after the rank's part of
    // the blocking tensor comm ended, to the picosecond.
    EXPECT_EQ(FirstStartFrom(f, h, 8, 16), DoneAt(f, h, 0, 8) + 50 * kMicrosecond);
    // Iteration 1's forward waits for iteration 0's weight-gradient comm
    // at the rank, then computes 10 us.
    EXPECT_EQ(FirstStartFrom(f, h, 16, 24), DoneAt(f, h, 8, 16) + 10 * kMicrosecond);
    EXPECT_EQ(FirstStartFrom(f, h, 24, 32), DoneAt(f, h, 16, 24) + 50 * kMicrosecond);
  }
  for (const Flow& fl : f) {
    // Tensor comms in tensor groups, data comms in data groups.
    const bool tensor = (fl.id % 16) < 8;
    EXPECT_EQ(fl.src / 2 == fl.dst / 2, tensor) << fl.id;
    EXPECT_EQ(fl.size_bytes, tensor ? 500'000 : 1'000'000);
  }
  const nlohmann::json& job = r.summary["jobs"][0];
  EXPECT_EQ(job["op"], "training");
  EXPECT_EQ(job["completed"], 2);
  EXPECT_EQ(job["workload"]["dp"], 2);
  EXPECT_FALSE(job.contains("busbw_gbps_mean"));
  // Alone on an idle star, an iteration takes its ideal.
  EXPECT_NEAR(job["slowdown_mean"].get<double>(), 1, 0.02);
}

TEST_F(TrainingRun, DataParallelWeightGradientCommsOverlapTheBackwardPass) {
  // DATA, two layers, 4 ranks all in one data group (tp 1). Forward 5 + 13
  // us; backward: layer 1's weight gradient (19 us), its comm starts at
  // 37 us and runs while the rank computes layer 1's input gradient (17 us)
  // and layer 0's weight gradient (11 us): layer 0's comm is issued at
  // 65 us, and queues behind layer 1's on the same connections.
  const test::SimRun r =
      Run("DATA all_gpus: 4\n2\n"
          "l0\t-1\t5000\tNONE\t0\t7000\tNONE\t0\t11000\tALLREDUCE\t4000000\t0\n"
          "l1\t-1\t13000\tNONE\t0\t17000\tNONE\t0\t19000\tALLREDUCE\t4000000\t0\n");
  ASSERT_TRUE(r.stats.all_flows_done);
  const FlowTable& f = r.fabric().flows;
  // Ring AllReduce of 4 ranks: 6 steps x 4 messages each.
  ASSERT_EQ(f.Count(), 48u);
  for (uint32_t h = 0; h < 4; ++h) {
    EXPECT_EQ(FirstStartFrom(f, h, 0, 24), 37 * kMicrosecond);
    // Layer 0's comm: issued at 65 us, while layer 1's is still running.
    EXPECT_GE(FirstStartFrom(f, h, 24, 48), 65 * kMicrosecond);
    EXPECT_LT(FirstStartFrom(f, h, 24, 48), DoneAt(f, h, 0, 24));
  }
}

TEST_F(TrainingRun, MicroRunsEachLineInTurn) {
  const test::SimRun r =
      Run("MICRO\n2\n"
          "m\t-1\t1\tNONE\t0\t1\tNONE\t0\t1000\tALLGATHER\t400000\t1\n"
          "m\t-1\t1\tNONE\t0\t1\tNONE\t0\t1000\tALLTOALL\t400000\t1\n",
          ", iterations: 2");
  ASSERT_TRUE(r.stats.all_flows_done);
  const FlowTable& f = r.fabric().flows;
  // Ring all-gather: 3 steps x 4; direct all-to-all: 12 messages.
  ASSERT_EQ(f.Count(), 2u * (12 + 12));
  for (uint32_t h = 0; h < 4; ++h) {
    EXPECT_EQ(FirstStartFrom(f, h, 0, 12), 1 * kMicrosecond);
    EXPECT_EQ(FirstStartFrom(f, h, 12, 24), DoneAt(f, h, 0, 12) + 1 * kMicrosecond);
    EXPECT_EQ(FirstStartFrom(f, h, 24, 36), DoneAt(f, h, 12, 24) + 1 * kMicrosecond);
  }
  for (size_t i = 12; i < 24; ++i) EXPECT_EQ(f[i].size_bytes, 100'000);
}

TEST_F(TrainingRun, ScenarioErrorsNameTheWorkloadLine) {
  const std::string dir = test::TestTempDir();
  std::ofstream(dir + "w.txt")
      << "DATA all_gpus: 8\n1\nl\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tBAD\t4\t1\n";
  std::ofstream(dir + "ok.txt") << "DATA all_gpus: 8\n1\nl\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\t"
                                   "ALLREDUCE\t4096\t1\n";
  std::ofstream(dir + "tp3.txt") << "HYBRID_TRANSFORMER model_parallel_NPU_group: 3\n1\nl\t-1\t"
                                    "1\tALLREDUCE\t64\t1\tNONE\t0\t1\tNONE\t0\t1\n";
  const auto error = [&](const std::string& entry, int hosts = 8) {
    return test::ScenarioErrorOf("name: e\ntopology: {type: star, hosts: " + std::to_string(hosts) +
                                 "}\ntraffic:\n  - {type: aicb_workload, " + entry + "}\n");
  };
  EXPECT_NE(error("file: " + dir + "w.txt")
                .find("w.txt:3: weight-gradient comm: unknown comm "
                      "type \"BAD\""),
            std::string::npos);
  EXPECT_NE(error("file: " + dir + "ok.txt", 4)
                .find("runs on 8 GPUs (all_gpus) but the topology "
                      "has 4 hosts"),
            std::string::npos);
  EXPECT_NE(error("file: " + dir + "ok.txt, ranks: [0, 1, 2]")
                .find("3 ranks given, but the "
                      "workload runs on 8 GPUs"),
            std::string::npos);
  EXPECT_NE(error("file: " + dir + "tp3.txt")
                .find("8 ranks do not divide into tensor-parallel "
                      "groups of 3"),
            std::string::npos);
  EXPECT_NE(error("file: " + dir + "ok.txt, algorithm: hierarchical").find("hierarchical"),
            std::string::npos);
  EXPECT_NE(error("file: " + dir + "ok.txt, op: allreduce").find("op applies to type collective"),
            std::string::npos);
}

// A job whose comms all run in groups of one rank moves nothing: refused,
// naming the file and why, where until the twenty-fourth session it ran
// without flows and the results writer read past an empty list (a crash;
// found by tests/differential_runs.py). The loops run different comms: a
// DATA loop only the weight-gradient one, so a forward AllReduce in the
// tensor group does not save it; a transformer loop runs it.
TEST_F(TrainingRun, AJobThatMovesNothingIsRefused) {
  const std::string dir = test::TestTempDir();
  const std::string layer = "l\t-1\t1\tALLREDUCE\t4096\t1\tNONE\t0\t1\tALLREDUCE\t4096\t1\n";
  // tp 4 of 4 ranks: one data-parallel group of one rank each.
  std::ofstream(dir + "data.txt") << "DATA model_parallel_NPU_group: 4 all_gpus: 4\n1\n" << layer;
  std::ofstream(dir + "micro.txt") << "MICRO model_parallel_NPU_group: 4 all_gpus: 4\n1\n" << layer;
  std::ofstream(dir + "moe.txt") << "DATA model_parallel_NPU_group: 2 ep: 4 all_gpus: 8\n1\n"
                                 << "l\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tALLREDUCE_DP_EP\t4096\t1\n";
  const auto error = [&](const std::string& file, int hosts) {
    return test::ScenarioErrorOf("name: e\ntopology: {type: star, hosts: " + std::to_string(hosts) +
                                 "}\ntraffic:\n  - {type: aicb_workload, file: " + dir + file +
                                 "}\n");
  };
  EXPECT_NE(error("data.txt", 4)
                .find("the workload moves nothing over the network: every comm "
                      "its DATA loop runs is NONE or runs in a group of one rank "
                      "(4 ranks, tensor-parallel 4, expert-parallel 1)"),
            std::string::npos);
  EXPECT_NE(error("micro.txt", 4).find("its MICRO loop runs"), std::string::npos);
  // 8 ranks, tp 2: data-parallel groups of 4, data-expert groups of 4 / 4 = 1.
  EXPECT_NE(error("moe.txt", 8).find("(8 ranks, tensor-parallel 2, expert-parallel 4)"),
            std::string::npos);
  // The same layer in a transformer loop: its forward AllReduce runs in
  // the tensor group of 4.
  const test::SimRun r =
      Run("HYBRID_TRANSFORMER model_parallel_NPU_group: 4 all_gpus: 4\n1\n" + layer, "");
  EXPECT_TRUE(r.stats.all_flows_done);
  EXPECT_EQ(r.summary["jobs"][0]["completed"], 1);
}

// The example (examples/aicb/): the scenario import-aicb wrote reads, and
// its workload expands into the messages its README row counts.
TEST(SimaiExample, MiniGptExpandsIntoItsMessages) {
  const Scenario s = LoadScenario(std::string(ROCESIM_SOURCE_DIR) + "/examples/aicb/mini-gpt.yaml",
                                  {}, std::nullopt);
  ASSERT_EQ(s.traffic.size(), 1u);
  const TrafficSpec& t = s.traffic[0];
  ASSERT_EQ(t.kind, TrafficKind::kTraining);
  EXPECT_EQ(t.hosts.size(), 32u);
  EXPECT_EQ(t.collective.iterations, 2);
  const CollectivePlan plan = ExpandTraining(t, 0);
  EXPECT_EQ(plan.flows.size(), 22'784u);
  ASSERT_EQ(plan.instances.size(), 2u);
  EXPECT_EQ(plan.instances[1].first_flow, 11'392u);
}

}  // namespace
}  // namespace test_training_workload
}  // namespace rocesim
