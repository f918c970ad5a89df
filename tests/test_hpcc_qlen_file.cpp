// qlen.txt as the HPCC simulator writes it (stats/hpcc_qlen_monitor.h):
// a "time: <ns>" line before each dump's port lines, ports numbered from 1
// (ns-3's device 0 is the loopback); the same bytes when the file is longer
// than the writer's chunk; a file that cannot be written fails naming it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/checked_write.h"
#include "stats/hpcc_qlen_monitor.h"

namespace rocesim {
namespace {

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class HpccQlenFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("rocesim_qlen_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(HpccQlenFile, EachDumpIsATimeLineThenItsPortsNumberedFromOne) {
  const std::vector<QlenDumpLine> lines = {
      {100'000'000, 40, 0, {7, 0, 1}},
      {100'000'000, 40, 3, {2}},
      {200'000'000, 41, 1, {0, 5}},
  };
  const std::string path = dir_ / "qlen.txt";
  WriteHpccQlen(lines, path);
  EXPECT_EQ(ReadAll(path),
            "time: 100000\n"
            "40 1 7 0 1\n"
            "40 4 2\n"
            "time: 200000\n"
            "41 2 0 5\n");
}

TEST_F(HpccQlenFile, AFileLongerThanOneChunkHoldsEveryLine) {
  // 60,000 ports' lines of 5 counts: about 1.4 MB, more than a chunk.
  std::vector<QlenDumpLine> lines;
  std::string expected = "time: 1\n";
  for (uint32_t i = 0; i < 60'000; ++i) {
    lines.push_back({1000, 1000 + i, 2, {i, 1, 2, 3, 4}});
    expected += std::to_string(1000 + i) + " 3 " + std::to_string(i) + " 1 2 3 4\n";
  }
  ASSERT_GT(expected.size(), CheckedFileWriter::kChunkBytes);
  const std::string path = dir_ / "qlen.txt";
  WriteHpccQlen(lines, path);
  EXPECT_EQ(ReadAll(path), expected);
}

TEST_F(HpccQlenFile, AFileThatCannotBeWrittenFailsNamingIt) {
  const std::string missing = dir_ / "no_such_dir" / "qlen.txt";
  try {
    WriteHpccQlen({{0, 1, 0, {1}}}, missing);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  try {
    WriteHpccQlen({{0, 1, 0, {1}}}, "/dev/full");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rocesim
