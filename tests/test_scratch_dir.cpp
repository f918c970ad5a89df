// A rank's scratch directory (core/scratch_dir.h) and the merge of the
// partitions' time series (stats/monitor.h), the two ends of the files a
// rank other than 0 sends to rank 0 after an MPI run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/scratch_dir.h"
#include "stats/monitor.h"

namespace rocesim {
namespace test_scratch_dir {
namespace {

namespace fs = std::filesystem;

// Sets TMPDIR for one test, restoring it after.
class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = ::testing::TempDir() + "rocesim_scratch_" + std::to_string(::getpid());
    fs::remove_all(base_);
    fs::create_directories(base_);
    if (const char* t = std::getenv("TMPDIR")) saved_ = t;
    ::setenv("TMPDIR", base_.c_str(), 1);
  }
  void TearDown() override {
    if (saved_.empty())
      ::unsetenv("TMPDIR");
    else
      ::setenv("TMPDIR", saved_.c_str(), 1);
    fs::remove_all(base_);
  }
  std::string base_, saved_;
};

TEST_F(ScratchDirTest, IsAFreshDirectoryUnderTmpdirRemovedWithItsFiles) {
  std::string path;
  {
    ScratchDir a("rocesim-rank1-");
    ScratchDir b("rocesim-rank1-");
    path = a.path();
    EXPECT_EQ(fs::path(path).parent_path(), fs::path(base_));
    EXPECT_EQ(fs::path(path).filename().string().rfind("rocesim-rank1-", 0), 0u) << path;
    EXPECT_NE(a.path(), b.path());
    ASSERT_TRUE(fs::is_directory(path));
    fs::create_directories(path + "/.partition-1");
    std::ofstream(path + "/.partition-1/queues.csv") << "time_ps\n";
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(base_));
}

TEST_F(ScratchDirTest, RemoveNowThenNothingMore) {
  ScratchDir a("x-");
  const std::string path = a.path();
  a.Remove();
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(a.path().empty());
  a.Remove();  // and the destructor: no-ops
}

TEST_F(ScratchDirTest, ATmpdirThatIsNotThereIsAnErrorNamingIt) {
  ::setenv("TMPDIR", (base_ + "/missing").c_str(), 1);
  try {
    ScratchDir a("rocesim-rank1-");
    FAIL() << "created " << a.path();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(base_ + "/missing/rocesim-rank1-XXXXXX"),
              std::string::npos)
        << e.what();
  }
}

// A partition whose directory never reached the merge (a rank's files lost)
// is an error, not a merged file without its rows.
TEST_F(ScratchDirTest, MergingWithoutAPartitionsDirectoryIsAnError) {
  const std::string p0 = base_ + "/.partition-0", p1 = base_ + "/.partition-1";
  fs::create_directories(p0);
  std::ofstream(p0 + "/rates.csv") << "time_ps,flow,rate_bps,window_bytes,snd_una,snd_nxt\n";
  try {
    MergeMonitorFiles({p0, p1}, base_);
    FAIL() << "merged without " << p1;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(p1), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(base_ + "/rates.csv"));
}

}  // namespace
}  // namespace test_scratch_dir
}  // namespace rocesim
