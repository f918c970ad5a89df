// Tests of where rocesim looks for the files it ships (core/data_path.h):
// the lookup order and the first directory that holds the file winning.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/data_path.h"
#include "workload/flow_size_cdf.h"

namespace rocesim {
namespace test_data_path {
namespace {

namespace fs = std::filesystem;

TEST(DataPath, CandidatesInLookupOrder) {
  EXPECT_EQ(DataDirCandidates("data/cdf", "cdf", "/opt/rs/bin/rocesim", "/env", "/src"),
            (std::vector<std::string>{"/env/cdf", "/opt/rs/share/rocesim/cdf", "/opt/rs/data/cdf",
                                      "/src/data/cdf"}));
  // No override, no known binary: only the compiled-in source tree.
  EXPECT_EQ(DataDirCandidates("python", "python", "", "", "/src"),
            (std::vector<std::string>{"/src/python"}));
}

TEST(DataPath, FirstDirectoryHoldingTheFileWins) {
  const fs::path root = fs::path(::testing::TempDir()) / "rocesim_data_path_test";
  fs::remove_all(root);
  // An install layout: bin/rocesim and share/rocesim/cdf; the source path
  // compiled in no longer exists (a moved tree).
  fs::create_directories(root / "bin");
  fs::create_directories(root / "share/rocesim/cdf");
  std::ofstream(root / "share/rocesim/cdf/websearch.txt") << "1 0\n";
  const std::string exe = (root / "bin/rocesim").string();
  const auto candidates = DataDirCandidates("data/cdf", "cdf", exe, "", (root / "gone").string());
  EXPECT_EQ(FindDataFile(candidates, "websearch.txt"),
            (root / "share/rocesim/cdf/websearch.txt").string());
  // A file found nowhere: the last candidate's path, for the error message.
  EXPECT_EQ(FindDataFile(candidates, "nope.txt"), (root / "gone/data/cdf/nope.txt").string());
  // The override comes first when it holds the file.
  fs::create_directories(root / "env/cdf");
  std::ofstream(root / "env/cdf/websearch.txt") << "1 0\n";
  EXPECT_EQ(FindDataFile(DataDirCandidates("data/cdf", "cdf", exe, (root / "env").string(),
                                           (root / "gone").string()),
                         "websearch.txt"),
            (root / "env/cdf/websearch.txt").string());
  fs::remove_all(root);
}

TEST(DataPath, BuiltinCdfFoundFromTheTestBinary) {
  EXPECT_FALSE(ExecutablePath().empty());
  EXPECT_TRUE(fs::is_regular_file(BuiltinCdfPath("websearch"))) << BuiltinCdfPath("websearch");
}

}  // namespace
}  // namespace test_data_path
}  // namespace rocesim
