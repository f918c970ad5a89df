// Every example scenario (examples/*.yaml, examples/*/*.yaml; sweep files
// aside) run as a user would run it in parallel gives the serial run's
// results byte for byte (issue #15: "everything works partitioned"): with
// `--threads 2` (a partition per thread), with `--threads 2 --partitions 3`
// (threads sharing partitions, cut unevenly) and with `mpirun -n 2` (ranks
// exchanging through MPI). Every file of the results directory is compared,
// pcap captures included, summary.json but for its `run` object. A new
// example is covered once the test binary is rebuilt (the list is read when
// ctest discovers the tests).
//
// ROCESIM_EXAMPLES_SET, when set, is added to every run's arguments: the
// sanitizer pass (scripts/sanitize.sh) cuts the runs short with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli_test_support.h"

namespace rocesim {
namespace test_examples_partitioned {
namespace {

namespace fs = std::filesystem;

// A sweep file names a base scenario and a grid; it is not run by `run`.
bool IsSweepFile(const fs::path& file) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("base:", 0) == 0 || line.rfind("grid:", 0) == 0) return true;
  return false;
}

// The example scenarios, as paths relative to examples/, in name order.
std::vector<std::string> ExampleScenarios() {
  const fs::path root = fs::path(ROCESIM_SOURCE_DIR) / "examples";
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".yaml" && !IsSweepFile(e.path()))
      out.push_back(fs::relative(e.path(), root).string());
  std::sort(out.begin(), out.end());
  return out;
}

// A gtest name from an example's path: letters and digits only.
std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - 5);  // no ".yaml"
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class EveryExample : public test::CliTest, public ::testing::WithParamInterface<std::string> {
 protected:
  std::string Extra(const std::string& args) const {
    const char* set = std::getenv("ROCESIM_EXAMPLES_SET");
    return args + (set ? std::string(" ") + set : "");
  }
};

TEST_P(EveryExample, PartitionedRunsGiveTheSerialResults) {
  const std::string scenario = test::ExamplePath(GetParam());
  RunInto("serial", scenario, Extra(""));
  RunInto("threads", scenario, Extra("--threads 2"));
  EXPECT_GE(ExpectSameResults("serial", "threads").size(), 3u);
  RunInto("shared", scenario, Extra("--threads 2 --partitions 3"));
  ExpectSameResults("serial", "shared");
  if (!test::HaveMpirun()) return;
  RunInto("ranks", scenario, Extra(""), test::MpirunPrefix(2));
  ExpectSameResults("serial", "ranks");
}

INSTANTIATE_TEST_SUITE_P(Examples, EveryExample, ::testing::ValuesIn(ExampleScenarios()), TestName);

}  // namespace
}  // namespace test_examples_partitioned
}  // namespace rocesim
