// FirstResultsDifference (stats/results_diff.h): what "the partitioned run's
// results are the serial run's" means to the CLI tests and the partitioned
// fuzz target, checked on hand-made results directories.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "stats/results_diff.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_results_diff {
namespace {

namespace fs = std::filesystem;

class ResultsDiff : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test::TestTempDir();
    for (const char* run : {"a", "b"}) {
      Write(run, "flows.csv", "flow_id,fct_ps\n0,1200\n1,3400\n");
      Write(run, "summary.json",
            std::string(R"({"flows": {"completed": 2}, "run": {"wall_seconds": )") +
                (run[0] == 'a' ? "1.5" : "0.8") + R"(, "threads": )" + (run[0] == 'a' ? "1" : "2") +
                "}}");
      Write(run, "pcap/port-3.pcap", std::string("\xd4\xc3\xb2\xa1\x00\x01", 6));
    }
  }
  void TearDown() override { fs::remove_all(root_); }

  void Write(const std::string& run, const std::string& file, const std::string& text) {
    const fs::path path = root_ / run / file;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }
  std::optional<std::string> Diff() const {
    return FirstResultsDifference((root_ / "a").string(), (root_ / "b").string());
  }

  fs::path root_;
};

TEST_F(ResultsDiff, TheSameResultsRunDifferentlyAreTheSame) {
  // Only summary.json's run object differs (wall time, threads).
  EXPECT_EQ(Diff(), std::nullopt);
  EXPECT_EQ(ResultFiles((root_ / "a").string()),
            (std::vector<std::string>{"flows.csv", "pcap/port-3.pcap", "summary.json"}));
}

TEST_F(ResultsDiff, OneByteOfATableDiffers) {
  Write("b", "flows.csv", "flow_id,fct_ps\n0,1200\n1,3401\n");
  ASSERT_TRUE(Diff().has_value());
  EXPECT_NE(Diff()->find("flows.csv differs"), std::string::npos) << *Diff();
}

TEST_F(ResultsDiff, ACaptureInASubdirectoryDiffers) {
  Write("a", "pcap/port-3.pcap", std::string("\xd4\xc3\xb2\xa1\x00\x02", 6));
  ASSERT_TRUE(Diff().has_value());
  EXPECT_NE(Diff()->find("pcap/port-3.pcap differs"), std::string::npos) << *Diff();
}

TEST_F(ResultsDiff, TheSummaryDiffersOutsideItsRunObject) {
  Write("b", "summary.json", R"({"flows": {"completed": 1}, "run": {"wall_seconds": 1.5}})");
  ASSERT_TRUE(Diff().has_value());
  EXPECT_NE(Diff()->find("summary.json differs"), std::string::npos) << *Diff();
}

TEST_F(ResultsDiff, ASummaryCutShortIsNotTheWholeOne) {
  Write("b", "summary.json", R"({"flows": {"completed": 2}, "run)");
  ASSERT_TRUE(Diff().has_value());
  EXPECT_NE(Diff()->find("summary.json differs"), std::string::npos) << *Diff();
}

TEST_F(ResultsDiff, AFileOnlyOneRunWroteIsNamed) {
  Write("b", "queues.csv", "time_ps,port,bytes\n");
  ASSERT_TRUE(Diff().has_value());
  EXPECT_NE(Diff()->find("only " + (root_ / "b").string() + " holds queues.csv"), std::string::npos)
      << *Diff();
  fs::remove(root_ / "b" / "queues.csv");
  fs::remove(root_ / "b" / "flows.csv");
  ASSERT_TRUE(Diff().has_value());
  EXPECT_NE(Diff()->find("only " + (root_ / "a").string() + " holds flows.csv"), std::string::npos)
      << *Diff();
}

}  // namespace
}  // namespace test_results_diff
}  // namespace rocesim
