// nodes.csv and links.csv (stats/node_map.h): every topology type names its
// nodes by tier and index, and every link once with both ends' ports.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

#include "net/fabric_layout.h"
#include "scenario/scenario_reader.h"
#include "stats/node_map.h"
#include "tests/cli_test_support.h"

namespace rocesim {
namespace test_node_map {
namespace {

std::vector<std::vector<std::string>> Rows(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    std::string cell;
    while (std::getline(l, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

std::shared_ptr<const FabricLayout> Layout(const std::string& topology) {
  return LayoutFabric(ParseScenarioText("topology: " + topology + "\n", "t.yaml",
                                        ROCESIM_SOURCE_DIR, {}, std::nullopt));
}

// tier -> how many nodes, and every name as tier + index.
std::map<std::string, int> Tiers(const FabricLayout& l) {
  const auto rows = Rows(NodesCsv(l));
  EXPECT_EQ(rows[0], (std::vector<std::string>{"node", "kind", "tier", "index", "name"}));
  std::map<std::string, int> count;
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].size(), 5u);
    EXPECT_EQ(rows[i][0], std::to_string(i - 1));
    EXPECT_EQ(rows[i][4], rows[i][2] + rows[i][3]);
    EXPECT_EQ(rows[i][1], rows[i][2] == "host" ? "host" : "switch");
    ++count[rows[i][2]];
  }
  EXPECT_EQ(rows.size() - 1, l.nodes.size());
  return count;
}

TEST(NodeMap, FatTreeTiers) {
  const auto l = Layout("{type: fat_tree, k: 4}");
  EXPECT_EQ(Tiers(*l),
            (std::map<std::string, int>{{"host", 16}, {"tor", 8}, {"agg", 8}, {"core", 4}}));
  const auto rows = Rows(NodesCsv(*l));
  // Hosts first (node = host id), then edges, aggregations, cores.
  EXPECT_EQ(rows[1 + 12], (std::vector<std::string>{"12", "host", "host", "12", "host12"}));
  EXPECT_EQ(rows[1 + 16 + 3], (std::vector<std::string>{"19", "switch", "tor", "3", "tor3"}));
  EXPECT_EQ(rows[1 + 24 + 1], (std::vector<std::string>{"25", "switch", "agg", "1", "agg1"}));
  EXPECT_EQ(rows[1 + 32 + 3], (std::vector<std::string>{"35", "switch", "core", "3", "core3"}));
}

TEST(NodeMap, EveryGeneratedTopology) {
  EXPECT_EQ(Tiers(*Layout("{type: star, hosts: 3}")),
            (std::map<std::string, int>{{"host", 3}, {"tor", 1}}));
  EXPECT_EQ(Tiers(*Layout("{type: dumbbell, hosts_left: 2, hosts_right: 3}")),
            (std::map<std::string, int>{{"host", 5}, {"tor", 2}}));
  EXPECT_EQ(Tiers(*Layout("{type: leaf_spine, leaves: 3, spines: 2, hosts_per_leaf: 4}")),
            (std::map<std::string, int>{{"host", 12}, {"leaf", 3}, {"spine", 2}}));
  EXPECT_EQ(Tiers(*Layout("{type: rail, servers: 4, gpus_per_server: 2, spines: 2}")),
            (std::map<std::string, int>{{"host", 8}, {"rail", 2}, {"spine", 2}}));
}

TEST(NodeMap, TopologyFileTiersAreUnknown) {
  const auto l = Layout("{type: file, file: bench/hpcc/fattree_k8.txt}");
  EXPECT_EQ(Tiers(*l), (std::map<std::string, int>{{"host", 128}, {"switch", 80}}));
}

TEST(NodeMap, LinksListEachLinkOnceWithBothPorts) {
  const auto l = Layout(
      "{type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2, links_per_spine: 2, "
      "host_link: {rate: 25Gbps, delay: 500ns}, fabric_link: {rate: 100Gbps, delay: 2us}}");
  const auto rows = Rows(LinksCsv(*l));
  ASSERT_EQ(rows[0], (std::vector<std::string>{"node_a", "port_a", "node_b", "port_b", "rate_bps",
                                               "delay_ps", "error_rate"}));
  // 4 host links + 2 leaves x 2 spines x 2 parallel links.
  ASSERT_EQ(rows.size() - 1, 4u + 8u);
  std::set<std::pair<std::string, std::string>> ports;
  for (size_t i = 1; i < rows.size(); ++i) {
    EXPECT_TRUE(ports.insert({rows[i][0], rows[i][1]}).second) << "port used twice";
    EXPECT_TRUE(ports.insert({rows[i][2], rows[i][3]}).second) << "port used twice";
  }
  // Host 0 (node 0) on leaf 0 (node 4) at the leaf's first port.
  EXPECT_EQ(rows[1], (std::vector<std::string>{"0", "0", "4", "0", "25000000000", "500000", "0"}));
  // The last link: leaf 1 (node 5) to spine 1 (node 7), the second parallel one.
  EXPECT_EQ(rows.back(),
            (std::vector<std::string>{"5", "5", "7", "3", "100000000000", "2000000", "0"}));
}

using NodeMapCli = test::CliTest;

TEST_F(NodeMapCli, EveryResultsDirectoryHasTheMaps) {
  const std::string s = Write("s.yaml", R"(
topology: {type: dumbbell, hosts_left: 1, hosts_right: 1}
duration: 100us
traffic:
  - type: flows
    flows: [{src: 0, dst: 1, size: 10KB}]
)");
  RunInto("r", s, "");
  EXPECT_EQ(test::ReadFile(dir_ + "r/nodes.csv"),
            "node,kind,tier,index,name\n0,host,host,0,host0\n1,host,host,1,host1\n"
            "2,switch,tor,0,tor0\n3,switch,tor,1,tor1\n");
  EXPECT_EQ(test::ReadFile(dir_ + "r/links.csv"),
            "node_a,port_a,node_b,port_b,rate_bps,delay_ps,error_rate\n"
            "0,0,2,0,100000000000,1000000,0\n1,0,3,0,100000000000,1000000,0\n"
            "2,1,3,1,100000000000,1000000,0\n");
}

}  // namespace
}  // namespace test_node_map
}  // namespace rocesim
