// The scenario as resolved: every setting the scenario file format has,
// written back as YAML with its value after presets, defaults and --set
// (results/resolved.yaml). Reading it back gives the same Scenario, so an
// archived run reproduces after a default changes. The same walk lists the
// keys for `rocesim params` (scenario/scenario_params.h): one walk over the
// Scenario struct, so neither can drift from the defaults it holds.
#pragma once

#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace rocesim {

// One setting as the walk met it: "switch.ecn.kmin", "5KB", "size".
// `written` is false for a setting left out of the YAML because its value
// means "not set" (a rate of 0: auto or none), which `value` then explains.
struct ResolvedSetting {
  std::string key;  // dotted path; list entries as "traffic[]"
  std::string value;
  std::string unit;
  bool written = true;
};

// The YAML text of `sc` resolved; `settings`, when given, receives every
// setting in the order written.
std::string ResolvedScenarioYaml(const Scenario& sc,
                                 std::vector<ResolvedSetting>* settings = nullptr);

}  // namespace rocesim
