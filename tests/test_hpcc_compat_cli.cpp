// output.hpcc_compat: a run also writes the HPCC ns-3 simulator's FCT file
// and PFC trace (its scratch/third.cc formats), read back here by a small
// parser written from those formats and checked against rocesim's own
// flows.csv, nodes.csv and summary.json; and a partitioned run writes them
// byte for byte as the serial run does. output.hpcc_qlen: its queue-length
// monitor's file, parsed and checked against queues.csv sampled at the same
// instants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_test_support.h"

namespace rocesim {
namespace test_hpcc_compat_cli {
namespace {

using test::ExamplePath;
using test::ReadFile;

// fct.txt: "sip dip sport dport size start_ns fct_ns standalone_fct_ns", the
// addresses as 8 hex digits.
struct HpccFctLine {
  uint32_t sip = 0, dip = 0, sport = 0, dport = 0;
  uint64_t size = 0, start_ns = 0, fct_ns = 0, standalone_ns = 0;
};
// pfc.txt: "time_ns node node_type if_index type".
struct HpccPfcLine {
  uint64_t time_ns = 0;
  uint32_t node = 0, node_type = 0, if_index = 0, type = 0;
};

std::vector<HpccFctLine> ParseFct(const std::string& text) {
  std::vector<HpccFctLine> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream w(line);
    HpccFctLine l;
    std::string sip, dip;
    w >> sip >> dip >> l.sport >> l.dport >> l.size >> l.start_ns >> l.fct_ns >> l.standalone_ns;
    EXPECT_TRUE(w && sip.size() == 8 && dip.size() == 8) << "bad fct.txt line: " << line;
    l.sip = static_cast<uint32_t>(std::stoul(sip, nullptr, 16));
    l.dip = static_cast<uint32_t>(std::stoul(dip, nullptr, 16));
    out.push_back(l);
  }
  return out;
}

std::vector<HpccPfcLine> ParsePfc(const std::string& text) {
  std::vector<HpccPfcLine> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream w(line);
    HpccPfcLine l;
    w >> l.time_ns >> l.node >> l.node_type >> l.if_index >> l.type;
    EXPECT_TRUE(w) << "bad pfc.txt line: " << line;
    out.push_back(l);
  }
  return out;
}

// The HPCC simulator's ip_to_node_id: the node id sits in bits 8-23.
uint32_t NodeOfIp(uint32_t ip) {
  return (ip >> 8) & 0xffff;
}

// Rows of a CSV file with a header, as maps from column to text.
std::vector<std::map<std::string, std::string>> ReadCsv(const std::string& path) {
  std::vector<std::map<std::string, std::string>> rows;
  std::istringstream in(ReadFile(path));
  std::string header;
  std::getline(in, header);
  std::vector<std::string> cols;
  std::istringstream h(header);
  for (std::string c; std::getline(h, c, ',');) cols.push_back(c);
  for (std::string line; std::getline(in, line);) {
    std::map<std::string, std::string> row;
    std::istringstream f(line);
    std::string v;
    for (size_t i = 0; i < cols.size() && std::getline(f, v, ','); ++i) row[cols[i]] = v;
    rows.push_back(row);
  }
  return rows;
}

class HpccCompatCli : public test::CliTest {};

TEST_F(HpccCompatCli, FctAndPfcFilesMatchFlowsAndSummary) {
  RunInto("r", ExamplePath("quickstart.yaml"), "--set output.hpcc_compat=true");
  const std::string r = dir_ + "r/";
  // Host id -> node id and which nodes are switches, from nodes.csv.
  std::map<uint32_t, uint32_t> node_of_host;
  std::map<uint32_t, bool> is_switch;
  for (const auto& row : ReadCsv(r + "nodes.csv")) {
    const auto node = static_cast<uint32_t>(std::stoul(row.at("node")));
    is_switch[node] = row.at("kind") == "switch";
    if (row.at("kind") == "host") node_of_host[std::stoul(row.at("index"))] = node;
  }

  // fct.txt: the completed flows of flows.csv, each once, in completion order.
  const std::vector<HpccFctLine> fct = ParseFct(ReadFile(r + "fct.txt"));
  std::map<std::pair<uint32_t, uint64_t>, const HpccFctLine*> by_src_start;
  for (const HpccFctLine& l : fct) by_src_start[{NodeOfIp(l.sip), l.start_ns}] = &l;
  size_t completed = 0;
  for (const auto& row : ReadCsv(r + "flows.csv")) {
    if (row.at("finish_ps").empty()) continue;
    ++completed;
    const uint32_t src = node_of_host.at(std::stoul(row.at("src")));
    const uint64_t start_ns = std::stoull(row.at("start_ps")) / 1000;
    const auto it = by_src_start.find({src, start_ns});
    ASSERT_NE(it, by_src_start.end()) << "flow " << row.at("id") << " missing from fct.txt";
    const HpccFctLine& l = *it->second;
    EXPECT_EQ(NodeOfIp(l.dip), node_of_host.at(std::stoul(row.at("dst"))));
    EXPECT_EQ(l.sip & 0xff0000ffu, 0x0b000001u) << "11.x.y.1 addresses";
    EXPECT_EQ(l.size, std::stoull(row.at("size_bytes")));
    EXPECT_EQ(l.fct_ns, std::stoull(row.at("fct_ps")) / 1000);
    EXPECT_EQ(l.standalone_ns, std::stoull(row.at("ideal_fct_ps")) / 1000);
    EXPECT_EQ(l.dport, 100u) << "fct_analysis.py selects ordinary flows by dport 100";
  }
  EXPECT_EQ(completed, 16u);
  EXPECT_EQ(fct.size(), completed);
  for (size_t i = 1; i < fct.size(); ++i)
    EXPECT_LE(fct[i - 1].start_ns + fct[i - 1].fct_ns, fct[i].start_ns + fct[i].fct_ns);

  // pfc.txt: one line per pause frame received, in time order.
  const nlohmann::json summary = nlohmann::json::parse(ReadFile(r + "summary.json"));
  const std::vector<HpccPfcLine> pfc = ParsePfc(ReadFile(r + "pfc.txt"));
  const auto received = summary["pfc"]["pause_frames_received"].get<size_t>();
  EXPECT_GT(received, 0u) << "the quickstart's incast pauses its senders";
  EXPECT_EQ(pfc.size(), received);
  size_t pauses = 0;
  for (size_t i = 0; i < pfc.size(); ++i) {
    const HpccPfcLine& l = pfc[i];
    if (i > 0) {
      EXPECT_LE(pfc[i - 1].time_ns, l.time_ns);
    }
    ASSERT_TRUE(is_switch.count(l.node)) << l.node;
    EXPECT_EQ(l.node_type, is_switch[l.node] ? 1u : 0u);
    EXPECT_GE(l.if_index, 1u) << "ns-3 device 0 is the loopback";
    EXPECT_LE(l.type, 1u);
    pauses += l.type;
  }
  EXPECT_GT(pauses, 0u);
}

// fct_analysis.py -t selects flows by their destination port: fct.txt keeps
// the port each flow had in the HPCC flow file, serial and partitioned.
TEST_F(HpccCompatCli, FctKeepsTheFlowFilesDestinationPorts) {
  Write("flows.txt", "3\n1 0 3 100 20000 0.000001\n2 0 3 200 20000 0.000002\n3 1 3 321 5000 0\n");
  const std::string sc = Write("s.yaml", R"(
duration: 1ms
topology: {type: star, hosts: 4}
output: {hpcc_compat: true}
traffic:
  - {type: flow_file, file: flows.txt}
)");
  RunInto("r", sc, "");
  std::multiset<uint32_t> dports;
  for (const HpccFctLine& l : ParseFct(ReadFile(dir_ + "r/fct.txt"))) dports.insert(l.dport);
  EXPECT_EQ(dports, (std::multiset<uint32_t>{100, 200, 321}));
  RunInto("threads", sc, "--threads 2");
  ExpectSameResults("r", "threads");
}

TEST_F(HpccCompatCli, OffByDefault) {
  RunInto("r", ExamplePath("quickstart.yaml"), "");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "r/fct.txt"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "r/pfc.txt"));
  EXPECT_NE(ReadFile(dir_ + "r/resolved.yaml").find("hpcc_compat: false"), std::string::npos);
}

// congestion-spreading: switches pause switches too, across the cut.
TEST_F(HpccCompatCli, PartitionedRunWritesTheSameFiles) {
  const std::string sc = ExamplePath("congestion-spreading.yaml");
  const std::string on = "--set output.hpcc_compat=true";
  RunInto("serial", sc, on);
  RunInto("threads", sc, on + " --threads 2");
  const std::vector<std::string> names = ExpectSameResults("serial", "threads");
  EXPECT_NE(std::find(names.begin(), names.end(), "pfc.txt"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "fct.txt"), names.end());
  const std::vector<HpccPfcLine> pfc = ParsePfc(ReadFile(dir_ + "serial/pfc.txt"));
  EXPECT_TRUE(std::any_of(pfc.begin(), pfc.end(), [](const HpccPfcLine& l) {
    return l.node_type == 1;
  })) << "a switch received pause frames";
  if (!test::HaveMpirun()) return;
  RunInto("mpi", sc, on, test::MpirunPrefix(2));
  ExpectSameResults("serial", "mpi");
}

// qlen.txt: blocks "time: <ns>" followed by "<node> <port> <count>...".
struct QlenBlock {
  uint64_t time_ns = 0;
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> hist;  // (node, port) ->
};
std::vector<QlenBlock> ParseQlen(const std::string& text) {
  std::vector<QlenBlock> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("time: ")) {
      out.push_back({std::stoull(line.substr(6)), {}});
      continue;
    }
    EXPECT_FALSE(out.empty()) << "a histogram line before any time: " << line;
    if (out.empty()) break;
    std::istringstream w(line);
    uint32_t node = 0, port = 0;
    w >> node >> port;
    EXPECT_TRUE(w) << "bad qlen.txt line: " << line;
    std::vector<uint64_t>& h = out.back().hist[{node, port}];
    for (uint64_t c; w >> c;) h.push_back(c);
  }
  return out;
}

// Sampled at the monitors' instants (every 10 us from 0), the histograms
// are exactly what queues.csv's rows give: per switch port, the bytes of all
// its priorities at each sample, in 1,000-byte buckets, counted from the
// start; dumps fall at multiples of dump_interval and at the last sample.
TEST_F(HpccCompatCli, QlenHistogramsMatchQueuesCsv) {
  const std::string sc = ExamplePath("congestion-spreading.yaml");
  const std::string opts =
      "--set monitors.interval=10us --set output.hpcc_qlen.interval=10us "
      "--set output.hpcc_qlen.dump_interval=1ms --set output.hpcc_qlen.end=3005us";
  RunInto("r", sc, opts);
  const std::vector<QlenBlock> blocks = ParseQlen(ReadFile(dir_ + "r/qlen.txt"));
  // Dumps at 0, 1, 2 and 3 ms, then the last sample (3010 us: the first at
  // or after `end`, as that simulator samples).
  ASSERT_EQ(blocks.size(), 5u);
  const uint64_t expected_times[] = {0, 1'000'000, 2'000'000, 3'000'000, 3'010'000};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(blocks[i].time_ns, expected_times[i]);

  // Switch ports (node, local + 1) from links.csv is not needed: every
  // switch port appears, and queues.csv names the non-empty ones.
  std::map<std::pair<uint64_t, std::pair<uint32_t, uint32_t>>, int64_t> bytes;  // (time, port)
  for (const auto& row : ReadCsv(dir_ + "r/queues.csv"))
    bytes[{std::stoull(row.at("time_ps")) / 1000,
           {static_cast<uint32_t>(std::stoul(row.at("node"))),
            static_cast<uint32_t>(std::stoul(row.at("port")) + 1)}}] += std::stoll(row.at("bytes"));
  const QlenBlock& last = blocks.back();
  ASSERT_FALSE(last.hist.empty());
  bool some_queue = false;
  for (const auto& [port, hist] : last.hist) {
    std::vector<uint64_t> expected;
    for (uint64_t t = 0; t <= 3'010'000; t += 10'000) {
      const auto it = bytes.find({t, port});
      const auto kb = static_cast<size_t>(it == bytes.end() ? 0 : it->second / 1000);
      if (expected.size() <= kb) expected.resize(kb + 1, 0);
      ++expected[kb];
      some_queue = some_queue || kb > 0;
    }
    EXPECT_EQ(hist, expected) << "node " << port.first << " port " << port.second;
  }
  EXPECT_TRUE(some_queue) << "the incast builds queues";
  // Every dump counts every sample so far.
  for (const QlenBlock& b : blocks)
    for (const auto& [port, hist] : b.hist) {
      uint64_t n = 0;
      for (uint64_t c : hist) n += c;
      EXPECT_EQ(n, b.time_ns / 10'000 + 1) << "at " << b.time_ns << " ns";
    }

  RunInto("threads", sc, opts + " --threads 2");
  ExpectSameResults("r", "threads");
  if (!test::HaveMpirun()) return;
  RunInto("mpi", sc, opts, test::MpirunPrefix(2));
  ExpectSameResults("r", "mpi");
}

TEST_F(HpccCompatCli, QlenSettingsAreChecked) {
  const std::string sc = ExamplePath("quickstart.yaml");
  const auto run = [&](const std::string& args) {
    return test::RunRocesimCli(args, dir_ + "check.log");
  };
  const test::CliRun fine = run("run '" + sc + "' --check --set output.hpcc_qlen.interval=5ns");
  EXPECT_EQ(fine.exit_code, 2) << fine.output;
  EXPECT_NE(fine.output.find("output.hpcc_qlen.interval: expected at least 10ns"),
            std::string::npos)
      << fine.output;
  const test::CliRun dump = run("run '" + sc +
                                "' --check --set output.hpcc_qlen.interval=1us "
                                "--set output.hpcc_qlen.dump_interval=100ns");
  EXPECT_EQ(dump.exit_code, 2) << dump.output;
  EXPECT_NE(dump.output.find("output.hpcc_qlen.dump_interval"), std::string::npos) << dump.output;
}

}  // namespace
}  // namespace test_hpcc_compat_cli
}  // namespace rocesim
