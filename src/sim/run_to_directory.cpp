#include "sim/run_to_directory.h"

#include <algorithm>

#include "sim/partitioned_run.h"
#include "stats/results_writer.h"

namespace rocesim {

namespace {

// As `rocesim run`'s exit status 3: the results are written, and the caller
// learns of the broken invariant (stats/invariants.h) as an error.
const RunStats& ThrowIfBroken(const RunStats& stats) {
  if (stats.invariant_break)
    throw InvariantError("invariant " + stats.invariant_break->name +
                         " broken at the end of the run: " + stats.invariant_break->detail);
  return stats;
}

}  // namespace

RunStats RunToDirectory(const Scenario& scenario, uint32_t threads, const std::string& dir,
                        const Simulation::ProgressFn& progress, uint32_t partitions) {
  std::shared_ptr<const FabricLayout> layout;
  if (threads == 0) {
    AutoThreadCount fit = AutoThreadsFor(scenario, 1, partitions);
    threads = fit.threads;
    layout = std::move(fit.layout);
  }
  // As apps/run_command.cpp: one partition is a serial run, more a partitioned one.
  if (std::max(threads, partitions) <= 1) {
    Simulation sim(scenario, std::move(layout));
    sim.EnableMonitors(dir);
    const RunStats stats = sim.Run(progress);
    WriteResults(sim, stats, dir);
    return ThrowIfBroken(stats);
  }
  PartitionedRun run(scenario, threads, nullptr, partitions, std::move(layout));
  run.EnableMonitors(dir);
  const RunStats stats = run.Run(progress);
  WriteResults(run.result(), stats, dir);
  return ThrowIfBroken(stats);
}

}  // namespace rocesim
