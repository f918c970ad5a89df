// The window trace's file (sim/window_trace.h) and the checked writer under
// it (core/checked_write.h): the rows come out the same however often they
// are flushed, and a file that cannot be written fails naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/checked_write.h"
#include "sim/window_trace.h"

namespace rocesim {
namespace {

// Three windows of two partitions.
WindowTrace ThreeWindows() {
  WindowTrace t;
  t.partitions = 2;
  t.starts = {1'000'000, 2'000'000, 7'000'000};
  t.events = {10, 0, 3, 4, 0, 25};
  t.nanoseconds = {1500, 20, 250, 300, 0, 1'234'567'891};
  return t;
}

constexpr const char* kThreeWindowsCsv =
    "window,start_ps,partition,events,seconds\n"
    "0,1000000,0,10,0.000001500\n"
    "0,1000000,1,0,0.000000020\n"
    "1,2000000,0,3,0.000000250\n"
    "1,2000000,1,4,0.000000300\n"
    "2,7000000,0,0,0.000000000\n"
    "2,7000000,1,25,1.234567891\n";

class WindowTraceFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("rocesim_window_trace_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  static std::string Read(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::filesystem::path dir_;
};

TEST_F(WindowTraceFileTest, ARowPerWindowAndPartitionWhateverTheFlushSize) {
  const WindowTrace t = ThreeWindows();
  WriteWindowTraceCsv(t, (dir_ / "whole.csv").string());
  EXPECT_EQ(Read(dir_ / "whole.csv"), kThreeWindowsCsv);
  // Flushed after every window: the same bytes.
  WriteWindowTraceCsv(t, (dir_ / "flushed.csv").string(), 1);
  EXPECT_EQ(Read(dir_ / "flushed.csv"), kThreeWindowsCsv);
}

TEST_F(WindowTraceFileTest, AnEmptyTraceIsItsHeader) {
  WindowTrace t;
  t.partitions = 4;
  WriteWindowTraceCsv(t, (dir_ / "empty.csv").string(), 1);
  EXPECT_EQ(Read(dir_ / "empty.csv"), "window,start_ps,partition,events,seconds\n");
}

TEST_F(WindowTraceFileTest, AFileThatCannotBeOpenedFailsNamingIt) {
  const std::string bad = (dir_ / "no_such_dir" / "trace.csv").string();
  try {
    WriteWindowTraceCsv(ThreeWindows(), bad);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write " + bad + ": "), std::string::npos)
        << e.what();
  }
}

TEST_F(WindowTraceFileTest, AFullDiskFailsNamingTheFile) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  try {
    WriteWindowTraceCsv(ThreeWindows(), "/dev/full", 1);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write /dev/full: "), std::string::npos)
        << e.what();
  }
}

TEST_F(WindowTraceFileTest, ACheckedWriterReplacesTheFileWithWhatItAppends) {
  const std::string path = (dir_ / "pieces.txt").string();
  WriteFileChecked(path, "an older, longer text");
  CheckedFileWriter out(path);
  out.Append("one,");
  out.Append("");
  out.Append("two\n");
  out.Close();
  EXPECT_EQ(Read(path), "one,two\n");
}

}  // namespace
}  // namespace rocesim
