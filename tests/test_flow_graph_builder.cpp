// FlowGraphBuilder (transport/flow_graph_builder.h): entries name their
// dependencies locally (their own flows, then their own joins); the graph
// numbers flows by run id and joins in entry order. Checked by what the
// built graph says: which flows wait, how many edges, and the nodes a cycle
// names.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "transport/flow_graph_builder.h"

namespace rocesim {
namespace test_flow_graph_builder {
namespace {

FlowSpec Spec(int src, int dst, std::vector<uint32_t> after = {},
              uint32_t after_sent = UINT32_MAX) {
  FlowSpec s;
  s.src = src;
  s.dst = dst;
  s.size_bytes = 1000;
  s.after = std::move(after);
  s.after_sent = after_sent;
  return s;
}

// Adds entry `flows` / `joins` to `table` and `b`.
void AddEntry(FlowTable& table, FlowGraphBuilder& b, const std::vector<FlowSpec>& flows,
              const std::vector<JoinSpec>& joins) {
  const uint32_t base = table.Count();
  b.BeginEntry(base, static_cast<uint32_t>(flows.size()));
  for (uint32_t k = 0; k < flows.size(); ++k) {
    Flow fl;
    fl.id = table.Count();
    fl.src = static_cast<uint32_t>(flows[k].src);
    fl.dst = static_cast<uint32_t>(flows[k].dst);
    table.Add(fl);
    b.AddFlow(k, flows[k]);
  }
  b.AddJoins(joins);
}

TEST(FlowGraphBuilder, RenumbersEachEntrysFlowsAndJoinsIntoTheRunsNodes) {
  FlowTable table;
  FlowGraphBuilder b;
  EXPECT_TRUE(b.Empty());
  // Entry 0: flow 0 (0 -> 1); flow 1 (1 -> 2) after its join 0 (local 2),
  // which waits at host 1 for flow 0.
  AddEntry(table, b, {Spec(0, 1), Spec(1, 2, {2})}, {JoinSpec{1, {0}, 0}});
  // Entry 1: flow 2 (1 -> 3); flow 3 (1 -> 0) after its join (local 2: the
  // run's join 1) at host 1 over flow 2 (local 0), and sent after flow 2.
  AddEntry(table, b, {Spec(1, 3), Spec(1, 0, {2}, 0)}, {JoinSpec{1, {0}, 0}});
  EXPECT_FALSE(b.Empty());
  FlowDependencies deps;
  b.Build(table, deps);
  EXPECT_FALSE(deps.Waits(0));
  EXPECT_TRUE(deps.Waits(1));
  EXPECT_FALSE(deps.Waits(2));
  EXPECT_TRUE(deps.Waits(3));
  EXPECT_EQ(deps.NumEdges(), 5u);
}

TEST(FlowGraphBuilder, ACycleIsNamedInTheRunsNumbers) {
  FlowTable table;
  FlowGraphBuilder b;
  AddEntry(table, b, {Spec(0, 1), Spec(1, 2, {2})}, {JoinSpec{1, {0}, 0}});
  // Entry 1: flow 2 (1 -> 3) after the run's join 1 (local 2), which waits
  // for flow 2 (local 0).
  AddEntry(table, b, {Spec(1, 3, {2}), Spec(3, 0)}, {JoinSpec{1, {0}, 0}});
  FlowDependencies deps;
  try {
    b.Build(table, deps);
    FAIL() << "a cycle must be refused";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cycle"), std::string::npos) << what;
    EXPECT_NE(what.find("flow 2"), std::string::npos) << what;
    EXPECT_NE(what.find("join 1"), std::string::npos) << what;
    EXPECT_EQ(what.find("flow 0"), std::string::npos) << what;
  }
}

// A job following another: each of its ranks waits, through one join at
// the rank, for what the earlier job's last iteration sent from or
// delivered to it; flows of ranks the earlier job never touched wait for
// nothing.
TEST(FlowGraphBuilder, AFollowingJobWaitsAtEachRankForTheEarlierJobsLastIteration) {
  FlowTable table;
  FlowGraphBuilder b;
  // The earlier job: iteration 0 is flow 0, the last (1) flows 1 and 2.
  AddEntry(table, b, {Spec(0, 1), Spec(0, 1), Spec(1, 2)}, {});
  const CollectiveInstance earlier{1, 1, 3, 1};
  // The following job, on hosts 0, 1 and 3: flows 3 (0 -> 1), 4 (1 -> 3),
  // 5 (3 -> 0).
  AddEntry(table, b, {Spec(0, 1), Spec(1, 3), Spec(3, 0)}, {});
  const CollectiveInstance first{0, 0, 3, 1};
  b.FollowJob(table, 4, {0, 1, 3}, 5, 0, earlier, first);
  FlowDependencies deps;
  b.Build(table, deps);
  EXPECT_FALSE(deps.Waits(0));
  EXPECT_FALSE(deps.Waits(1));
  EXPECT_TRUE(deps.Waits(3)) << "host 0 sent flow 1";
  EXPECT_TRUE(deps.Waits(4)) << "host 1 received flow 1 and sent flow 2";
  EXPECT_FALSE(deps.Waits(5)) << "host 3 took no part in the earlier job";
  // Join at host 0 over flow 1; join at host 1 over flows 1 and 2 (host 2
  // is not a rank); then flows 3 and 4 after their hosts' joins.
  EXPECT_EQ(deps.NumEdges(), 5u);
}

}  // namespace
}  // namespace test_flow_graph_builder
}  // namespace rocesim
