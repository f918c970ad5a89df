// Routes recomputed once per process (sim/shared_routes.h): the first
// replica to reach a recomputation builds it with the run's threads, the
// others share its tables, a failure reaches every replica, and the slot
// lets the tables go once every replica has them. A partitioned run with a
// link_down and its repair ends with every replica on one copy of the
// recomputed tables, and with the serial run's results.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "net/fabric_layout.h"
#include "scenario/scenario_reader.h"
#include "sim/partitioned_run.h"
#include "sim/shared_routes.h"
#include "sim_test_support.h"

namespace rocesim {
namespace {

std::shared_ptr<const FabricLayout> Layout() {
  return LayoutFabric(
      ParseScenarioText("topology: {type: fat_tree, k: 4}\n", "t.yaml", "", {}, std::nullopt));
}

// The storage of switch `sw`'s next hops towards host `dst`: two Routings
// with the same address here share their tables.
const uint16_t* TablesOf(const Routing& r, uint32_t sw = 0, uint32_t dst = 15) {
  return r.NextHops(sw, dst).data();
}

TEST(SharedRoutes, TheFirstReplicaBuildsWithTheRunsThreadsAndTheOthersShareIt) {
  const auto l = Layout();
  SharedRoutes shared(3, 2);
  std::atomic<int> builds{0};
  std::atomic<uint32_t> threads_given{0};
  const auto build = [&](uint32_t threads) -> SharedRoutes::Product {
    ++builds;
    threads_given = threads;
    Routing r;
    r.Build(l->adjacency, l->host_nodes, l->switch_index, 7, {}, threads);
    return r;
  };
  std::vector<SharedRoutes::Product> got(3);
  std::vector<std::thread> replicas;
  for (int i = 0; i < 3; ++i) replicas.emplace_back([&, i] { got[i] = shared.Take(0, build); });
  for (std::thread& t : replicas) t.join();
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(threads_given, 2u);
  for (const SharedRoutes::Product& p : got) {
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(TablesOf(*p), TablesOf(*got[0])) << "one copy of the tables";
  }
  EXPECT_EQ(shared.Pending(), 0u) << "every replica took it: the slot let it go";
}

TEST(SharedRoutes, EachRecomputationIsBuiltOnceWhateverOrderTheReplicasComeIn) {
  const auto l = Layout();
  SharedRoutes shared(2, 1);
  int builds = 0;
  const auto build = [&](uint32_t threads) -> SharedRoutes::Product {
    ++builds;
    Routing r;
    r.Build(l->adjacency, l->host_nodes, l->switch_index, 7, {}, threads);
    return r;
  };
  // Replica A runs ahead through both recomputations; B follows.
  const SharedRoutes::Product a0 = shared.Take(0, build);
  const SharedRoutes::Product a1 = shared.Take(1, build);
  EXPECT_EQ(shared.Pending(), 2u);
  const SharedRoutes::Product b0 = shared.Take(0, build);
  EXPECT_EQ(shared.Pending(), 1u);
  const SharedRoutes::Product b1 = shared.Take(1, build);
  EXPECT_EQ(builds, 2);
  EXPECT_EQ(shared.Pending(), 0u);
  EXPECT_EQ(TablesOf(*a0), TablesOf(*b0));
  EXPECT_EQ(TablesOf(*a1), TablesOf(*b1));
  EXPECT_NE(TablesOf(*a0), TablesOf(*a1));
}

TEST(SharedRoutes, NoRoutesAndAFailureReachEveryReplica) {
  SharedRoutes shared(2, 1);
  const auto none = [](uint32_t) -> SharedRoutes::Product { return std::nullopt; };
  EXPECT_FALSE(shared.Take(0, none).has_value());
  EXPECT_FALSE(shared.Take(0, none).has_value());
  int builds = 0;
  const auto fails = [&](uint32_t) -> SharedRoutes::Product {
    ++builds;
    throw std::bad_alloc();
  };
  EXPECT_THROW(shared.Take(1, fails), std::bad_alloc);
  EXPECT_THROW(shared.Take(1, fails), std::bad_alloc);
  EXPECT_EQ(builds, 1);
}

TEST(SharedRoutes, PartitionsEndOnOneCopyOfTheRecomputedTablesWithTheSerialResults) {
  // An uplink of edge switch 16 goes down and comes back: two
  // recomputations, which 4 partitions on 2 threads share.
  const Scenario s = ParseScenarioText(R"(
topology: {type: fat_tree, k: 4}
host: {cc: dcqcn}
traffic:
  - {type: poisson, load: 40%, cdf: websearch, span: 200us}
faults:
  - {type: link_down, node: 16, port: 2, at: 50us, until: 150us, convergence: 5us}
duration: 5ms
)",
                                       "routes.yaml", "", {}, std::nullopt);
  const test::SimRun serial = test::RunScenario(s);
  PartitionedRun run(s, 2, nullptr, 4);
  const Routing& before = run.replica(0).fabric().routing;
  const uint16_t* intact = TablesOf(before, 4);
  const RunStats stats = run.Run();
  EXPECT_EQ(stats.all_flows_done, serial.stats.all_flows_done);
  for (uint32_t p = 1; p < 4; ++p)
    EXPECT_EQ(TablesOf(run.replica(p).fabric().routing, 4),
              TablesOf(run.replica(0).fabric().routing, 4))
        << "partition " << p << " holds its own copy";
  EXPECT_NE(TablesOf(run.replica(0).fabric().routing, 4), intact) << "never recomputed";
  const FlowTable& a = serial.fabric().flows;
  const FlowTable& b = run.result().fabric().flows;
  ASSERT_EQ(a.Count(), b.Count());
  for (uint32_t id = 0; id < a.Count(); ++id) EXPECT_EQ(a[id].finish, b[id].finish) << id;
  size_t recomputed = 0;
  for (const OpsEvent& e : run.result().fabric().ops.events)
    recomputed += std::string(e.event) == "routes_recomputed";
  EXPECT_EQ(recomputed, 2u);
}

}  // namespace
}  // namespace rocesim
