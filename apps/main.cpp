// The rocesim command line. Subcommands (one file each, apps/commands.h):
//   run SCENARIO.yaml [-o DIR] [--force] [--seed N] [--set key.path=value ...] [-q | -v]
//       [--threads T|auto] [--partitions P] [--window-trace FILE] [--check]
//       (--check: validate and build only)
//       (also under mpirun: one run partitioned over the ranks)
//   report DIR / compare DIR...   (python/rocesim_report.py)
//   import-hpcc CONFIG -o SCENARIO.yaml
//   import-aicb WORKLOAD.txt -o SCENARIO.yaml
//   params   (every scenario key, its default and unit)
//   sweep SWEEP.yaml [-j N] [-o DIR] [--mpi] [--threads T|auto] [--partitions P] [--dry-run]
//       (docs/sweep.md)
// Exit status: 0 success, 2 bad scenario, input file or usage (or a results
// directory that is taken: core/results_dir.h), 130 / 143 a run stopped by
// Ctrl-C / SIGTERM (partial results), 1 any other failure.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "apps/commands.h"
#include "apps/count_options.h"
#include "apps/error_report.h"
#include "apps/huge_page_heap.h"
#include "core/build_info.h"
#include "scenario/yaml_fields.h"

namespace {
// The most partitions per rank that --partitions takes: far past what any
// fabric gains from (sim/partition.h's default is at most 4 per thread), so
// it only stops a typo.
constexpr unsigned kMostPartitions = 4096;
}  // namespace

int main(int argc, char** argv) {
  using namespace rocesim;
  // The Python commands take their own arguments (and --help); dispatch them
  // before CLI11 parses anything. They are still declared below so that
  // `rocesim --help` lists them.
  if (argc >= 2 && (std::strcmp(argv[1], "report") == 0 || std::strcmp(argv[1], "compare") == 0 ||
                    std::strcmp(argv[1], "validate") == 0))
    return RunPythonTool(argc, argv);
  // A simulation restarts itself once with its heap on huge pages.
  if (argc >= 2 && (std::strcmp(argv[1], "run") == 0 || std::strcmp(argv[1], "sweep") == 0))
    ExecWithHugePageHeap(argv);

  // An unknown command: name it, with the closest one, rather than CLI11's
  // "arguments were not expected".
  const std::vector<std::string_view> commands = {"run",   "report", "compare",     "validate",
                                                  "sweep", "params", "import-hpcc", "import-aicb"};
  if (argc >= 2 && argv[1][0] != '-' &&
      std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
    const std::string_view best = scenario_detail::ClosestMatch(argv[1], commands);
    fmt::print(stderr, "rocesim: error: unknown command '{}'{}\n", argv[1],
               best.empty() ? fmt::format("; commands are: {}", fmt::join(commands, ", "))
                            : fmt::format("; did you mean '{}'?", best));
    return 2;
  }

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
  std::string seed_text;  // parsed below: CLI11 would wrap "-1" to 2^64 - 1
  run->add_option("--seed", seed_text, "Override the scenario's seed (0 to 2^64 - 1)");
  run->add_option("--set", run_opts.sets, "Override a field: key.path=value (repeatable)")
      ->take_last()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  CLI::Option* quiet =
      run->add_flag("-q,--quiet", run_opts.quiet, "Print nothing but errors and warnings");
  run->add_flag("-v,--verbose", run_opts.verbose,
                "Print more: the fabric's size, each traffic entry's flows and bytes, the "
                "partitioning")
      ->excludes(quiet);
  run->add_flag("--check", run_opts.check,
                "Validate the scenario and build its fabric and flows, simulate nothing: prints "
                "hosts, switches, links, flows and partitions (exit 0, or 2 on an error)");
  run->add_option("-t,--threads", run_opts.threads,
                  "Partition the fabric over T threads (per MPI rank under mpirun); the "
                  "results are identical to a serial run's. auto (or 0): one per core this "
                  "process may use (its affinity mask; ranks of mpirun --bind-to none share "
                  "their machine's), no more than --partitions or than the fabric can be cut "
                  "into (one: a serial run)")
      ->transform(ThreadCount());
  run->add_option("-p,--partitions", run_opts.partitions,
                  "Cut the fabric into P partitions (per MPI rank), P >= T, that the T threads "
                  "share: each window a thread runs its own, then any not yet begun; smaller "
                  "partitions fit the caches better on large fabrics (default: 1, 2 or 4 per "
                  "thread, the fewest that leave at most 1536 links to a partition)")
      ->check(CountIn("a partition count", 1, kMostPartitions));
  run->add_option("--window-trace", run_opts.window_trace,
                  "A partitioned run: write FILE, a CSV row per window and partition (window, "
                  "start_ps, partition, events, seconds) to see where the partitions' work was "
                  "uneven (bench/window_model.py replays it); written by rank 0 under mpirun")
      ->type_name("FILE");
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
  std::string aicb_file, aicb_out;
  AicbImportOptions aicb_opts;
  CLI::App* import_aicb = app.add_subcommand(
      "import-aicb",
      "Turn a SimAI workload file (as AICB generates them) into a rocesim scenario on a "
      "rail-optimized fabric");
  import_aicb->add_option("workload", aicb_file, "SimAI workload file (workload.txt)")->required();
  import_aicb->add_option("-o,--output", aicb_out, "Scenario file to write")->required();
  import_aicb
      ->add_option("--gpus", aicb_opts.gpus, "GPUs the job runs on (default: the file's all_gpus)")
      ->check(CountIn("a GPU count", 1, 1u << 20));
  import_aicb
      ->add_option("--gpus-per-server", aicb_opts.gpus_per_server,
                   "GPUs (and RDMA NICs) per server (default 8)")
      ->check(CountIn("a GPU count", 1, 1024));
  import_aicb->add_option("--iterations", aicb_opts.iterations, "Training iterations (default 1)")
      ->check(CountIn("an iteration count", 1, 1000000));
  CLI::App* params = app.add_subcommand(
      "params", "List every scenario key with its default and unit (docs/scenario.md)");
  SweepOptions sweep_opts;
  CLI::App* sweep = app.add_subcommand(
      "sweep", "Run a scenario over a grid of parameter values in parallel; writes sweep.csv");
  sweep->add_option("sweep", sweep_opts.file, "Sweep YAML file (docs/sweep.md)")->required();
  sweep
      ->add_option("-j,--jobs", sweep_opts.jobs,
                   "Worker processes at once (default: usable cores / --threads; 1 per rank with "
                   "--mpi)")
      ->check(CountIn("a job count", 1, 4096));
  sweep->add_option("-o,--output", sweep_opts.out_dir,
                    "Sweep directory (default: output: or results/SWEEP_NAME)");
  sweep->add_flag("--mpi", sweep_opts.mpi,
                  "Spread the points over MPI ranks (mpirun -n R rocesim sweep ... --mpi)");
  sweep
      ->add_option("-t,--threads", sweep_opts.threads,
                   "Run each point partitioned over T threads (rocesim run --threads; auto: "
                   "every usable core, one point at a time unless -j says otherwise)")
      ->transform(ThreadCount());
  sweep
      ->add_option("-p,--partitions", sweep_opts.partitions,
                   "Cut each point's fabric into P partitions (rocesim run --partitions)")
      ->check(CountIn("a partition count", 1, kMostPartitions));
  sweep->add_flag("--dry-run", sweep_opts.dry_run, "Validate and list the points; run nothing");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  // Each thread runs at least one partition; left at 0, the count follows
  // the fabric's size (sim/partition.h, AutoPartitionsPerThread).
  for (auto [opt, threads, partitions] :
       {std::tuple{"run", run_opts.threads, &run_opts.partitions},
        std::tuple{"sweep", static_cast<uint32_t>(sweep_opts.threads), &sweep_opts.partitions}}) {
    if (*partitions != 0 && *partitions < threads) {
      fmt::print(stderr,
                 "rocesim: error: {}: --partitions {} is fewer than --threads {}: every thread "
                 "runs at least one partition\n",
                 opt, *partitions, threads);
      return 2;
    }
  }
  if (run->count("--seed") > 0) {
    // Digits only, within uint64: a sign or an overflow is a mistake, not a seed.
    uint64_t seed = 0;
    const char* end = seed_text.data() + seed_text.size();
    const auto [ptr, ec] = std::from_chars(seed_text.data(), end, seed);
    if (seed_text.empty() || ec != std::errc() || ptr != end) {
      fmt::print(stderr, "rocesim: error: --seed: expected an integer from 0 to {}, got '{}'\n",
                 std::numeric_limits<uint64_t>::max(), seed_text);
      return 2;
    }
    run_opts.seed = seed;
  }
  try {
    if (params->parsed()) return ParamsCommand();
    if (run->parsed()) return RunCommand(run_opts);
    if (import->parsed()) return ImportHpccCommand(config, import_out);
    if (import_aicb->parsed()) return ImportAicbCommand(aicb_file, aicb_out, aicb_opts);
    if (sweep->parsed()) return SweepCommand(sweep_opts);
  } catch (...) {
    return ReportError(std::current_exception());
  }
  return 0;
}
