// The subcommands of the rocesim command line, one file each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scenario/aicb_import.h"

namespace rocesim {

// `rocesim run SCENARIO [-o DIR] [--force] [--seed N] [--set k=v ...] [-q] [--threads T]
// [--partitions P]`, also as `mpirun -n R rocesim run ...` (one partitioned run over R ranks). Exit
// status 130 (143) when Ctrl-C (SIGTERM) stopped it: partial results.
struct RunOptions {
  std::string file;
  std::string out_dir;
  bool force = false;  // replace an existing results directory
  std::optional<uint64_t> seed;
  std::vector<std::string> sets;
  bool quiet = false;
  bool verbose = false;     // -v: fabric size, traffic expansion, partitioning
  bool check = false;       // --check: validate and build, simulate nothing
  uint32_t threads = 1;     // threads on this machine (sim/partitioned_run.h)
  uint32_t partitions = 0;  // partitions on this machine (>= `threads`; 0: by the fabric's size)
  // --window-trace: a partitioned run's windows, as CSV (sim/window_trace.h).
  std::string window_trace;
};
int RunCommand(const RunOptions& options);
// `rocesim report|compare ...`: execs python/rocesim_report.py (argv[1] is the
// command); `rocesim validate ...`: validation/validate.py with --bin this binary.
int RunPythonTool(int argc, char** argv);
// `rocesim import-hpcc CONFIG -o SCENARIO.yaml`.
int ImportHpccCommand(const std::string& config, const std::string& out);
// `rocesim import-aicb WORKLOAD.txt -o SCENARIO.yaml [--gpus N]
// [--gpus-per-server G] [--iterations I]`.
int ImportAicbCommand(const std::string& workload, const std::string& out,
                      const AicbImportOptions& options);

// `rocesim sweep SWEEP.yaml [-j N] [-o DIR] [--mpi] [--dry-run]` (apps/sweep_command.cpp).
struct SweepOptions {
  std::string file;
  std::string out_dir;      // "" = the sweep's output: or results/<file stem>
  std::optional<int> jobs;  // worker processes; default cores (1 per rank with --mpi)
  int threads = 1;          // each point partitioned over this many threads (0: auto)
  uint32_t partitions = 0;  // ... into this many partitions (0: by the fabric's size)
  bool mpi = false;
  bool dry_run = false;  // validate and list the points, run nothing
};
int SweepCommand(const SweepOptions& options);

// `rocesim params`: every scenario key with its default and unit
// (scenario/scenario_params.h).
int ParamsCommand();

}  // namespace rocesim
