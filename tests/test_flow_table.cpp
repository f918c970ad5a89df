// The flow table (transport/flow_table.h) and what it stands on: a
// partition holds only the flows its hosts send or receive, knows every
// flow's ends, and the merge after a run (sim/flow_merge.h) takes each side
// of a flow from the partition that ran it while giving the partitions'
// memory back (core/mapped_vector.h).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/mapped_vector.h"
#include "sim/flow_labels.h"
#include "sim/flow_merge.h"
#include "sim/partitioned_run.h"
#include "sim/shared_flow_build.h"
#include "sim_test_support.h"
#include "transport/flow_table.h"

namespace rocesim {
namespace test_flow_table {
namespace {

// Whether the page holding `p` is in memory.
bool Resident(const void* p) {
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  unsigned char in = 0;
  auto* start = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(p) / page * page);
  EXPECT_EQ(mincore(start, page, &in), 0);
  return (in & 1) != 0;
}

TEST(MappedVector, GrowsWithoutLosingWhatItHolds) {
  MappedVector<uint64_t> v;
  for (uint64_t i = 0; i < 300000; ++i) v.emplace_back() = i * 3;  // several remaps
  ASSERT_EQ(v.size(), 300000u);
  uint64_t bad = 0;
  for (uint64_t i = 0; i < v.size(); ++i) bad += v[i] != i * 3;
  EXPECT_EQ(bad, 0u);
  MappedVector<uint64_t> w = std::move(v);
  EXPECT_EQ(w.size(), 300000u);
  EXPECT_EQ(v.size(), 0u);
  EXPECT_EQ(w[299999], 299999u * 3);
}

TEST(MappedVector, ReleasedFrontPagesLeaveMemoryAndTheRestStays) {
  MappedVector<uint64_t> v;
  const size_t per_page = static_cast<size_t>(sysconf(_SC_PAGESIZE)) / sizeof(uint64_t);
  for (size_t i = 0; i < 8 * per_page; ++i) v.emplace_back() = i + 1;
  ASSERT_TRUE(Resident(&v[0]));
  ASSERT_TRUE(Resident(&v[3 * per_page]));
  // Three and a half pages read: only the three whole ones go.
  v.ReleaseFront(3 * per_page + per_page / 2);
  EXPECT_FALSE(Resident(&v[per_page]));
  EXPECT_FALSE(Resident(&v[3 * per_page - 1]));
  EXPECT_TRUE(Resident(&v[3 * per_page]));
  EXPECT_EQ(v[3 * per_page], 3 * per_page + 1) << "the partly read page keeps its elements";
  EXPECT_EQ(v[8 * per_page - 1], 8 * per_page);
  v.ReleaseFront(per_page);  // behind what was released already: nothing more
  EXPECT_EQ(v[3 * per_page], 3 * per_page + 1);
}

Flow MakeFlow(uint32_t id, uint32_t src, uint32_t dst) {
  Flow fl;
  fl.id = id;
  fl.src = src;
  fl.dst = dst;
  fl.packets = id + 1;
  fl.sport = static_cast<uint16_t>(1000 + id);
  fl.size_bytes = 100 * (id + 1);
  return fl;
}

// Four hosts; flows between them in an order that interleaves the hosts.
const std::vector<std::pair<uint32_t, uint32_t>> kEnds = {{0, 1}, {2, 3}, {0, 2}, {3, 1},
                                                          {1, 0}, {2, 2}, {3, 0}, {1, 3}};

TEST(FlowTable, AWholeTableHoldsEveryFlowByItsId) {
  FlowTable t;
  for (uint32_t id = 0; id < kEnds.size(); ++id) {
    Flow* held = t.Add(MakeFlow(id, kEnds[id].first, kEnds[id].second));
    ASSERT_NE(held, nullptr);
  }
  EXPECT_EQ(t.Count(), kEnds.size());
  EXPECT_EQ(t.HeldCount(), kEnds.size());
  for (uint32_t id = 0; id < kEnds.size(); ++id) {
    EXPECT_TRUE(t.Holds(id));
    EXPECT_EQ(t[id].size_bytes, 100 * (id + 1));
    EXPECT_EQ(t.Ends(id).sport, 1000 + id);
  }
  EXPECT_FALSE(t.Holds(8));
}

TEST(FlowTable, APartitionHoldsWhatItsHostsSendOrReceiveAndKnowsEveryFlowsEnds) {
  FlowTable t(std::vector<uint8_t>{1, 1, 0, 0});  // hosts 0 and 1
  for (uint32_t id = 0; id < kEnds.size(); ++id) {
    const bool mine = kEnds[id].first < 2 || kEnds[id].second < 2;
    Flow* held = t.Add(MakeFlow(id, kEnds[id].first, kEnds[id].second));
    EXPECT_EQ(held != nullptr, mine) << id;
  }
  EXPECT_EQ(t.Count(), 8u);
  EXPECT_EQ(t.HeldCount(), 6u) << "not 2 -> 3 nor 2 -> 2";
  EXPECT_FALSE(t.Holds(1));
  EXPECT_FALSE(t.Holds(5));
  EXPECT_THROW(t.at(1), std::out_of_range);
  EXPECT_EQ(t.at(3).size_bytes, 400);
  t[6].rate_bps = 42;
  EXPECT_EQ(t.at(6).rate_bps, 42);
  // The ends of all, held or not.
  for (uint32_t id = 0; id < kEnds.size(); ++id) {
    const FlowEnds e = t.Ends(id);
    EXPECT_EQ(e.src, kEnds[id].first);
    EXPECT_EQ(e.dst, kEnds[id].second);
    EXPECT_EQ(e.packets, id + 1);
    EXPECT_EQ(e.sport, 1000 + id);
  }
  // Iteration: the held ones, in id order.
  std::vector<uint32_t> ids;
  for (const Flow& fl : t) ids.push_back(fl.id);
  EXPECT_EQ(ids, (std::vector<uint32_t>{0, 2, 3, 4, 6, 7}));
}

// Two partitions, hosts {0, 1} and {2, 3}, each having run its sides: the
// sender's partition sets the requester's state, the receiver's the
// responder's.
struct TwoPartitions {
  FlowTable a{std::vector<uint8_t>{1, 1, 0, 0}};
  FlowTable b{std::vector<uint8_t>{0, 0, 1, 1}};
  TwoPartitions() {
    for (uint32_t id = 0; id < kEnds.size(); ++id) {
      const Flow fl = MakeFlow(id, kEnds[id].first, kEnds[id].second);
      for (FlowTable* t : {&a, &b}) {
        Flow* held = t->Add(fl);
        if (held == nullptr) continue;
        const bool sender = (t == &a) == (fl.src < 2);
        const bool receiver = (t == &a) == (fl.dst < 2);
        if (sender) held->finish = 1000 + id;  // requester's
        if (receiver) held->received = 2000 + id;
        if (receiver) held->ecn_marked = id;  // responder's
      }
    }
  }
};

TEST(FlowTable, APartitionThatLeavesTheEndsToAnotherReadsItsCopy) {
  FlowTable recorder(std::vector<uint8_t>{1, 1, 0, 0});
  FlowTable other(std::vector<uint8_t>{0, 0, 1, 1});
  other.LeaveEndsToOthers();
  for (uint32_t id = 0; id < kEnds.size(); ++id) {
    const Flow fl = MakeFlow(id, kEnds[id].first, kEnds[id].second);
    recorder.Add(fl);
    EXPECT_EQ(other.Add(fl) != nullptr, kEnds[id].first >= 2 || kEnds[id].second >= 2) << id;
  }
  EXPECT_EQ(other.SharedEnds(), nullptr) << "it recorded none";
  other.TakeEnds(recorder.SharedEnds());
  EXPECT_EQ(other.SharedEnds(), recorder.SharedEnds());
  for (uint32_t id = 0; id < kEnds.size(); ++id) {
    EXPECT_EQ(other.Ends(id).src, kEnds[id].first);
    EXPECT_EQ(other.Ends(id).sport, 1000 + id);
  }
  EXPECT_EQ(other[1].size_bytes, 200) << "2 -> 3 is other's own";
}

TEST(FlowMerge, EachSideComesFromThePartitionThatRanIt) {
  TwoPartitions p;
  const FlowTable merged = MergeFlows({&p.a, &p.b}, {0, 0, 1, 1});
  ASSERT_EQ(merged.Count(), kEnds.size());
  ASSERT_EQ(merged.HeldCount(), kEnds.size()) << "every host is here: every flow";
  for (uint32_t id = 0; id < kEnds.size(); ++id) {
    const Flow& fl = merged[id];
    EXPECT_EQ(fl.id, id);
    EXPECT_EQ(fl.src, kEnds[id].first);
    EXPECT_EQ(fl.size_bytes, 100 * (id + 1));
    EXPECT_EQ(fl.finish, 1000 + id) << id;
    EXPECT_EQ(fl.received, 2000 + id) << id;
    EXPECT_EQ(fl.ecn_marked, id) << id;
  }
}

TEST(FlowMerge, ARankKeepsTheFlowsWithAnEndOnItsHosts) {
  // MPI: only the partition of hosts 0 and 1 is on this rank.
  TwoPartitions p;
  const FlowTable merged = MergeFlows({&p.a}, {0, 0, -1, -1});
  EXPECT_EQ(merged.Count(), kEnds.size());
  EXPECT_EQ(merged.HeldCount(), 6u);
  EXPECT_FALSE(merged.Holds(1));
  EXPECT_EQ(merged.Ends(1).src, 2u) << "the others' ends, for the record";
  EXPECT_EQ(merged.at(2).finish, 1002) << "0 -> 2: the sender's side is here";
  EXPECT_EQ(merged.at(3).received, 2003) << "3 -> 1: the receiver's side is here";
}

TEST(FlowTable, EachPartitionOfARunHoldsOnlyItsOwnHostsFlows) {
  // A ring AllReduce across two leaves: most messages stay inside a leaf.
  const Scenario s = ParseScenarioText(R"(
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}
traffic:
  - type: collective
    op: allreduce
    algorithm: ring
    size: 64KB
duration: 1ms
)",
                                       "ring.yaml", "", {}, std::nullopt);
  PartitionedRun run(s, 2, nullptr, 2);
  const Simulation& first = run.result();  // partition 0, before the run
  const FlowTable& flows = first.fabric().flows;
  ASSERT_GT(flows.Count(), 0u);
  size_t with_an_end_here = 0;
  for (uint32_t id = 0; id < flows.Count(); ++id) {
    const FlowEnds e = flows.Ends(id);
    const bool here = first.IsLocalHost(e.src) || first.IsLocalHost(e.dst);
    with_an_end_here += here;
    EXPECT_EQ(flows.Holds(id), here) << id;
  }
  EXPECT_EQ(flows.HeldCount(), with_an_end_here);
  EXPECT_LT(flows.HeldCount(), flows.Count());
  // Both partitions read one copy of the flows' ends, whichever recorded it.
  const FlowTable& second = run.replica(1).fabric().flows;
  ASSERT_NE(flows.SharedEnds(), nullptr);
  EXPECT_EQ(flows.SharedEnds(), second.SharedEnds());
  EXPECT_EQ(flows.SharedEnds()->size(), flows.Count());
  for (uint32_t id = 0; id < flows.Count(); ++id)
    EXPECT_EQ(second.Ends(id).dst, flows.Ends(id).dst);
  const RunStats stats = run.Run();
  EXPECT_TRUE(stats.all_flows_done);
  const FlowTable& merged = run.result().fabric().flows;
  EXPECT_EQ(merged.HeldCount(), merged.Count()) << "the merged result holds every flow";
  for (const Flow& fl : merged) EXPECT_TRUE(fl.Finished()) << fl.id;
}

TEST(FlowLabels, EachFlowKeepsItsAlgorithmAndTagAndATagIsStoredOnce) {
  FlowLabels labels;
  labels.Add(CcKind::kDcqcn, "web");
  labels.Add(CcKind::kDcqcn, "web");
  labels.Add(CcKind::kHpcc, "incast");
  labels.Add(CcKind::kDcqcn, "web");  // seen before, not the previous flow's
  EXPECT_EQ(labels.Count(), 4u);
  EXPECT_EQ(labels.Cc(),
            (std::vector<CcKind>{CcKind::kDcqcn, CcKind::kDcqcn, CcKind::kHpcc, CcKind::kDcqcn}));
  EXPECT_EQ(labels.Tag(0), "web");
  EXPECT_EQ(labels.Tag(1), "web");
  EXPECT_EQ(labels.Tag(2), "incast");
  EXPECT_EQ(labels.Tag(3), "web");
  EXPECT_EQ(&labels.Tag(0), &labels.Tag(3)) << "one copy of a tag";
}

TEST(FlowLabels, ThePartitionsOfARunReadOneCopyWithTheSerialRunsLabels) {
  const Scenario s = ParseScenarioText(R"(
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
host: {cc: dcqcn}
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 2, size: 8KB, tag: a}
      - {src: 1, dst: 3, size: 8KB, tag: a}
      - {src: 3, dst: 0, size: 8KB, tag: b, cc: hpcc}
duration: 1ms
)",
                                       "labels.yaml", "", {}, std::nullopt);
  const test::SimRun serial = test::RunScenario(s);
  PartitionedRun run(s, 2, nullptr, 2);
  const Simulation& first = run.replica(0);
  const Simulation& second = run.replica(1);
  EXPECT_EQ(&first.flow_cc(), &second.flow_cc()) << "one copy per process";
  EXPECT_EQ(&first.flow_tag(0), &second.flow_tag(0));
  ASSERT_EQ(first.flow_cc(), serial.sim->flow_cc());
  EXPECT_EQ(first.flow_cc(), (std::vector<CcKind>{CcKind::kDcqcn, CcKind::kDcqcn, CcKind::kHpcc}));
  for (uint32_t id = 0; id < 3; ++id) EXPECT_EQ(first.flow_tag(id), serial.sim->flow_tag(id));
  EXPECT_EQ(first.flow_tag(2), "b");
  ASSERT_TRUE(run.Run().all_flows_done);
  EXPECT_EQ(run.result().flow_tag(1), "a");
}

TEST(SharedFlowBuild, TheFirstToClaimBuildsAndTheOthersTakeItsProductOrItsFailure) {
  {
    SharedFlowBuild shared;
    EXPECT_TRUE(shared.Claim());
    EXPECT_FALSE(shared.Claim());
    std::thread waiter([&] { EXPECT_EQ(shared.Take().ideals, (std::vector<Time>{7, 9})); });
    shared.Give({nullptr, {7, 9}, nullptr, nullptr});
    waiter.join();
    shared.Fail(std::make_exception_ptr(std::runtime_error("late")));  // given: ignored
    EXPECT_EQ(shared.Take().ideals.size(), 2u);
  }
  SharedFlowBuild shared;
  ASSERT_TRUE(shared.Claim());
  std::thread waiter([&] { EXPECT_THROW(shared.Take(), std::runtime_error); });
  shared.Fail(std::make_exception_ptr(std::runtime_error("the builder's error")));
  waiter.join();
}

TEST(SharedFlowBuild, PartitionsShareTheGraphOfAJobFollowingAnother) {
  // The second job's ranks wait, through joins the builder alone makes, for
  // the first job; the other replicas learn it from the shared graph.
  const Scenario s = ParseScenarioText(R"(
topology: {type: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 2}
traffic:
  - {type: collective, tag: tp, op: allreduce, ranks: 0-5, size: 256KB}
  - {type: collective, tag: dp, op: allreduce, ranks: [0, 7], size: 256KB, after: tp, after_compute: 10us}
duration: 10ms
)",
                                       "follow.yaml", "", {}, std::nullopt);
  const test::SimRun serial = test::RunScenario(s);
  ASSERT_TRUE(serial.stats.all_flows_done);
  PartitionedRun run(s, 2, nullptr, 4);
  const RunStats stats = run.Run();
  ASSERT_TRUE(stats.all_flows_done);
  const FlowTable& a = serial.fabric().flows;
  const FlowTable& b = run.result().fabric().flows;
  ASSERT_EQ(a.Count(), b.Count());
  for (uint32_t id = 0; id < a.Count(); ++id) {
    EXPECT_EQ(a[id].start, b[id].start) << id;
    EXPECT_EQ(a[id].finish, b[id].finish) << id;
    EXPECT_EQ(a[id].received, b[id].received) << id;
  }
  ASSERT_EQ(serial.sim->collectives().size(), 2u);
  for (size_t c = 0; c < 2; ++c)
    EXPECT_EQ(serial.sim->collectives()[c].ideal, run.result().collectives()[c].ideal);
}

}  // namespace
}  // namespace test_flow_table
}  // namespace rocesim
