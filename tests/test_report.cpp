// End-to-end tests of `rocesim report` and `rocesim compare` (apps/main.cpp
// handing over to python/rocesim_report.py): a real tiny run with monitors
// on, then the report's HTML page with embedded plots, a comparison table,
// and exit status 2 passed back from the script for a directory that is not
// results. Run as child processes of $ROCESIM_BIN (set by ctest); skipped
// when no python3 on this machine can import matplotlib and numpy, the same
// interpreters the command tries. The plotting itself is tested in
// python/test_rocesim_report.py.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_report {
namespace {

using test::ReadFile;

int ExitCode(int status) {
  return status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// True when one of the interpreters `rocesim report` tries has matplotlib.
bool PlottingAvailable() {
  std::vector<std::string> candidates;
  if (const char* py = std::getenv("ROCESIM_PYTHON"); py != nullptr && *py != '\0') {
    candidates.push_back(py);
  } else {
    candidates = {"python3", "/usr/bin/python3", "/usr/local/bin/python3"};
  }
  for (const std::string& c : candidates) {
    const std::string cmd = "'" + c + "' -c 'import matplotlib, numpy' >/dev/null 2>&1";
    if (ExitCode(std::system(cmd.c_str())) == 0) return true;
  }
  return false;
}

constexpr char kTinyMonitored[] = R"(name: tiny-report
duration: 1ms
topology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 2MB, alpha: 1/16, pfc: {enabled: true, priorities: [3]}}
host: {mtu: 1000B, cc: none}
monitors: {interval: 5us}
traffic:
  - {type: incast, senders: "1-3", receiver: 0, size: 200KB, priority: 3}
)";

// Three flow sizes (one per size group) and a monitor window that ends early
// on two nodes only.
constexpr char kSizesWindowed[] = R"(name: tiny-sizes
duration: 1ms
topology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 2MB, alpha: 1/16, pfc: {enabled: true, priorities: [3]}}
host: {mtu: 1000B, cc: none}
monitors: {interval: 5us, end: 20us, nodes: [0, 4]}
traffic:
  - {type: incast, senders: "1-3", receiver: 0, size: 4KB, priority: 3}
  - {type: incast, senders: "1-3", receiver: 0, size: 50KB, priority: 3}
  - {type: incast, senders: "1-3", receiver: 0, size: 200KB, priority: 3}
)";

class ReportCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("ROCESIM_BIN");
    if (bin == nullptr) GTEST_SKIP() << "ROCESIM_BIN not set (run via ctest)";
    if (!PlottingAvailable())
      GTEST_SKIP() << "no python3 with matplotlib and numpy (scripts/install-deps.sh)";
    bin_ = bin;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = ::testing::TempDir() + "rocesim_report_" + info->name() + "_" +
           std::to_string(::getpid()) + "/";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "tiny.yaml") << kTinyMonitored;
  }
  void TearDown() override {
    if (!dir_.empty() && !HasFailure()) std::filesystem::remove_all(dir_);
  }

  // Runs rocesim with `args`; returns the exit status, output in output_.
  int Cli(const std::string& args) {
    const std::string out = dir_ + "cli_output.txt";
    const int status = std::system(("'" + bin_ + "' " + args + " >'" + out + "' 2>&1").c_str());
    output_ = ReadFile(out);
    return ExitCode(status);
  }

  std::string bin_, dir_, output_;
};

TEST_F(ReportCliTest, ReportOfARealRunWritesHtmlWithEmbeddedPlots) {
  ASSERT_EQ(Cli("run '" + dir_ + "tiny.yaml' -q -o '" + dir_ + "run'"), 0) << output_;
  ASSERT_EQ(Cli("report '" + dir_ + "run'"), 0) << output_;
  const std::string report = dir_ + "run/report/";
  ASSERT_TRUE(std::filesystem::exists(report + "report.html")) << output_;
  const std::string page = ReadFile(report + "report.html");
  EXPECT_NE(page.find("rocesim report: tiny-report"), std::string::npos);
  EXPECT_NE(page.find("data:image/png;base64,"), std::string::npos);
  // Monitors were on: the time-series plots exist too.
  for (const char* png : {"slowdown_by_size.png", "fct_cdf.png", "queue_occupancy.png",
                          "port_throughput.png", "flow_throughput.png"})
    EXPECT_TRUE(std::filesystem::exists(report + png)) << png << "\n" << output_;
}

// The by-size table runs from small to large flows (summary.json lists the
// groups alphabetically), drop causes that did not happen are left out, and
// plots of a monitor limited to some nodes say so.
TEST_F(ReportCliTest, ReportOrdersSizesAndSaysWhatTheMonitorsCovered) {
  std::ofstream(dir_ + "sizes.yaml") << kSizesWindowed;
  ASSERT_EQ(Cli("run '" + dir_ + "sizes.yaml' -q -o '" + dir_ + "run'"), 0) << output_;
  ASSERT_EQ(Cli("report '" + dir_ + "run'"), 0) << output_;
  const std::string page = ReadFile(dir_ + "run/report/report.html");
  const size_t small = page.find("<td>&lt;10KB</td>");
  const size_t medium = page.find("<td>10KB-100KB</td>");
  const size_t large = page.find("<td>100KB-1MB</td>");
  ASSERT_NE(small, std::string::npos) << page;
  ASSERT_NE(medium, std::string::npos);
  ASSERT_NE(large, std::string::npos);
  EXPECT_LT(small, medium);
  EXPECT_LT(medium, large);
  EXPECT_NE(page.find("<td>drops total</td>"), std::string::npos);
  EXPECT_EQ(page.find("<td>drops: "), std::string::npos);  // lossless: no cause happened
  // Named from nodes.csv: node 4 is the star's switch.
  EXPECT_NE(page.find("Port throughput (monitored nodes only: host0, tor0)"), std::string::npos);
}

TEST_F(ReportCliTest, CompareTwoRunsWritesTable) {
  ASSERT_EQ(Cli("run '" + dir_ + "tiny.yaml' -q -o '" + dir_ + "a'"), 0) << output_;
  ASSERT_EQ(
      Cli("run '" + dir_ + "tiny.yaml' -q --set host.cc=dcqcn --threads 2 -o '" + dir_ + "b'"), 0)
      << output_;
  ASSERT_EQ(Cli("compare '" + dir_ + "a' '" + dir_ + "b' --labels none,dcqcn -o '" + dir_ + "cmp'"),
            0)
      << output_;
  EXPECT_NE(output_.find("dcqcn"), std::string::npos) << output_;
  const std::string csv = ReadFile(dir_ + "cmp/compare.csv");
  EXPECT_NE(csv.find("\nnone,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\ndcqcn,"), std::string::npos) << csv;
  // How each ran: the serial run 1 rank, 1 thread, 1 partition; the other 2
  // threads on 2 partitions (a 4-host star: one per thread). Rows end in
  // "\r\n", as Python's csv module writes them.
  EXPECT_NE(csv.find(",wall_seconds,ranks,threads,partitions"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1,1,1\r\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1,2,2\r\n"), std::string::npos) << csv;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "cmp/compare.html"));
}

TEST_F(ReportCliTest, NotAResultsDirectoryExitsTwo) {
  EXPECT_EQ(Cli("report '" + dir_ + "no_such_dir'"), 2) << output_;
  EXPECT_NE(output_.find("no_such_dir"), std::string::npos) << output_;
  EXPECT_EQ(Cli("compare '" + dir_ + "'"), 2) << output_;  // a directory, but not results
  EXPECT_NE(output_.find("not a rocesim results directory"), std::string::npos) << output_;
}

}  // namespace
}  // namespace test_report
}  // namespace rocesim
