#include "sim/run_to_directory.h"

#include "sim/partitioned_run.h"
#include "stats/results_writer.h"

namespace rocesim {

RunStats RunToDirectory(const Scenario& scenario, uint32_t threads, const std::string& dir,
                        const Simulation::ProgressFn& progress) {
  // As apps/run_command.cpp: one thread is a serial run, more a partitioned one.
  if (threads <= 1) {
    Simulation sim(scenario);
    sim.EnableMonitors(dir);
    const RunStats stats = sim.Run(progress);
    WriteResults(sim, stats, dir);
    return stats;
  }
  PartitionedRun run(scenario, threads);
  run.EnableMonitors(dir);
  const RunStats stats = run.Run(progress);
  WriteResults(run.result(), stats, dir);
  return stats;
}

}  // namespace rocesim
