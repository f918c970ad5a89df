// Collectives (workload/collectives.h) against hand-counted expansions and
// against the analytic times of their algorithms on an idle non-blocking
// fabric (issue "AI training on RoCE fabrics", "Checks").
//
// Wire bytes on these fabrics: a data frame is 1,000 B payload + 62 B
// headers + 20 B preamble and gap = 1,082 B; with host.ack_every 1 every
// data frame is answered by an ACK of 62 + 4 + 20 = 86 B, which travels the
// other direction of the same links, where the rank's own data goes too. So
// every link moves 1,000 payload bytes per 1,168 wire bytes, and a message
// of b bytes takes b x 1.168 x 8 / 100 Gb/s on it. Per step, a message also
// waits two link delays (host -> switch -> host: 2 us) and the switch's
// store and forward of one frame (1,082 B: 86.6 ns).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "tests/sim_test_support.h"
#include "workload/collectives.h"

namespace rocesim {
namespace test_collectives {
namespace {

using test::RunYaml;

constexpr double kRate = 100e9;
constexpr double kWirePerPayload = 1168.0 / 1000.0;
constexpr double kStepLatency = 2e-6 + 1082 * 8 / kRate;

double WireSeconds(double payload_bytes) {
  return payload_bytes * kWirePerPayload * 8 / kRate;
}

TrafficSpec Collective(CollectiveOp op, CollectiveAlgorithm a, int n, int64_t size,
                       int channels = 1, int64_t chunk = 0) {
  TrafficSpec t;
  t.kind = TrafficKind::kCollective;
  t.collective.op = op;
  t.collective.algorithm = a;
  t.collective.channels = channels;
  t.collective.chunk_bytes = chunk;
  t.size_bytes = size;
  for (int h = 0; h < n; ++h) t.hosts.push_back(h);
  return t;
}

std::map<int, int64_t> BytesSentPerRank(const CollectivePlan& p) {
  std::map<int, int64_t> sent;
  for (const FlowSpec& f : p.flows) sent[f.src] += f.size_bytes;
  return sent;
}

TEST(CollectiveExpansion, RingAllReduceSendsTwoNMinusOneOverNOfTheBuffer) {
  const CollectivePlan p = ExpandCollective(
      Collective(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 4, 4000, 2), 0);
  EXPECT_EQ(p.flows.size(), 2u * 4 * 6);  // channels x ranks x 2(n-1) steps
  for (const auto& [rank, bytes] : BytesSentPerRank(p)) EXPECT_EQ(bytes, 6000) << rank;
  // Step k's message from p waits for step k-1's message into p.
  for (size_t i = 0; i < p.flows.size(); ++i) {
    const FlowSpec& f = p.flows[i];
    EXPECT_EQ(f.dst, (f.src + 1) % 4);
    if (p.flow_step[i] == 0) {
      EXPECT_TRUE(f.after.empty());
      continue;
    }
    ASSERT_EQ(f.after.size(), 1u);
    const FlowSpec& pred = p.flows[f.after[0]];
    EXPECT_EQ(pred.dst, f.src);
    EXPECT_EQ(p.flow_step[f.after[0]] + 1, p.flow_step[i]);
  }
}

// A chunk larger than any message (up to INT64_MAX, which the fuzzer found
// overflowing the chunk count's rounding) is one chunk per message: the same
// flows as no chunk at all, for every algorithm that pipelines.
TEST(CollectiveExpansion, AChunkLargerThanTheMessageIsOneChunk) {
  for (const auto& [op, algorithm] :
       {std::pair{CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing},
        std::pair{CollectiveOp::kAllReduce, CollectiveAlgorithm::kTree},
        std::pair{CollectiveOp::kBroadcast, CollectiveAlgorithm::kRing}}) {
    const CollectivePlan whole = ExpandCollective(Collective(op, algorithm, 4, 40000), 0);
    for (int64_t chunk : {int64_t{40000}, int64_t{1} << 40, std::numeric_limits<int64_t>::max()}) {
      const CollectivePlan p = ExpandCollective(Collective(op, algorithm, 4, 40000, 1, chunk), 0);
      ASSERT_EQ(p.flows.size(), whole.flows.size()) << chunk;
      for (size_t i = 0; i < p.flows.size(); ++i)
        EXPECT_EQ(p.flows[i].size_bytes, whole.flows[i].size_bytes) << chunk << " flow " << i;
    }
  }
}

TEST(CollectiveExpansion, ConnectionsKeepOneSourcePortAndSendInOrder) {
  const CollectivePlan p = ExpandCollective(
      Collective(CollectiveOp::kAllReduce, CollectiveAlgorithm::kRing, 4, 40000, 2, 1000), 3);
  std::map<std::tuple<int, int, int>, uint16_t> port;  // (channel, src, dst)
  std::set<uint16_t> ports;
  std::map<std::pair<int, int>, std::set<uint16_t>> pair_ports;
  for (size_t i = 0; i < p.flows.size(); ++i) {
    const FlowSpec& f = p.flows[i];
    pair_ports[{f.src, f.dst}].insert(f.sport);
    EXPECT_GE(f.sport, 49152);
    if (f.after_sent != UINT32_MAX) {  // the connection's previous message
      const FlowSpec& prev = p.flows[f.after_sent];
      EXPECT_EQ(prev.sport, f.sport);
      EXPECT_EQ(prev.src, f.src);
      EXPECT_EQ(prev.dst, f.dst);
      EXPECT_LT(f.after_sent, i);
    }
  }
  // Two channels: two connections (ports) per neighbour pair, one path each.
  for (const auto& [pair, set] : pair_ports) EXPECT_EQ(set.size(), 2u);
}

TEST(CollectiveExpansion, TreeHalvingDoublingDirectCounts) {
  const auto tree = ExpandCollective(
      Collective(CollectiveOp::kAllReduce, CollectiveAlgorithm::kTree, 5, 1000), 0);
  EXPECT_EQ(tree.flows.size(), 2u * 2 * 4);  // two trees, n-1 edges each way
  // Mirrored trees: every rank but the middle one is inner in exactly one.
  const auto hd = ExpandCollective(
      Collective(CollectiveOp::kAllReduce, CollectiveAlgorithm::kHalvingDoubling, 8, 8000), 0);
  EXPECT_EQ(hd.flows.size(), 8u * 6);
  for (const auto& [rank, bytes] : BytesSentPerRank(hd)) EXPECT_EQ(bytes, 2 * 7000) << rank;
  const auto a2a = ExpandCollective(
      Collective(CollectiveOp::kAllToAll, CollectiveAlgorithm::kDirect, 4, 4000), 0);
  EXPECT_EQ(a2a.flows.size(), 12u);
  for (const auto& [rank, bytes] : BytesSentPerRank(a2a)) EXPECT_EQ(bytes, 3000) << rank;
}

TEST(CollectiveExpansion, BusBandwidthFactorsAreNccls) {
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllReduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllGather, 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kReduceScatter, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kAllToAll, 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(BusBandwidthFactor(CollectiveOp::kBroadcast, 4), 1.0);
}

// One collective on an idle 8-host star; returns summary.json's job.
nlohmann::json RunOne(const std::string& entry, int hosts = 8) {
  const test::SimRun r =
      RunYaml("name: c\nduration: 100ms\ntopology: {type: star, hosts: " + std::to_string(hosts) +
              ", host_link: {rate: 100Gbps, delay: 1us}}\ntraffic:\n  - " + entry + "\n");
  EXPECT_TRUE(r.stats.all_flows_done);
  EXPECT_EQ(r.summary["drops"]["total"], 0);
  return r.summary["jobs"][0];
}

double Seconds(const nlohmann::json& job) {
  return job["iteration_s"]["mean"].get<double>();
}

TEST(CollectivePhysics, RingAllReduceTakesTwoNMinusOneOverNTimesSOverB) {
  const double s = 16e6;
  const int n = 8;
  const nlohmann::json job = RunOne("{type: collective, op: allreduce, size: 16MB}");
  const double analytic = 2 * (n - 1) * (WireSeconds(s / n) + kStepLatency);
  EXPECT_NEAR(Seconds(job) / analytic, 1, 0.02);
  EXPECT_NEAR(job["ideal_s"].get<double>() / analytic, 1, 0.01);
  // busbw: the link rate less the header and ACK overhead (85.6 Gb/s).
  EXPECT_NEAR(job["busbw_gbps_mean"].get<double>() / (kRate / kWirePerPayload / 1e9), 1, 0.02);
  EXPECT_NEAR(job["slowdown_mean"].get<double>(), 1, 0.02);
}

TEST(CollectivePhysics, HalvingDoublingTakesItsFormula) {
  const double s = 16e6;
  const int n = 8;
  const nlohmann::json job =
      RunOne("{type: collective, op: allreduce, algorithm: halving_doubling, size: 16MB}");
  const double analytic = 2 * WireSeconds(s * (n - 1) / n) + 2 * std::log2(n) * kStepLatency;
  EXPECT_NEAR(Seconds(job) / analytic, 1, 0.02);
}

TEST(CollectivePhysics, PipelinedDoubleTreeMovesTwiceTheBufferPerNic) {
  // Each NIC receives 2S and sends 2S in all (inner in one tree: S from two
  // children, S/2 from its parent; a leaf in the other: S/2 down), so the
  // pipelined tree takes 2S/B plus the pipeline's fill: a few chunks.
  const double s = 16e6;
  const nlohmann::json job =
      RunOne("{type: collective, op: allreduce, algorithm: tree, size: 16MB, chunk: 256KB}");
  const double bound = WireSeconds(2 * s);
  EXPECT_GE(Seconds(job), bound * 0.999);
  EXPECT_LT(Seconds(job), bound * 1.03);
  EXPECT_NEAR(job["slowdown_mean"].get<double>(), 1, 0.02);
}

TEST(CollectivePhysics, ChunksPipelineABroadcastChain) {
  // The chain root -> 1 -> ... -> 7 moves S once per NIC; with 64 chunks the
  // last hop starts 6 chunk-times after the first.
  const double s = 16e6, chunk = 256e3;
  const nlohmann::json piped =
      RunOne("{type: collective, op: broadcast, size: 16MB, chunk: 256KB}");
  const double analytic = WireSeconds(s) + 6 * (WireSeconds(chunk) + kStepLatency);
  EXPECT_NEAR(Seconds(piped) / analytic, 1, 0.02);
  const nlohmann::json whole = RunOne("{type: collective, op: broadcast, size: 16MB}");
  EXPECT_GT(Seconds(whole), 5 * Seconds(piped));
}

TEST(CollectivePhysics, DirectAllToAllIsBoundByEachNic) {
  const double s = 16e6;
  const nlohmann::json job = RunOne("{type: collective, op: alltoall, size: 16MB}");
  EXPECT_NEAR(Seconds(job) / WireSeconds(s * 7 / 8), 1, 0.02);
}

TEST(CollectivePhysics, IterationsAreSeparatedByTheComputeGap) {
  const test::SimRun r = RunYaml(
      "name: c\nduration: 100ms\ntopology: {type: star, hosts: 4}\ntraffic:\n"
      "  - {type: collective, op: allreduce, size: 4MB, iterations: 3, compute: 50us}\n");
  ASSERT_TRUE(r.stats.all_flows_done);
  const nlohmann::json& job = r.summary["jobs"][0];
  EXPECT_EQ(job["completed"], 3);
  // Identical iterations on an idle fabric.
  EXPECT_NEAR(job["iteration_s"]["max"].get<double>() / job["iteration_s"]["min"].get<double>(), 1,
              1e-3);
  // Every rank's next iteration starts 50 us after its last receive (its
  // sends are acknowledged a little later: the gap is at most an RTT more).
  const FlowTable& flows = r.fabric().flows;
  const size_t per = flows.Count() / 3;
  Time end0 = 0, start1 = kTimeMax;
  for (size_t i = 0; i < per; ++i) end0 = std::max(end0, flows[i].received);
  for (size_t i = per; i < 2 * per; ++i) start1 = std::min(start1, flows[i].start);
  EXPECT_GE(start1 - end0, 50 * kMicrosecond);
  EXPECT_LT(start1 - end0, 60 * kMicrosecond);
}

TEST(CollectivePhysics, HierarchicalKeepsServerTrafficOnNvlink) {
  // 4 servers of 4 GPUs on one switch (non-blocking: no ECMP collisions):
  // the intra-server reduce-scatter and all-gather go over NVLink, the
  // cross-server rings over the fabric.
  const test::SimRun r = RunYaml(
      "name: h\nduration: 100ms\n"
      "topology: {type: star, hosts: 16, gpus_per_server: 4}\n"
      "traffic:\n"
      "  - {type: collective, op: allreduce, algorithm: hierarchical, size: 8MB}\n");
  ASSERT_TRUE(r.stats.all_flows_done);
  int64_t nvlink = 0, fabric = 0;
  for (const Flow& fl : r.fabric().flows)
    (fl.src / 4 == fl.dst / 4 ? nvlink : fabric) += fl.size_bytes;
  // Inside: each of 16 GPUs sends 2 x (k-1)/k x S; across: each sends
  // 2 (m-1)/m of its S/k segment (k = 4 GPUs, m = 4 servers).
  EXPECT_EQ(nvlink, 16 * 2 * 3 * 2'000'000);
  EXPECT_EQ(fabric, 16 * 2 * 3 * 500'000);
  EXPECT_EQ(r.summary["nvlink_bytes"], nvlink);
  EXPECT_EQ(r.summary["conservation"]["injected_payload_bytes"], fabric);
  EXPECT_NEAR(r.summary["jobs"][0]["slowdown_mean"].get<double>(), 1, 0.03);
}

}  // namespace
}  // namespace test_collectives
}  // namespace rocesim

namespace rocesim {
namespace test_collectives {
namespace {

// `after`: a job's ranks that also ran the earlier job start after_compute
// after finishing it there (its sends acknowledged, its receives complete);
// its other ranks start at once.
TEST(CollectiveSequence, AJobFollowsAnotherAtEachSharedRank) {
  const test::SimRun r = RunYaml(
      "name: s\nduration: 100ms\ntopology: {type: star, hosts: 8}\ntraffic:\n"
      "  - {type: collective, tag: tp, op: allreduce, ranks: 0-3, size: 1MB}\n"
      "  - {type: collective, tag: dp, op: allreduce, ranks: [0, 4], size: 1MB, after: tp, "
      "after_compute: 10us}\n");
  ASSERT_TRUE(r.stats.all_flows_done);
  const FlowTable& flows = r.fabric().flows;
  const size_t tp_flows = 4 * 6;  // ranks x 2(n-1) steps
  Time done_at_0 = 0;
  for (size_t i = 0; i < tp_flows; ++i) {
    if (flows[i].src == 0) done_at_0 = std::max(done_at_0, flows[i].finish);
    if (flows[i].dst == 0) done_at_0 = std::max(done_at_0, flows[i].received);
  }
  // dp's first step: 0 -> 4 waits for rank 0; 4 -> 0 (rank 4 ran no tp) does not.
  const Flow& from0 = flows[tp_flows];
  const Flow& from4 = flows[tp_flows + 1];
  ASSERT_EQ(from0.src, 0u);
  ASSERT_EQ(from4.src, 4u);
  EXPECT_EQ(from0.start, done_at_0 + 10 * kMicrosecond);
  EXPECT_EQ(from4.start, 0);
}

TEST(CollectiveSequence, AfterNamesAnEarlierCollective) {
  EXPECT_NE(test::ScenarioErrorOf("topology: {type: star, hosts: 4}\ntraffic:\n"
                                  "  - {type: collective, tag: a, op: allreduce, size: 1MB}\n"
                                  "  - {type: collective, op: allreduce, size: 1MB, after: b}\n")
                .find("x.yaml:4:57: traffic.1.after: \"b\" is not the tag of an earlier collective "
                      "entry (earlier jobs: a)"),
            std::string::npos);
  EXPECT_NE(test::ScenarioErrorOf("topology: {type: star, hosts: 4}\ntraffic:\n"
                                  "  - {type: collective, op: allreduce, size: 1MB, "
                                  "after_compute: 1us}\n")
                .find("after_compute: applies only with `after`"),
            std::string::npos);
}

}  // namespace
}  // namespace test_collectives
}  // namespace rocesim
