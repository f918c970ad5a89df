// Runs sweep points as worker processes: each point is `rocesim run BASE -o
// DIR/NAME --force --set k=v ... -q` (the rocesim binary itself, via
// posix_spawn), at most `jobs` at a time, its stdout and stderr in
// DIR/NAME.log (moved to NAME/run.log when the point succeeds and said
// something, else removed). The run writes NAME atomically
// (core/results_dir.h), so NAME always holds one run's complete results; a
// killed sweep never leaves a point that looks finished. A point is finished
// when DIR/NAME has a summary.json that is not partial and a sweep_point.json
// (written last, by the sweep) recording the same overrides; a rerun skips
// finished points (resume). No MPI here: with several ranks, each
// process runs the points whose index % ranks == rank (apps/sweep_command.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sweep/sweep_results.h"
#include "sweep/sweep_spec.h"

namespace rocesim::sweep {

struct RunnerOptions {
  std::string exe;      // the rocesim binary (SelfExecutable())
  std::string out_dir;  // the sweep's results directory
  int jobs = 1;         // worker processes at once
  int threads = 1;      // each point's run partitioned over this many threads (--threads; 0: auto)
  int partitions = 0;   // ... into this many partitions (--partitions; 0: by the fabric's size)
  int rank = 0;         // this process runs points with index % ranks == rank
  int ranks = 1;
  std::string log_prefix;  // put before every progress line ("rank 1: " under MPI)
  // Points running at once on this machine, these workers and (--mpi) the
  // other ranks' there: each point's run is told (ROCESIM_SWEEP_WORKERS,
  // sim/mpi_launch_env.h), so that its threads know they share the cores.
  int machine_workers = 1;
};

// Workers when -j is not given: one per `threads_per_point` of the `cores`
// this process may use (core/usable_cores.h), at least one, so that workers
// times threads do not outnumber the cores (each point's partitions wait
// for each other at every window: sharing a core slows them all).
int DefaultWorkers(uint32_t cores, int threads_per_point);

// The path of the running executable (/proc/self/exe).
std::string SelfExecutable();

// The points this process runs (index % ranks == rank), in index order.
std::vector<size_t> OwnedPoints(size_t count, int rank, int ranks);

// The point's outcome if DIR/NAME holds its finished results (kOk with its
// SummaryRow), else kNotRun. Sets *stale when results exist but were made with
// other overrides (the sweep file changed); such a point is run again.
PointOutcome ReadFinishedPoint(const std::string& out_dir, const SweepSpec& spec,
                               const SweepPoint& point, bool* stale = nullptr);

// Writes DIR/NAME/sweep_point.json, the record that makes a point's results
// finished (ReadFinishedPoint): last, once DIR/NAME holds them.
void RecordFinishedPoint(const std::string& out_dir, const SweepSpec& spec,
                         const SweepPoint& point);

// Runs this process's unfinished points, printing progress to stderr. Returns an
// outcome per point (indexed like `points`); points of other ranks are kNotRun.
std::vector<PointOutcome> RunPoints(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                    const RunnerOptions& options);

// Writes `text` to `path` through a temporary file and a rename.
void WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace rocesim::sweep
