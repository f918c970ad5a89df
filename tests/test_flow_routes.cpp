// The per-flow route cache (net/flow_routes.h) that the shared-buffer switch
// forwards by: a cached route is, hop by hop, exactly Routing::SelectByKey's
// choice for the flow's destination and key, in both directions; Lookup
// answers only for a current route and a port of the asking switch (stale
// epochs, the wrong switch, hops past the route and frames without a route
// fall back to the full lookup).
#include <gtest/gtest.h>

#include <set>

#include "net/fabric_layout.h"
#include "scenario/scenario_reader.h"
#include "sim/simulation.h"

namespace rocesim {
namespace test_flow_routes {
namespace {

constexpr const char* kFatTree = R"(
topology: {type: fat_tree, k: 4}
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 15, size: 10KB, start: 0us}
      - {src: 0, dst: 1, size: 10KB, start: 0us}
      - {src: 6, dst: 4, size: 10KB, start: 0us}
)";

// Hop-by-hop forwarding with the routing tables, as Lookup's fallback does.
std::vector<PortId> Walk(const Fabric& f, uint32_t src, uint32_t dst, uint64_t key) {
  std::vector<PortId> out;
  PortId port = f.nics[src].port();
  for (;;) {
    const Node& next = f.nodes[f.ports[f.ports[port].peer].node];
    if (!next.is_switch) return out;
    port = next.first_port + f.routing.SelectByKey(next.index, dst, key);
    out.push_back(port);
  }
}

TEST(FlowRoutes, CachedRoutesMatchHopByHopEcmpBothWays) {
  Simulation sim(ParseScenarioText(kFatTree, "t.yaml", "", {}, std::nullopt));
  Fabric& f = sim.fabric();
  for (const Flow& fl : f.flows) {
    f.routes.Compute(f, fl.id);
    for (const bool data : {true, false}) {
      const uint32_t route = data ? f.routes.DataRoute(fl.id) : f.routes.ReplyRoute(fl.id);
      const std::vector<PortId> expect =
          data ? Walk(f, fl.src, fl.dst, fl.data_key) : Walk(f, fl.dst, fl.src, fl.reply_key);
      ASSERT_FALSE(expect.empty());
      for (uint32_t hop = 0; hop < expect.size(); ++hop) {
        const Node& sw = f.nodes[f.ports[expect[hop]].node];
        PortId out = 0;
        ASSERT_TRUE(f.routes.Lookup(route, hop, sw.first_port, sw.num_ports, &out))
            << "flow " << fl.id << " hop " << hop;
        EXPECT_EQ(out, expect[hop]) << "flow " << fl.id << " hop " << hop;
      }
      // Past the end of the route: nothing cached.
      const Node& last = f.nodes[f.ports[expect.back()].node];
      PortId out = 0;
      EXPECT_FALSE(f.routes.Lookup(route, static_cast<uint32_t>(expect.size()), last.first_port,
                                   last.num_ports, &out));
    }
  }
}

TEST(FlowRoutes, LookupDeclinesWrongSwitchStaleEpochAndNoRoute) {
  Simulation sim(ParseScenarioText(kFatTree, "t.yaml", "", {}, std::nullopt));
  Fabric& f = sim.fabric();
  const Flow& fl = f.flows[0];  // 0 -> 15: five switches
  f.routes.Compute(f, fl.id);
  const std::vector<PortId> path = Walk(f, fl.src, fl.dst, fl.data_key);
  ASSERT_EQ(path.size(), 5u);
  const Node& edge = f.nodes[f.ports[path[0]].node];
  const Node& agg = f.nodes[f.ports[path[1]].node];
  const uint32_t route = f.routes.DataRoute(fl.id);
  PortId out = 0;
  EXPECT_TRUE(f.routes.Lookup(route, 0, edge.first_port, edge.num_ports, &out));
  // The same hop index asked at another switch (a frame off its route).
  EXPECT_FALSE(f.routes.Lookup(route, 0, agg.first_port, agg.num_ports, &out));
  EXPECT_FALSE(f.routes.Lookup(route, 1, edge.first_port, edge.num_ports, &out));
  EXPECT_FALSE(f.routes.Lookup(FlowRoutes::kNone, 0, edge.first_port, edge.num_ports, &out));
  EXPECT_FALSE(f.routes.Lookup(route, FlowRoute::kMaxHops, edge.first_port, edge.num_ports, &out));
  // New routing tables: stale until computed again.
  f.routes.NewEpoch();
  EXPECT_FALSE(f.routes.Lookup(route, 0, edge.first_port, edge.num_ports, &out));
  f.routes.Compute(f, fl.id);
  EXPECT_TRUE(f.routes.Lookup(route, 0, edge.first_port, edge.num_ports, &out));
  EXPECT_EQ(out, path[0]);
}

// A partition's cache (FlowRoutes::Resize with partial): no route until one
// is computed, places taken in the order flows come, a frame entering from
// another partition renamed to this one's place (its route computed on the
// way in when new here or stale), and the routes at a place exactly the
// flow's own.
TEST(FlowRoutes, APartitionKeepsRoutesOnlyForFlowsItComputedOrThatEnteredIt) {
  Simulation sim(ParseScenarioText(kFatTree, "t.yaml", "", {}, std::nullopt));
  Fabric& f = sim.fabric();
  ASSERT_EQ(f.flows.Count(), 3u);
  FlowRoutes r;
  r.Resize(f.flows.Count(), true);
  EXPECT_EQ(r.Kept(), 0u);
  for (uint32_t id = 0; id < 3; ++id) {
    EXPECT_EQ(r.DataRoute(id), FlowRoutes::kNone);
    EXPECT_EQ(r.ReplyRoute(id), FlowRoutes::kNone);
  }
  // Flow 2 starts here: place 0.
  r.Compute(f, 2);
  EXPECT_EQ(r.Kept(), 1u);
  EXPECT_EQ(r.DataRoute(2), 0u);
  EXPECT_EQ(r.ReplyRoute(2), 1u);
  EXPECT_EQ(r.DataRoute(0), FlowRoutes::kNone);
  // An ACK of flow 0 enters, named by its place elsewhere (7 * 2 + 1): it
  // takes place 1, reply direction.
  EXPECT_EQ(r.Entering(f, 0, 7 * 2 + 1), 3u);
  EXPECT_EQ(r.Kept(), 2u);
  // Its data enters later: the same place, no new one.
  EXPECT_EQ(r.Entering(f, 0, 4 * 2), 2u);
  EXPECT_EQ(r.Kept(), 2u);
  // Frames that follow no route stay without one.
  EXPECT_EQ(r.Entering(f, 1, FlowRoutes::kNone), FlowRoutes::kNone);
  EXPECT_EQ(r.Kept(), 2u);

  const Flow& fl = f.flows[0];  // 0 -> 15
  const std::vector<PortId> data = Walk(f, fl.src, fl.dst, fl.data_key);
  const std::vector<PortId> reply = Walk(f, fl.dst, fl.src, fl.reply_key);
  auto matches = [&](uint32_t route, const std::vector<PortId>& path) {
    for (uint32_t hop = 0; hop < path.size(); ++hop) {
      const Node& sw = f.nodes[f.ports[path[hop]].node];
      PortId out = 0;
      if (!r.Lookup(route, hop, sw.first_port, sw.num_ports, &out) || out != path[hop])
        return false;
    }
    return true;
  };
  EXPECT_TRUE(matches(2, data));
  EXPECT_TRUE(matches(3, reply));
  // New routing tables: stale, until the next frame of the flow enters.
  r.NewEpoch();
  EXPECT_FALSE(matches(2, data));
  EXPECT_EQ(r.Entering(f, 0, 5 * 2), 2u);
  EXPECT_TRUE(matches(2, data));
  EXPECT_TRUE(matches(3, reply));
  EXPECT_EQ(r.Kept(), 2u);
}

// A serial run's cache names every flow's routes by its id, and frames keep
// their names (a serial run has no crossings, but the rule is the same).
TEST(FlowRoutes, ASerialRunNamesRoutesByFlowId) {
  Simulation sim(ParseScenarioText(kFatTree, "t.yaml", "", {}, std::nullopt));
  Fabric& f = sim.fabric();
  EXPECT_EQ(f.routes.Kept(), f.flows.Count());
  for (uint32_t id = 0; id < f.flows.Count(); ++id) {
    EXPECT_EQ(f.routes.DataRoute(id), 2 * id);
    EXPECT_EQ(f.routes.ReplyRoute(id), 2 * id + 1);
    EXPECT_EQ(f.routes.Entering(f, id, 2 * id + 1), 2 * id + 1);
  }
}

// The ECMP salt: the seed alone with ecmp_seed 0 (so default runs keep
// their paths), and no ecmp_seed cancels the seed (XOR made ecmp_seed ==
// seed give every run the salt 0).
TEST(EcmpSalt, MixesEcmpSeedWithTheSeed) {
  Scenario s;
  s.seed = 7;
  s.sw.ecmp_seed = 0;
  EXPECT_EQ(EcmpSalt(s), 7u);
  std::set<uint64_t> salts;
  for (uint64_t v = 1; v <= 100; ++v) {
    s.seed = v;
    s.sw.ecmp_seed = v;
    salts.insert(EcmpSalt(s));
  }
  EXPECT_EQ(salts.size(), 100u);
  s.seed = 1;
  s.sw.ecmp_seed = 2;
  const uint64_t a = EcmpSalt(s);
  s.sw.ecmp_seed = 3;
  EXPECT_NE(EcmpSalt(s), a);
}

}  // namespace
}  // namespace test_flow_routes
}  // namespace rocesim
