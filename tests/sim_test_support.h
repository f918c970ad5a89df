// Helpers shared by the scenario tests: run a scenario in-process and keep
// the simulation, its run statistics and its summary.json; check the
// conservation invariant; locate the shipped examples.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"

namespace rocesim::test {

struct SimRun {
  std::unique_ptr<Simulation> sim;
  RunStats stats;
  nlohmann::json summary;
  const Fabric& fabric() const { return sim->fabric(); }
};

inline SimRun RunScenario(const Scenario& sc) {
  SimRun r;
  r.sim = std::make_unique<Simulation>(sc);
  r.stats = r.sim->Run();
  r.summary = BuildSummary(*r.sim, r.stats);
  return r;
}

inline SimRun RunYaml(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return RunScenario(ParseScenarioText(yaml, "test.yaml", "", sets, std::nullopt));
}

// The ScenarioError message for `yaml` (read as `file` in `base_dir`), or ""
// and a test failure if it parses.
inline std::string ScenarioErrorOf(const std::string& yaml, const std::string& file = "x.yaml",
                                   const std::string& base_dir = "") {
  try {
    ParseScenarioText(yaml, file, base_dir, {}, std::nullopt);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return "";
}

inline std::string ExamplePath(const std::string& name) {
  return std::string(ROCESIM_SOURCE_DIR) + "/examples/" + name;
}

// A directory (created, ending in '/') that only the running test writes:
// ctest runs tests as parallel processes and two builds' suites may share
// /tmp, so a fixed name like "$TMPDIR/imported.yaml" lets one test read
// another's file. Named after the test and the process id.
inline std::string TestTempDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string("rocesim_") + info->test_suite_name() + "_" + info->name() + "_" +
                     std::to_string(::getpid());
  std::replace(name.begin(), name.end(), '/', '_');  // parameterised tests' names
  const std::string dir = ::testing::TempDir() + name + "/";
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `$ROCESIM_BIN args` (the CLI ctest points at) with its output
// discarded: its exit status, -1 when ROCESIM_BIN is unset, -2 if it died.
inline int RunCli(const std::string& args) {
  const char* bin = std::getenv("ROCESIM_BIN");
  if (bin == nullptr) return -1;
  const int status = std::system((std::string(bin) + " " + args + " >/dev/null 2>&1").c_str());
  if (status == -1 || !WIFEXITED(status)) return -2;
  return WEXITSTATUS(status);
}

// injected + replicated (copies switches made by flooding) = delivered +
// dropped + in network, for frames and payload bytes.
inline void ExpectConserved(const nlohmann::json& s) {
  const nlohmann::json& c = s["conservation"];
  EXPECT_EQ(c["injected_frames"].get<uint64_t>() + c["replicated_frames"].get<uint64_t>(),
            c["delivered_frames"].get<uint64_t>() + c["dropped_frames"].get<uint64_t>() +
                c["in_network_frames"].get<uint64_t>())
      << c.dump(2);
  EXPECT_EQ(
      c["injected_payload_bytes"].get<uint64_t>() + c["replicated_payload_bytes"].get<uint64_t>(),
      c["delivered_payload_bytes"].get<uint64_t>() + c["dropped_payload_bytes"].get<uint64_t>() +
          c["in_network_payload_bytes"].get<uint64_t>())
      << c.dump(2);
}

}  // namespace rocesim::test
