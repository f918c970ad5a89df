// `rocesim params`: every scenario key with its default and unit.
#include <fmt/format.h>

#include "apps/commands.h"
#include "scenario/scenario_params.h"

namespace rocesim {

int ParamsCommand() {
  fmt::print("{}", FormatScenarioParams(ScenarioParams()));
  fmt::print(
      "\nKeys under traffic[] and faults[] belong to each list entry; which apply depends on "
      "its type (docs/scenario.md). A run's resolved.yaml holds every value as the run used "
      "it.\n");
  return 0;
}

}  // namespace rocesim
