// monitors.pcap from the command line (stats/port_capture.h): a small
// congested incast with DCQCN, PFC and an injected loss writes one pcap file
// per listed port that tshark (Debian's, when installed; the test is skipped
// without it) reads as Ethernet / IPv4 / UDP 4791 / RoCEv2 (its InfiniBand
// dissector) and 802.1Qbb pause frames with no malformed frame and no expert
// warning; what the files hold matches the run's own counters (CE marks,
// CNPs, pauses, PSNs); partitioned runs write the same bytes; and bad
// settings are refused with exit status 2 naming the scenario's line.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_test_support.h"

namespace rocesim {
namespace test_pcap_cli {
namespace {

using test::ReadFile;

// Hosts 0-3 on one switch (node 4; its port p goes to host p). Hosts 1-3
// send 200 packets each to host 0: the switch marks CE on its port 0 and
// pauses the senders; the link from host 3 loses every 40th data frame, so
// host 0 sends NAKs.
constexpr const char* kScenario = R"(name: pcap-congestion
seed: 3
duration: 3ms
topology:
  type: star
  hosts: 4
  host_link: {rate: 100Gbps, delay: 1us}
switch:
  buffer: 300KB
  alpha: 1/16
  pfc: {enabled: true, priorities: [3]}
  ecn: {enabled: true, kmin: 10KB, kmax: 60KB, pmax: 0.2}
host:
  mtu: 1000B
  cc: dcqcn
monitors:
  interval: 10us
  pcap:
    ports:
      - {node: 0, port: 0}
      - {node: 1, port: 0}
      - {node: 4, port: 0}
    snaplen: 2000
faults:
  - {type: packet_loss, node: 3, port: 0, every_nth: 40, at: 0us}
traffic:
  - type: incast
    senders: "1-3"
    receiver: 0
    size: 200KB
    start: 10us
    priority: 3
)";

bool HaveTshark() {
  return std::system("command -v tshark >/dev/null 2>&1") == 0;
}

// tshark's output for `args` on `file` (stderr dropped), and a line saying
// so if it failed (a display filter it does not know, a file it cannot read).
std::string Tshark(const std::string& file, const std::string& args) {
  const std::string cmd = "tshark -n -r '" + file + "' " + args + " 2>/dev/null";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return "tshark did not start\n";
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  if (::pclose(p) != 0) out += "tshark failed: " + cmd + "\n";
  return out;
}

std::vector<std::vector<std::string>> Rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row;
    std::istringstream fields(line);
    for (std::string f; std::getline(fields, f, '\t');) row.push_back(f);
    if (line.ends_with('\t')) row.emplace_back();
    rows.push_back(row);
  }
  return rows;
}

// A counters.csv column summed over the rows of (node, port).
uint64_t CounterSum(const std::string& csv, int node, int port, size_t column) {
  uint64_t sum = 0;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    if (std::stoi(f[1]) == node && std::stoi(f[2]) == port) sum += std::stoull(f[column]);
  }
  return sum;
}
constexpr size_t kPauseReceived = 6, kEcnMarks = 8, kCnpsSent = 9;

class PcapCli : public test::CliTest {};

TEST_F(PcapCli, TsharkDecodesEveryFrameAndItMatchesTheCounters) {
  if (!HaveTshark()) GTEST_SKIP() << "no tshark (scripts/install-deps.sh installs it)";
  RunInto("out", Write("s.yaml", kScenario), "");
  const std::string out = dir_ + "out/";
  const std::string csv = ReadFile(out + "counters.csv");
  const nlohmann::json summary = nlohmann::json::parse(ReadFile(out + "summary.json"));
  for (const char* name : {"0-p0", "1-p0", "4-p0"}) {
    const std::string f = out + "pcap/" + name + ".pcap";
    ASSERT_TRUE(std::filesystem::exists(f)) << f;
    EXPECT_GT(Rows(Tshark(f, "-T fields -e frame.number")).size(), 10u) << name;
    // No malformed frame, no expert note of warning or error severity (the
    // dissectors' complaints also show in the Info column: none there), and
    // every IPv4 header checksum verifies (status 1: good).
    EXPECT_EQ(Tshark(f, "-Y '_ws.malformed || _ws.expert.severity >= 0x00600000'"), "") << name;
    const std::string info = Tshark(f, "-T fields -e _ws.col.Info");
    EXPECT_EQ(info.find("Malformed"), std::string::npos) << name << info;
    EXPECT_EQ(info.find("Invalid"), std::string::npos) << name << info;
    EXPECT_EQ(Tshark(f, "-o ip.check_checksum:TRUE -Y 'ip && ip.checksum.status != 1'"), "")
        << name;
    // Every UDP frame is RoCEv2 to port 4791, dissected as InfiniBand.
    EXPECT_EQ(Tshark(f, "-Y 'udp && !(udp.dstport == 4791 && infiniband.bth)'"), "") << name;
    // Nothing is left undecoded but the pause frames' MAC control.
    EXPECT_EQ(Tshark(f, "-Y '!(infiniband.bth || macc.opcode == 0x0101)'"), "") << name;
  }

  // The switch's port to host 0: every frame it sends with CE is one its
  // ECN marking counted (the only marking point of this fabric).
  const auto sw = Rows(Tshark(out + "pcap/4-p0.pcap",
                              "-T fields -e eth.src -e ip.dsfield.ecn -e infiniband.bth.opcode"));
  uint64_t ce = 0, data = 0;
  for (const auto& r : sw) {
    ASSERT_EQ(r.size(), 3u);
    if (r[0] != "02:00:00:04:00:00") continue;  // received from host 0
    if (r[2] == "4" || r[2] == "0" || r[2] == "1" || r[2] == "2") ++data;
    if (r[1] == "3") ++ce;
  }
  EXPECT_GT(ce, 0u);
  EXPECT_EQ(ce, CounterSum(csv, 4, 0, kEcnMarks));
  EXPECT_EQ(ce, summary["ecn_marks"].get<uint64_t>());
  EXPECT_GE(data, 600u);

  // Host 0: the CNPs it sends (opcode 0x81 = 129) are its cnps_sent; it ACKs
  // (0x11, AETH syndrome ACK) and NAKs the lost PSNs (syndrome 0x60).
  const auto rx = Rows(Tshark(out + "pcap/0-p0.pcap",
                              "-T fields -e eth.src -e infiniband.bth.opcode -e "
                              "infiniband.aeth.syndrome -e ip.dsfield.ecn"));
  uint64_t cnps = 0, acks = 0, naks = 0;
  for (const auto& r : rx) {
    ASSERT_EQ(r.size(), 4u);
    if (r[0] != "02:00:00:00:00:00") continue;
    if (r[1] == "129") {
      ++cnps;
      EXPECT_EQ(r[3], "1");  // ECT(1), seed 000 §5
    }
    if (r[1] == "17" && r[2] == "31") ++acks;  // syndrome 0x1f
    if (r[1] == "17" && r[2] == "96") ++naks;  // syndrome 0x60
  }
  EXPECT_GT(cnps, 0u);
  EXPECT_EQ(cnps, CounterSum(csv, 0, 0, kCnpsSent));
  EXPECT_EQ(cnps, summary["cnps_sent"].get<uint64_t>());
  EXPECT_GT(acks, 0u);
  EXPECT_GT(naks, 0u);

  // Host 1: it sends PSNs 0-199 (200 KB in 1000 B packets), the last with
  // the ACK request bit; the pause frames it receives are its
  // pause_received, each for priority 3 with full quanta (XOFF) or 0 (XON).
  const auto h1 = Rows(Tshark(out + "pcap/1-p0.pcap",
                              "-T fields -e eth.src -e infiniband.bth.opcode -e "
                              "infiniband.bth.psn -e infiniband.bth.a -e macc.cbfc.enbv.c3 "
                              "-e macc.cbfc.pause_time.c3"));
  std::set<int> psns;
  uint64_t pauses = 0, ack_requests = 0;
  for (const auto& r : h1) {
    ASSERT_EQ(r.size(), 6u);
    const bool sent = r[0] == "02:00:00:01:00:00";
    if (sent && !r[2].empty()) psns.insert(std::stoi(r[2]));
    if (sent && r[3] == "1") ++ack_requests;
    if (!sent && !r[5].empty()) {
      ++pauses;
      EXPECT_TRUE(r[4] == "1" || r[4] == "True") << r[4];
      EXPECT_TRUE(r[5] == "0" || r[5] == "65535") << r[5];
    }
  }
  EXPECT_EQ(psns.size(), 200u);
  EXPECT_EQ(*psns.begin(), 0);
  EXPECT_EQ(*psns.rbegin(), 199);
  EXPECT_GE(ack_requests, 1u);
  EXPECT_GT(pauses, 0u);
  EXPECT_EQ(pauses, CounterSum(csv, 1, 0, kPauseReceived));
}

TEST_F(PcapCli, PartitionedRunsWriteTheSameFiles) {
  const std::string s = Write("s.yaml", kScenario);
  RunInto("serial", s, "");
  RunInto("threads", s, "--threads 2");
  std::vector<std::string> runs = {"threads"};
  if (test::HaveMpirun()) {
    RunInto("mpi", s, "", test::MpirunPrefix(2));
    runs.push_back("mpi");
  }
  for (const std::string& run : runs)
    for (const char* name : {"0-p0", "1-p0", "4-p0"}) {
      const std::string a = ReadFile(dir_ + "serial/pcap/" + name + ".pcap");
      EXPECT_GT(a.size(), 1000u);
      EXPECT_TRUE(a == ReadFile(dir_ + run + "/pcap/" + name + ".pcap")) << run << " " << name;
    }
}

TEST_F(PcapCli, BadSettingsAreRefusedNamingTheLine) {
  struct Case {
    std::string from, to, expect;
  };
  const std::vector<Case> cases = {
      {"{node: 4, port: 0}", "{node: 4, port: 9}",
       ":22:9: monitors.pcap.ports.2: node 4 has no port 9 (it has ports 0 to 3)"},
      {"{node: 4, port: 0}", "{node: 7, port: 0}",
       ":22:9: monitors.pcap.ports.2: node 7 does not exist"},
      {"snaplen: 2000", "snaplen: 63", ":23:14: monitors.pcap.snaplen:"},
      {"snaplen: 2000", "snaplen: 262145", ":23:14: monitors.pcap.snaplen:"},
      {"snaplen: 2000", "snaplen: 2000\n    start: 2ms\n    end: 1ms",
       ":25:10: monitors.pcap.end:"},
      {"{node: 1, port: 0}", "{node: 0, port: 0}",
       ":21:9: monitors.pcap.ports.1: port 0 of node 0 "
       "is listed twice"},
  };
  for (const Case& c : cases) {
    std::string text = kScenario;
    text.replace(text.find(c.from), c.from.size(), c.to);
    const std::string s = Write("bad.yaml", text);
    const test::CliRun r =
        test::RunRocesimCli("run '" + s + "' -q -o '" + dir_ + "bad'", dir_ + "bad.log");
    EXPECT_EQ(r.exit_code, 2) << c.to << ": " << r.output;
    EXPECT_NE(r.output.find("bad.yaml" + c.expect), std::string::npos) << r.output;
    std::filesystem::remove_all(dir_ + "bad");
  }
}

}  // namespace
}  // namespace test_pcap_cli
}  // namespace rocesim
