// `rocesim params` (ns-3's PrintAttributes for scenario files): every key the
// scenario format has, with its default and unit. The defaults come from
// reading small scenarios of every topology, switch, traffic and fault type
// through the scenario reader and writing them back with the resolved.yaml
// walk (resolved_scenario.h), so the list holds exactly the values the
// reader fills in when a key is absent.
#pragma once

#include <string>
#include <vector>

#include "scenario/resolved_scenario.h"

namespace rocesim {

// Each key once, in the order of the resolved scenario: "traffic[].size"
// for a key of every traffic entry; value "(required)" for a key its entry
// or section must give.
std::vector<ResolvedSetting> ScenarioParams();

// The table `rocesim params` prints: key, default, unit.
std::string FormatScenarioParams(const std::vector<ResolvedSetting>& params);

}  // namespace rocesim
