// One run of a scenario into a results directory, for callers other than the
// command line (the Python module, python/rocesim/_core.cpp): serial, or
// partitioned over threads on this machine (sim/partitioned_run.h, results
// identical), with monitors writing into `dir` and the results written there
// by stats/results_writer.h, exactly as `rocesim run` writes them. No
// progress line, no warnings printed, no staging directory: the caller owns
// `dir` (an existing, empty directory).
#pragma once

#include <cstdint>
#include <string>

#include "scenario/scenario.h"
#include "sim/simulation.h"

namespace rocesim {

// Throws what building or partitioning throws (BuildError, PartitionError),
// and InvariantError, after writing the results, when an invariant broke.
// `threads` (0: auto, AutoThreadsFor) and `partitions` (0: by the fabric's
// size) as `rocesim run --threads` and `--partitions`.
RunStats RunToDirectory(const Scenario& scenario, uint32_t threads, const std::string& dir,
                        const Simulation::ProgressFn& progress = nullptr, uint32_t partitions = 0);

}  // namespace rocesim
