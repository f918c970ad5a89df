// `rocesim run --window-trace FILE` (sim/window_trace.h), as a user runs it:
// a CSV row per window and partition whose events add up to the run's, the
// same events on threads, shared partitions and MPI ranks (they depend on
// the scenario and the cut, not on who runs them), a serial run warned and
// left alone, and a path that cannot be written refused before the run.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_test_support.h"

namespace rocesim {
namespace {

using test::HaveMpirun;
using test::ReadFile;

struct TraceRow {
  uint64_t window = 0;
  int64_t start_ps = 0;
  uint32_t partition = 0;
  uint64_t events = 0;
  double seconds = 0;
  bool operator==(const TraceRow& o) const {  // what does not depend on the machine
    return window == o.window && start_ps == o.start_ps && partition == o.partition &&
           events == o.events;
  }
};

// Two leaves of two hosts, every flow crossing from one leaf to the other,
// so that both partitions of a cut by leaf have work in most windows.
constexpr const char* kCrossLeaves = R"(
name: cross-leaves
duration: 1ms
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 2, size: 300KB, start: 0us}
      - {src: 3, dst: 1, size: 200KB, start: 20us}
      - {src: 1, dst: 3, size: 100KB, start: 50us}
)";

class WindowTraceCli : public test::CliTest {
 protected:
  std::vector<TraceRow> ReadTrace(const std::string& path) {
    std::istringstream in(ReadFile(path));
    std::string line;
    std::getline(in, line);
    EXPECT_EQ(line, "window,start_ps,partition,events,seconds");
    std::vector<TraceRow> rows;
    while (std::getline(in, line)) {
      TraceRow r;
      char c1, c2, c3, c4;
      std::istringstream fields(line);
      fields >> r.window >> c1 >> r.start_ps >> c2 >> r.partition >> c3 >> r.events >> c4 >>
          r.seconds;
      EXPECT_TRUE(fields && c1 == ',' && c2 == ',' && c3 == ',' && c4 == ',') << line;
      rows.push_back(r);
    }
    return rows;
  }
  // The trace of dir_/name: a row per window and partition, in order; the
  // windows' starts rising; the events adding up to the run's.
  std::vector<TraceRow> ExpectWholeTrace(const std::string& name, uint32_t partitions) {
    const std::vector<TraceRow> rows = ReadTrace(dir_ + name + ".csv");
    const nlohmann::json summary = nlohmann::json::parse(ReadFile(dir_ + name + "/summary.json"));
    const nlohmann::json& run = summary["run"];
    const uint64_t windows = run["partitioned_time"]["windows"].get<uint64_t>();
    EXPECT_GT(windows, 10u);
    EXPECT_EQ(run["partitions"].get<uint32_t>(), partitions);
    EXPECT_EQ(rows.size(), windows * partitions);
    uint64_t events = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].window, i / partitions) << i;
      EXPECT_EQ(rows[i].partition, i % partitions) << i;
      if (rows[i].partition != 0) {
        EXPECT_EQ(rows[i].start_ps, rows[i - 1].start_ps) << i;  // one window's rows
      } else if (i > 0) {
        EXPECT_GT(rows[i].start_ps, rows[i - 1].start_ps) << i;
      }
      EXPECT_GE(rows[i].seconds, 0) << i;
      events += rows[i].events;
    }
    EXPECT_EQ(events, summary["events"].get<uint64_t>());
    return rows;
  }
};

TEST_F(WindowTraceCli, ARowPerWindowAndPartitionWhoseEventsAddUpToTheRun) {
  const std::string sc = Write("cross_leaves.yaml", kCrossLeaves);
  RunInto("threads", sc, "--threads 2 --window-trace '" + dir_ + "threads.csv'");
  const std::vector<TraceRow> rows = ExpectWholeTrace("threads", 2);
  // Both partitions ran events (every flow crosses the cut).
  uint64_t per_partition[2] = {0, 0};
  for (const TraceRow& r : rows) per_partition[r.partition] += r.events;
  EXPECT_GT(per_partition[0], 1000u);
  EXPECT_GT(per_partition[1], 1000u);
  // The first window opens at the first event: the first flow's start.
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0].start_ps, 0);
}

TEST_F(WindowTraceCli, ThreadsSharedPartitionsAndRanksTraceTheSameEvents) {
  const std::string sc = Write("cross_leaves.yaml", kCrossLeaves);
  RunInto("threads", sc, "--threads 2 --window-trace '" + dir_ + "threads.csv'");
  RunInto("one_thread", sc,
          "--threads 1 --partitions 2 --window-trace '" + dir_ + "one_thread.csv'");
  const std::vector<TraceRow> threads = ExpectWholeTrace("threads", 2);
  EXPECT_EQ(ExpectWholeTrace("one_thread", 2), threads);
  RunInto("shared", sc, "--threads 2 --partitions 3 --window-trace '" + dir_ + "shared.csv'");
  ExpectWholeTrace("shared", 3);
  if (!HaveMpirun()) return;
  RunInto("ranks", sc, "--window-trace '" + dir_ + "ranks.csv'", test::MpirunPrefix(2));
  EXPECT_EQ(ExpectWholeTrace("ranks", 2), threads);
  RunInto("ranks_threads", sc, "--threads 2 --window-trace '" + dir_ + "ranks_threads.csv'",
          test::MpirunPrefix(2));
  ExpectWholeTrace("ranks_threads", 4);
}

TEST_F(WindowTraceCli, ASerialRunSaysItHasNoWindowsAndWritesNothing) {
  const std::string sc = Write("cross_leaves.yaml", kCrossLeaves);
  const std::string out = RunInto("serial", sc, "--window-trace '" + dir_ + "serial.csv'");
  EXPECT_NE(out.find("rocesim: warning: --window-trace: a serial run has no windows to trace; "
                     "nothing written to " +
                     dir_ + "serial.csv"),
            std::string::npos)
      << out;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "serial.csv"));
}

TEST_F(WindowTraceCli, APathThatCannotBeWrittenFailsBeforeTheRun) {
  const std::string sc = Write("cross_leaves.yaml", kCrossLeaves);
  const std::string bad = dir_ + "no_such_dir/trace.csv";
  const test::CliRun r = test::RunRocesimCli(
      "run '" + sc + "' -o '" + dir_ + "out' --threads 2 --window-trace '" + bad + "'",
      dir_ + "bad.log");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("rocesim: error:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(bad), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("windows;"), std::string::npos) << "the run went ahead:\n" << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "out/summary.json"));
}

}  // namespace
}  // namespace rocesim
