// The rocesim command line. Subcommands (one file each, apps/commands.h):
//   run SCENARIO.yaml [-o DIR] [--force] [--seed N] [--set key.path=value ...] [-q] [--threads T]
//       (also under mpirun: one run partitioned over the ranks)
//   report DIR / compare DIR...   (python/rocesim_report.py)
//   import-hpcc CONFIG -o SCENARIO.yaml
//   sweep SWEEP.yaml [-j N] [-o DIR] [--mpi] [--threads T] [--dry-run]   (docs/sweep.md)
// Exit status: 0 success, 2 bad scenario, input file or usage (or a results
// directory that is taken: core/results_dir.h), 130 / 143 a run stopped by
// Ctrl-C / SIGTERM (partial results), 1 any other failure.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "core/build_info.h"
#include "core/dir_lock.h"
#include "scenario/hpcc_config_import.h"
#include "scenario/scenario_reader.h"
#include "sim/partition.h"
#include "sim/simulation.h"
#include "topo/hpcc_topology_file.h"

int main(int argc, char** argv) {
  using namespace rocesim;
  // The Python commands take their own arguments (and --help); dispatch them
  // before CLI11 parses anything. They are still declared below so that
  // `rocesim --help` lists them.
  if (argc >= 2 && (std::strcmp(argv[1], "report") == 0 || std::strcmp(argv[1], "compare") == 0 ||
                    std::strcmp(argv[1], "validate") == 0))
    return RunPythonTool(argc, argv);

  CLI::App app{"rocesim: a packet-level simulator of RoCEv2 / RDMA datacenter fabrics"};
  app.set_version_flag("--version",
                       fmt::format("rocesim {} (commit {})", RocesimVersion(), GitCommit()));
  app.require_subcommand(1);

  RunOptions run_opts;
  CLI::App* run = app.add_subcommand("run", "Run a scenario and write a results directory");
  run->add_option("scenario", run_opts.file, "Scenario YAML file")->required();
  run->add_option("-o,--output", run_opts.out_dir,
                  "Results directory (default: output.dir or results/NAME)");
  run->add_flag("--force", run_opts.force,
                "Replace the results directory if it exists (only once the new results are "
                "complete)");
  run->add_option("--seed", run_opts.seed, "Override the scenario's seed");
  run->add_option("--set", run_opts.sets, "Override a field: key.path=value (repeatable)")
      ->take_last()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  run->add_flag("-q,--quiet", run_opts.quiet, "Print nothing but errors");
  run->add_option("-t,--threads", run_opts.threads,
                  "Partition the fabric over T threads (per MPI rank under mpirun); the "
                  "results are identical to a serial run's")
      ->check(CLI::Range(1, 1024));
  // Handled by RunPythonTool before parsing; `rocesim report --help` shows their options.
  app.add_subcommand("report",
                     "Plot a results directory: PNGs and an HTML page in DIR/report/ "
                     "(python3 + matplotlib)")
      ->allow_extras();
  app.add_subcommand("compare",
                     "Compare results directories (or a sweep): table, compare.csv, "
                     "compare.html, overlaid plots")
      ->allow_extras();
  app.add_subcommand("validate",
                     "Reproduce published results (DCQCN, TIMELY, DCTCP and HPCC papers, dynamic "
                     "threshold, ECMP, PFC failures) and write a page comparing them "
                     "(validation/validate.py; --quick, --out DIR)")
      ->allow_extras();
  std::string config, import_out;
  CLI::App* import = app.add_subcommand(
      "import-hpcc", "Turn an HPCC ns-3 simulator config file into a rocesim scenario");
  import->add_option("config", config, "HPCC simulator config (KEY value lines)")->required();
  import->add_option("-o,--output", import_out, "Scenario file to write")->required();
  SweepOptions sweep_opts;
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run a scenario over a grid of parameter values in parallel; writes sweep.csv");
  sweep->add_option("sweep", sweep_opts.file, "Sweep YAML file (docs/sweep.md)")->required();
  sweep
      ->add_option("-j,--jobs", sweep_opts.jobs,
                   "Worker processes at once (default: cores; 1 per rank with --mpi)")
      ->check(CLI::PositiveNumber);
  sweep->add_option("-o,--output", sweep_opts.out_dir,
                    "Sweep directory (default: output: or results/SWEEP_NAME)");
  sweep->add_flag("--mpi", sweep_opts.mpi,
                  "Spread the points over MPI ranks (mpirun -n R rocesim sweep ... --mpi)");
  sweep
      ->add_option("-t,--threads", sweep_opts.threads,
                   "Run each point partitioned over T threads (rocesim run --threads)")
      ->check(CLI::Range(1, 1024));
  sweep->add_flag("--dry-run", sweep_opts.dry_run, "Validate and list the points; run nothing");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (run->parsed()) return RunCommand(run_opts);
    if (import->parsed()) return ImportHpccCommand(config, import_out);
    if (sweep->parsed()) return SweepCommand(sweep_opts);
  } catch (const ScenarioError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const TopologyFileError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const HpccImportError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const BuildError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const PartitionError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const ResultsDirError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
