// The partitioner (sim/partition.h): a balanced cut of whole nodes that never
// cuts a link of zero delay or a host link shorter than the switch links, a
// lookahead equal to the smallest delay of a cut link, and a synchronisation
// window that depends on the scenario alone.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>

#include "net/fabric_layout.h"
#include "sim/partition.h"
#include "sim/partition_load.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_partition {
namespace {

Simulation Build(const std::string& topology) {
  return Simulation(ParseScenarioText("name: p\nduration: 1ms\ntopology: " + topology + "\n",
                                      "p.yaml", "", {}, std::nullopt));
}

// A scenario of `topology` (and `extra` lines) carrying `flows`.
Scenario WithFlows(const std::string& topology, const std::string& flows,
                   const std::string& extra = "") {
  return ParseScenarioText("name: p\nduration: 1ms\ntopology: " + topology + "\n" + extra +
                               "traffic:\n  - type: flows\n    flows: " + flows + "\n",
                           "p.yaml", "", {}, std::nullopt);
}

TEST(Partition, FatTreeHalvesAreBalancedAndCutOnlySwitchLinks) {
  const Simulation sim = Build("{type: fat_tree, k: 4}");
  const Fabric& f = sim.fabric();
  const Partitioning p = PartitionFabric(*f.layout, sim.scenario(), 2);
  ASSERT_EQ(p.sizes.size(), 2u);
  EXPECT_EQ(p.sizes[0].hosts + p.sizes[1].hosts, 16u);
  EXPECT_EQ(p.sizes[0].ports, p.sizes[1].ports) << p.Describe(sim.quantum());
  EXPECT_GT(p.cut_links, 0u);
  uint64_t cut = 0;
  for (const Port& port : f.ports) {
    const uint32_t peer = f.ports[port.peer].node;
    if (p.node_part[port.node] == p.node_part[peer]) continue;
    if (port.node < peer) ++cut;
  }
  EXPECT_EQ(cut, p.cut_links);
  EXPECT_EQ(p.lookahead, sim.quantum());
  ASSERT_EQ(p.far_part.size(), f.ports.size());
  for (PortId i = 0; i < f.ports.size(); ++i)
    EXPECT_EQ(p.far_part[i], p.node_part[f.ports[f.ports[i].peer].node]) << "port " << i;
}

// A generated fat tree is cut by pods: each pod's hosts and switches in one
// partition, the core switches dealt out evenly.
TEST(Partition, FatTreeIsCutByPods) {
  const Simulation sim = Build("{type: fat_tree, k: 8}");
  const Partitioning p = PartitionFabric(*sim.fabric().layout, sim.scenario(), 4);
  EXPECT_EQ(p.by, "pods / leaf groups");
  for (const PartitionSize& size : p.sizes) {
    EXPECT_EQ(size.hosts, 32u);
    EXPECT_EQ(size.switches, 20u);  // two pods' 16, and 4 of the 16 cores
  }
  // Hosts 0-15 are pod 0 and 16-31 pod 1: one partition; 32-47 the next.
  EXPECT_EQ(p.node_part[0], p.node_part[31]);
  EXPECT_NE(p.node_part[0], p.node_part[32]);
  // Only links to core switches of other partitions are cut: 4 partitions x
  // 2 pods x 4 aggregation switches x 4 uplinks x 3/4 of the cores elsewhere.
  EXPECT_EQ(p.cut_links, 4u * 2 * 4 * 4 * 3 / 4);
}

// Hosts on zero-delay links stay with their switch: the cut runs between
// switches, and its lookahead is the switch links' delay.
// The most partitions a fabric can be cut into: its nodes, less those that
// no cut may separate (here links shorter than the window: zero-delay host
// links, and every link of a star whose window is longer than its links).
TEST(Partition, SeparablePartsLeaveOutWhatNoCutSeparates) {
  const auto parts = [](const std::string& topology) {
    const Simulation sim = Build(topology);
    return SeparableParts(*sim.fabric().layout, sim.scenario());
  };
  EXPECT_EQ(parts("{type: star, hosts: 4}"), 5u);
  EXPECT_EQ(parts("{type: star, hosts: 4, sync_window: 5us}"), 1u);
  EXPECT_EQ(parts("{type: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 2, "
                  "host_link: {rate: 100Gbps, delay: 0us}, fabric_link: {rate: 100Gbps, delay: "
                  "2us}}"),
            6u)
      << "each leaf with its hosts, and the spines";
}

// Any count up to the separable parts cuts, every partition holding a node.
// METIS left partitions empty once it had fewer than about two vertices a
// partition (a 17-host star: from 10 partitions on, and wrote "Cannot
// bisect a graph with 0 vertices!" on stdout); such cuts now deal the
// vertices by load, an even count to each.
TEST(Partition, EveryCountUpToTheSeparablePartsCutsWithoutAnEmptyPartition) {
  const Scenario star = WithFlows("{type: star, hosts: 17}",
                                  "[{src: 1, dst: 0, size: 1MB}, {src: 2, dst: 0, size: 1MB}, "
                                  "{src: 3, dst: 4, size: 1MB}]");
  const std::shared_ptr<const FabricLayout> layout = LayoutFabric(star);
  ASSERT_EQ(SeparableParts(*layout, star), 18u);
  for (uint32_t parts = 2; parts <= 18; ++parts) {
    const Partitioning p = PartitionFabric(*layout, star, parts);
    uint32_t fewest = UINT32_MAX, most = 0;
    for (const PartitionSize& s : p.sizes) {
      fewest = std::min(fewest, s.switches + s.hosts);
      most = std::max(most, s.switches + s.hosts);
    }
    EXPECT_GE(fewest, 1u) << parts << " partitions";
    EXPECT_EQ(p.by, 2 * parts > 18 ? "dealt by load" : "METIS") << parts;
    if (2 * parts > 18) {
      EXPECT_LE(most - fewest, 1u) << parts << ": an even deal";
    }
  }
  EXPECT_THROW(PartitionFabric(*layout, star, 19), PartitionError);
}

// --threads auto: the share of the cores, but no more than --partitions nor
// than the separable parts give each rank, and at least one.
TEST(Partition, AutoThreadsFitTheCoresThePartitionsAndTheFabric) {
  EXPECT_EQ(FitAutoThreads(2, 1, 0, 5), 2u);
  EXPECT_EQ(FitAutoThreads(16, 1, 0, 5), 5u);
  EXPECT_EQ(FitAutoThreads(16, 1, 0, 1), 1u) << "a fabric no cut separates: serial";
  EXPECT_EQ(FitAutoThreads(16, 1, 4, 100), 4u);
  EXPECT_EQ(FitAutoThreads(16, 1, 32, 100), 16u);
  EXPECT_EQ(FitAutoThreads(8, 2, 0, 9), 4u) << "9 parts over 2 ranks";
  EXPECT_EQ(FitAutoThreads(8, 4, 0, 3), 1u) << "fewer parts than ranks: the cut says so";
  EXPECT_EQ(FitAutoThreads(0, 1, 0, 5), 1u);
}

TEST(Partition, ZeroDelayLinksAreCutAround) {
  const Simulation sim = Build(
      "{type: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 2, "
      "host_link: {rate: 100Gbps, delay: 0us}, fabric_link: {rate: 100Gbps, delay: 2us}}");
  const Fabric& f = sim.fabric();
  const Partitioning p = PartitionFabric(*f.layout, sim.scenario(), 2);
  for (const Port& port : f.ports) {
    if (port.delay == 0) {
      EXPECT_EQ(p.node_part[port.node], p.node_part[f.ports[port.peer].node]);
    }
  }
  EXPECT_EQ(p.lookahead, 2 * kMicrosecond);
  EXPECT_EQ(sim.quantum(), 2 * kMicrosecond) << "the window is the shortest link between switches";
}

// The window is the shortest link between switches: host links shorter
// than it are never cut (each host stays with its switch), so a cut between
// switches keeps the fabric links' lookahead instead of a window per
// host-link delay.
TEST(Partition, ShortHostLinksStayWithTheirSwitchAndDoNotShortenTheWindow) {
  const Simulation sim = Build(
      "{type: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 3, "
      "host_link: {rate: 100Gbps, delay: 200ns}, fabric_link: {rate: 100Gbps, delay: 1us}}");
  const Fabric& f = sim.fabric();
  EXPECT_EQ(sim.quantum(), kMicrosecond);
  for (uint32_t parts : {2u, 3u, 6u}) {
    const Partitioning p = PartitionFabric(*f.layout, sim.scenario(), parts);
    EXPECT_EQ(p.lookahead, kMicrosecond) << parts << " partitions";
    for (const Port& port : f.ports)
      if (!f.layout->nodes[port.node].is_switch) {
        EXPECT_EQ(p.node_part[port.node], p.node_part[f.ports[port.peer].node])
            << "host node " << port.node << " cut off its switch, " << parts << " partitions";
      }
  }
  // Six switches: a seventh partition would need a host on its own.
  try {
    PartitionFabric(*f.layout, sim.scenario(), 7);
    ADD_FAILURE() << "7 partitions of 6 switches";
  } catch (const PartitionError& e) {
    EXPECT_NE(std::string(e.what()).find("shorter than the 1000000 ps window"), std::string::npos)
        << e.what();
  }
}

// Host links at least as long as the switch links may be cut, and a fabric
// without links between switches (a star) takes its window from the host
// links: both as before.
TEST(Partition, TheWindowFallsBackToHostLinks) {
  const Simulation longer = Build(
      "{type: leaf_spine, leaves: 2, spines: 1, hosts_per_leaf: 2, "
      "host_link: {rate: 100Gbps, delay: 3us}, fabric_link: {rate: 100Gbps, delay: 1us}}");
  EXPECT_EQ(longer.quantum(), kMicrosecond);
  EXPECT_NO_THROW(PartitionFabric(*longer.fabric().layout, longer.scenario(), 7));
  const Simulation star = Build("{type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 500ns}}");
  EXPECT_EQ(star.quantum(), 500 * kNanosecond);
  EXPECT_EQ(PartitionFabric(*star.fabric().layout, star.scenario(), 3).lookahead,
            500 * kNanosecond);
}

// Pods on short links (200 ns inside, 1 us to the cores): by default the
// window is the shorter, and the run is told that its cut would allow the
// longer; topology.sync_window sets it, and links shorter than it are then
// never cut.
TEST(Partition, SyncWindowKeepsShorterLinksWhole) {
  const std::string pods =
      "{type: fat_tree, k: 4, host_link: {rate: 100Gbps, delay: 200ns}, "
      "fabric_link: {rate: 100Gbps, delay: 200ns}, core_link: {rate: 100Gbps, delay: 1us}";
  const Simulation by_default = Build(pods + "}");
  EXPECT_EQ(by_default.quantum(), 200 * kNanosecond);
  const Partitioning cut = PartitionFabric(*by_default.fabric().layout, by_default.scenario(), 2);
  EXPECT_EQ(cut.lookahead, kMicrosecond) << "two pods to a partition: only core links are cut";
  EXPECT_NE(WindowNote(cut, by_default.quantum(), by_default.scenario())
                .find("topology.sync_window: 1us would synchronise 5 times less often"),
            std::string::npos)
      << WindowNote(cut, by_default.quantum(), by_default.scenario());

  // A ratio that is not whole is given to a tenth.
  const Simulation longer_pods = Build(
      "{type: fat_tree, k: 4, host_link: {rate: 100Gbps, delay: 400ns}, "
      "fabric_link: {rate: 100Gbps, delay: 400ns}, core_link: {rate: 100Gbps, delay: 1us}}");
  const Partitioning by_pods =
      PartitionFabric(*longer_pods.fabric().layout, longer_pods.scenario(), 4);
  EXPECT_NE(WindowNote(by_pods, longer_pods.quantum(), longer_pods.scenario())
                .find("would synchronise 2.5 times less often than the 400ns window"),
            std::string::npos)
      << WindowNote(by_pods, longer_pods.quantum(), longer_pods.scenario());

  const Simulation set = Build(pods + ", sync_window: 1us}");
  EXPECT_EQ(set.quantum(), kMicrosecond);
  const Fabric& f = set.fabric();
  for (uint32_t parts : {2u, 4u, 8u}) {
    const Partitioning p = PartitionFabric(*f.layout, set.scenario(), parts);
    EXPECT_EQ(p.lookahead, kMicrosecond) << parts << " partitions";
    EXPECT_EQ(WindowNote(p, set.quantum(), set.scenario()), "") << "the window is the user's";
    for (const Port& port : f.ports)
      if (port.delay < kMicrosecond) {
        EXPECT_EQ(p.node_part[port.node], p.node_part[f.ports[port.peer].node])
            << "a 200 ns link cut, " << parts << " partitions";
      }
  }
  // Four pods and four core switches are all that can be separated.
  try {
    PartitionFabric(*f.layout, set.scenario(), 9);
    ADD_FAILURE() << "9 partitions of 4 pods and 4 cores";
  } catch (const PartitionError& e) {
    EXPECT_NE(std::string(e.what()).find("it has 8 separable parts"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(
                  "shorter than the 1000000 ps window set by topology.sync_window"),
              std::string::npos)
        << e.what();
  }
}

// A window longer than the links a structural cut would cut (core links of
// 1 us under a 2 us window) sends the fabric to METIS, which keeps them whole.
TEST(Partition, AStructuralCutOfShortLinksFallsBackToMetis) {
  const Simulation sim = Build(
      "{type: fat_tree, k: 4, host_link: {rate: 100Gbps, delay: 2us}, "
      "fabric_link: {rate: 100Gbps, delay: 2us}, core_link: {rate: 100Gbps, delay: 1us}, "
      "sync_window: 2us}");
  const Partitioning p = PartitionFabric(*sim.fabric().layout, sim.scenario(), 2);
  EXPECT_EQ(p.by, "METIS");
  EXPECT_EQ(p.lookahead, 2 * kMicrosecond);
}

TEST(Partition, OnePartitionCutsNothing) {
  const Simulation sim = Build("{type: fat_tree, k: 4}");
  const Partitioning p = PartitionFabric(*sim.fabric().layout, sim.scenario(), 1);
  EXPECT_EQ(p.cut_links, 0u);
  EXPECT_EQ(p.lookahead, kTimeMax);
  EXPECT_TRUE(
      std::all_of(p.node_part.begin(), p.node_part.end(), [](uint32_t x) { return x == 0; }));
}

// A partition holds its own nodes' ports and the far ends of their links,
// nothing else: a quarter of a k=8 fat tree holds a little over a quarter of
// its ports (the cut links' far ends), and congestion control only for the
// flows its hosts send, and NICs only for its own hosts.
TEST(Partition, APartitionHoldsItsOwnPortsOnly) {
  const Scenario scenario = ParseScenarioText(
      "name: p\nduration: 1ms\ntopology: {type: fat_tree, k: 8}\nhost: {cc: dcqcn}\n"
      "traffic:\n  - {type: permutation, size: 10KB}\n",
      "p.yaml", "", {}, std::nullopt);
  const std::shared_ptr<const FabricLayout> layout = LayoutFabric(scenario);
  const Partitioning cut = PartitionFabric(*layout, scenario, 4);
  const Simulation part(scenario, layout, PartitionPlace{&cut, 1, false});
  const Fabric& f = part.fabric();
  uint64_t held = 0, own = 0;
  for (PortId i = 0; i < f.ports.size(); ++i) {
    const bool local = cut.node_part[layout->ports[i].node] == 1;
    const bool far_end = cut.node_part[layout->PeerNode(i)] == 1;
    EXPECT_EQ(f.ports.Held(i), local || far_end) << "port " << i;
    held += f.ports.Held(i);
    own += local;
  }
  EXPECT_EQ(own, cut.sizes[1].ports);
  EXPECT_EQ(held, own + cut.cut_links / 2)
      << "cut links spread evenly: each partition has half its share";
  EXPECT_LT(held * 3, f.ports.size());
  // Congestion control is kept per held flow, and set for its own senders.
  EXPECT_EQ(f.cc.size(), f.flows.HeldCount());
  for (const Flow& fl : f.flows)
    EXPECT_EQ(f.cc[f.flows.PlaceOf(fl)] != nullptr, cut.node_part[layout->host_nodes[fl.src]] == 1);
  // A pod cut keeps hosts with their edge switch: the NICs held are its own.
  for (uint32_t h = 0; h < f.nics.size(); ++h)
    EXPECT_EQ(f.nics.Held(h), cut.node_part[layout->host_nodes[h]] == 1) << "host " << h;
}

// A flow's data frames count once at every node on its path: its two hosts
// and each switch between them; and once at every port they leave by
// (sim/partition_load.h).
TEST(PartitionLoad, CountsEachDataFrameAtEveryNodeOnItsPath) {
  const Scenario scenario = WithFlows(
      "{type: fat_tree, k: 4}", "[{src: 0, dst: 15, size: 10000B}, {src: 2, dst: 3, size: 2500B}]",
      "host: {mtu: 1000B}\n");
  const Simulation sim(scenario);
  const FabricLayout& l = *sim.fabric().layout;
  const FabricLoad traffic = EstimateFabricLoad(l, scenario);
  const std::vector<uint64_t>& load = traffic.node_frames;
  ASSERT_EQ(load.size(), l.nodes.size());
  ASSERT_EQ(traffic.port_frames.size(), l.ports.size());
  // Out of host 0, its edge, aggregation, core, aggregation and edge switch
  // (10 frames each); out of host 2 and its edge switch (3 each).
  EXPECT_EQ(traffic.port_frames[l.HostPort(0)], 10u);
  EXPECT_EQ(traffic.port_frames[l.HostPort(2)], 3u);
  EXPECT_EQ(traffic.port_frames[l.HostPort(15)], 0u);
  EXPECT_EQ(traffic.port_frames[l.ports[l.HostPort(15)].peer], 10u);  // the edge switch to 15
  uint64_t sent = 0;
  for (const uint64_t frames : traffic.port_frames) sent += frames;
  EXPECT_EQ(sent, 6u * 10 + 2 * 3);
  // 0 -> 15 crosses pods: edge, aggregation, core, aggregation, edge (10
  // frames each); 2 -> 3 share an edge switch (3 frames).
  EXPECT_EQ(load[l.host_nodes[0]], 10u);
  EXPECT_EQ(load[l.host_nodes[15]], 10u);
  EXPECT_EQ(load[l.host_nodes[2]], 3u);
  EXPECT_EQ(load[l.host_nodes[3]], 3u);
  uint64_t switches = 0, total = 0;
  for (size_t n = 0; n < l.nodes.size(); ++n) {
    total += load[n];
    if (l.nodes[n].is_switch) switches += load[n];
  }
  EXPECT_EQ(switches, 5u * 10 + 3);
  EXPECT_EQ(total, 7u * 10 + 3 * 3);
}

// Which pod goes where does not change a fat tree's cut, so the pods are
// dealt by load: two busy pods land in different partitions (a plain split
// by number would put pods 0 and 1 together), each partition still with
// half the hosts and switches.
TEST(Partition, BusyPodsAreSpreadOverPartitions) {
  const Scenario scenario = WithFlows("{type: fat_tree, k: 4}",
                                      "[{src: 0, dst: 1, size: 10MB}, {src: 4, dst: 5, size: 10MB},"
                                      " {src: 8, dst: 12, size: 1MB}]");
  const Simulation sim(scenario);
  const FabricLayout& l = *sim.fabric().layout;
  const Partitioning p = PartitionFabric(l, scenario, 2);
  EXPECT_EQ(p.by, "pods / leaf groups");
  EXPECT_NE(p.node_part[l.host_nodes[0]], p.node_part[l.host_nodes[4]]);
  EXPECT_EQ(p.sizes[0].hosts, p.sizes[1].hosts);
  EXPECT_EQ(p.sizes[0].switches, p.sizes[1].switches);
  EXPECT_EQ(p.cut_links, 8u);  // 4 pods x 4 core uplinks x the half to the other partition
  // The two 10 MB flows weigh the same: the loads differ by less than the
  // 1 MB flow's frames (a tenth of the total).
  const auto diff = static_cast<int64_t>(p.sizes[0].load) - static_cast<int64_t>(p.sizes[1].load);
  EXPECT_LE(std::abs(diff), static_cast<int64_t>(p.sizes[0].load + p.sizes[1].load) / 10);
  EXPECT_NE(p.Describe(sim.quantum()).find("% of frames"), std::string::npos);
  // Of the hops the frames make (2 + 2 inside the busy pods' edge switches
  // x 10 MB, 6 x 1 MB from pod 2 to pod 3), only the 1 MB flow's can cross.
  EXPECT_EQ(p.frame_hops, 4 * 10'000u + 6 * 1'000u);
  EXPECT_GT(p.cut_frames, 0u);
  EXPECT_LE(p.cut_frames, 2 * 1'000u);
}

// METIS (any topology that is not cut by structure) balances frames as well
// as ports: two busy leaves go to different partitions.
TEST(Partition, MetisBalancesFramesToo) {
  const Scenario scenario = WithFlows(
      "{type: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 2, host_link: {rate: 100Gbps, "
      "delay: 0us}, fabric_link: {rate: 100Gbps, delay: 2us}}",
      "[{src: 0, dst: 1, size: 10MB}, {src: 2, dst: 3, size: 10MB}]");
  const std::shared_ptr<const FabricLayout> layout = LayoutFabric(scenario);
  const FabricLayout& l = *layout;
  const Partitioning p = PartitionFabric(l, scenario, 2);
  EXPECT_EQ(p.by, "METIS");
  EXPECT_NE(p.node_part[l.host_nodes[0]], p.node_part[l.host_nodes[2]]) << p.Describe(1);
  EXPECT_EQ(p.sizes[0].load, p.sizes[1].load) << p.Describe(1);
}

// METIS cuts where few frames cross, not merely few links: four switches in
// a full mesh, two hosts on each. Every even split of the switches cuts
// four mesh links, so link counts cannot choose; with traffic only inside
// two pairs of switches, the cut keeps each pair whole, whichever the pairs,
// and no frame crosses.
TEST(Partition, MetisCutsWhereFewFramesCross) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("rocesim_mesh4_" + std::to_string(::getpid()) + ".txt");
  {
    std::ofstream out(file);
    out << "12 4 14\n8 9 10 11\n";
    for (int h = 0; h < 8; ++h) out << h << " " << 8 + h / 2 << " 100Gbps 1000ns 0\n";
    for (int a = 8; a < 12; ++a)
      for (int b = a + 1; b < 12; ++b) out << a << " " << b << " 100Gbps 1000ns 0\n";
  }
  // Pairs of switches (by index 0-3) that talk: host 2a -> host 2b and back.
  const std::array<std::array<int, 4>, 3> pairings = {{{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 3, 1, 2}}};
  for (const auto& [a, b, c, d] : pairings) {
    const auto flows = fmt::format(
        "[{{src: {}, dst: {}, size: 10MB}}, {{src: {}, dst: {}, size: 10MB}},"
        " {{src: {}, dst: {}, size: 10MB}}, {{src: {}, dst: {}, size: 10MB}}]",
        2 * a, 2 * b, 2 * b + 1, 2 * a + 1, 2 * c, 2 * d, 2 * d + 1, 2 * c + 1);
    const Scenario scenario = WithFlows("{type: file, file: '" + file.string() + "'}", flows);
    const std::shared_ptr<const FabricLayout> layout = LayoutFabric(scenario);
    const Partitioning p = PartitionFabric(*layout, scenario, 2);
    ASSERT_EQ(p.by, "METIS");
    const auto part = [&](int s) { return p.node_part[static_cast<size_t>(8 + s)]; };
    EXPECT_EQ(part(a), part(b)) << flows << "\n" << p.Describe(1);
    EXPECT_EQ(part(c), part(d)) << flows << "\n" << p.Describe(1);
    EXPECT_NE(part(a), part(c)) << flows << "\n" << p.Describe(1);
    for (int h = 0; h < 8; ++h)
      EXPECT_EQ(p.node_part[layout->host_nodes[static_cast<size_t>(h)]], part(h / 2)) << h;
    EXPECT_EQ(p.cut_links, 4u);
    EXPECT_EQ(p.cut_frames, 0u);
    EXPECT_GT(p.frame_hops, 0u);
    EXPECT_NE(p.Describe(1).find("cut 4 links (0.0% of the data frames' hops cross them)"),
              std::string::npos)
        << p.Describe(1);
  }
  std::filesystem::remove(file);
}

TEST(Partition, TheSameCutEveryTime) {
  const Simulation sim = Build("{type: fat_tree, k: 8}");
  EXPECT_EQ(PartitionFabric(*sim.fabric().layout, sim.scenario(), 4).node_part,
            PartitionFabric(*sim.fabric().layout, sim.scenario(), 4).node_part);
}

// The size rule for a run that names no partition count: one partition per
// thread until a partition would hold more than 1536 links, then two, then
// four (at most), counting every thread of every rank.
TEST(AutoPartitions, FollowTheLinksPerThread) {
  EXPECT_EQ(AutoPartitionsPerThread(480, 2), 1u);   // fat320
  EXPECT_EQ(AutoPartitionsPerThread(384, 2), 1u);   // k=8
  EXPECT_EQ(AutoPartitionsPerThread(3072, 2), 1u);  // exactly 1536 a partition
  EXPECT_EQ(AutoPartitionsPerThread(3073, 2), 2u);  // one link more
  EXPECT_EQ(AutoPartitionsPerThread(6144, 2), 2u);  // 1536 each of 4
  EXPECT_EQ(AutoPartitionsPerThread(6145, 2), 4u);
  EXPECT_EQ(AutoPartitionsPerThread(24576, 2), 4u);  // k=32: 8 partitions
  EXPECT_EQ(AutoPartitionsPerThread(24576, 8), 2u);  // k=32 on 8 threads: 16
  EXPECT_EQ(AutoPartitionsPerThread(24576, 16), 1u);
  EXPECT_EQ(AutoPartitionsPerThread(196608, 2), 4u);  // k=64: capped at 4 a thread
  EXPECT_EQ(AutoPartitionsPerThread(196608, 16), 4u);
  EXPECT_EQ(AutoPartitionsPerThread(10, 1), 1u);
  EXPECT_EQ(AutoPartitionsPerThread(10, 0), 1u);  // no threads counts as one
}

// A k=20 fat tree has 6,000 links: 2 threads (or 2 ranks of one thread) cut
// it in 4; a count given is kept; a small fabric stays at one per thread.
TEST(AutoPartitions, PartitionForRunCutsBySizeUnlessTold) {
  const Simulation k20 = Build("{type: fat_tree, k: 20}");
  ASSERT_EQ(k20.fabric().layout->ports.size() / 2, 6000u);
  const FabricLayout& layout = *k20.fabric().layout;
  EXPECT_EQ(PartitionForRun(layout, k20.scenario(), 1, 2, 0).parts, 4u);
  EXPECT_EQ(PartitionForRun(layout, k20.scenario(), 2, 1, 0).parts, 4u);
  EXPECT_EQ(PartitionForRun(layout, k20.scenario(), 2, 2, 0).parts, 4u);  // 1 a thread
  EXPECT_EQ(PartitionForRun(layout, k20.scenario(), 1, 2, 3).parts, 3u);
  EXPECT_EQ(PartitionForRun(layout, k20.scenario(), 2, 2, 3).parts, 6u);
  EXPECT_EQ(PartitionForRun(layout, k20.scenario(), 1, 2, 2).parts, 2u);
  const Simulation k4 = Build("{type: fat_tree, k: 4}");
  EXPECT_EQ(PartitionForRun(*k4.fabric().layout, k4.scenario(), 1, 2, 0).parts, 2u);
}

// Hosts on zero-delay links go with their leaf, so 2 leaves and a spine are
// three pieces: the rule's 4 partitions cannot be cut, and the run falls
// back to one per thread rather than failing; a count given is refused.
TEST(AutoPartitions, FallBackWhenTheFabricCannotBeCutSoFinely) {
  const Simulation sim(ParseScenarioText(
      "name: p\nduration: 1ms\nswitch: {buffer: 1GB}\ntopology: {type: leaf_spine, leaves: 2, "
      "spines: 1, hosts_per_leaf: 1600, host_link: {rate: 100Gbps, delay: 0us}, "
      "fabric_link: {rate: 100Gbps, delay: 1us}}\n",
      "p.yaml", "", {}, std::nullopt));
  const FabricLayout& layout = *sim.fabric().layout;
  ASSERT_EQ(AutoPartitionsPerThread(layout.ports.size() / 2, 2), 2u);
  EXPECT_EQ(PartitionForRun(layout, sim.scenario(), 1, 2, 0).parts, 2u);
  EXPECT_THROW(PartitionForRun(layout, sim.scenario(), 1, 2, 4), PartitionError);
}

}  // namespace
}  // namespace test_partition
}  // namespace rocesim
