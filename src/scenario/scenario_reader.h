// Reads a scenario YAML file into a validated Scenario (scenario.h): applies
// `--set key.path=value` overrides and a seed override to the YAML tree, then checks
// every key, type and range, reporting the first problem with file:line:column, the
// full field path, what was expected and what was found.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace rocesim {

// Any problem with a scenario: unreadable file, YAML syntax, unknown key, bad
// value, malformed --set. what() is a complete, user-facing message.
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads `path` and parses it with ParseScenarioText; relative paths inside the
// scenario (topology.file) resolve against the scenario file's directory.
Scenario LoadScenario(const std::string& path, const std::vector<std::string>& set_overrides,
                      std::optional<uint64_t> seed_override);

// Parses scenario text. `display_name` names the text in error messages and becomes
// Scenario::source_file; `base_dir` resolves relative paths ("" = current directory).
// `set_overrides` are "a.b.c=value" strings whose value is parsed as YAML; a numeric
// component indexes a list ("traffic.0.size=2MB"). They apply in order, then
// `seed_override` replaces `seed`.
Scenario ParseScenarioText(const std::string& yaml_text, const std::string& display_name,
                           const std::string& base_dir,
                           const std::vector<std::string>& set_overrides,
                           std::optional<uint64_t> seed_override);

// Every key the reader would accept in the maps it reads while parsing
// `yaml_text` ("switch.ecn.kmin"; list entries as "traffic[].size"), for the
// test that `rocesim params` lists them all.
std::set<std::string> AcceptedKeys(const std::string& yaml_text);

// Number of hosts the topology has (host ids are 0 .. count-1). For kFile this is
// TopologyConfig::file_hosts, which the reader fills from the topology file.
int ExpectedHostCount(const TopologyConfig& topology);

}  // namespace rocesim
