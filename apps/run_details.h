// What `rocesim run` says beside its results: warnings for likely mistakes,
// the `--check` paragraph, and the `-v` details (apps/run_command.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace rocesim {

class Simulation;

// One "rocesim: warning: ..." line each on stderr.
void PrintWarnings(const std::vector<std::string>& warnings);

// `rocesim run X.yaml --check`: builds the fabric and its flows (and, for
// threads > 1 or partitions > 1, the partitioning a run on one machine would
// use; partitions 0: the size rule) without simulating, and prints one
// paragraph: hosts, switches, links, flows, partitions. Throws what building
// throws (BuildError, PartitionError: exit 2).
void CheckScenario(const Scenario& scenario, uint32_t threads, uint32_t partitions);

// `-v`: the fabric's size and each traffic entry's expansion (flows, bytes),
// on stderr.
void PrintRunDetails(const Simulation& sim);

}  // namespace rocesim
