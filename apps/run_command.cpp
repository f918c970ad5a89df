// `rocesim run`: load the scenario, take the results directory, build and
// run it with a progress line on a terminal, write the results (into a
// staging directory moved into place at the end), print a short summary.
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "apps/error_report.h"
#include "apps/mpi_rank_exchange.h"
#include "apps/rank_agreement.h"
#include "apps/run_details.h"
#include "apps/setup_line.h"
#include "apps/stop_signals.h"
#include "core/checked_write.h"
#include "core/results_dir.h"
#include "core/scratch_dir.h"
#include "core/usable_cores.h"
#include "scenario/scenario_reader.h"
#include "scenario/scenario_warnings.h"
#include "sim/launcher_terminal.h"
#include "sim/mpi_launch_env.h"
#include "sim/partitioned_run.h"
#include "sim/run_progress.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"

namespace rocesim {
namespace {

// A slowdown statistic, or n/a when no flow completed (summary.json: null).
std::string Stat(const nlohmann::json& v) {
  return v.is_number() ? fmt::format("{:.3f}", v.get<double>()) : "n/a";
}

// DCQCN that takes congestion from ECN-echo ACKs (the `hpcc-sim` preset,
// dcqcn.signal: ack_ecn) sends no CNPs: "cnps sent 0" is then no sign that
// nothing was signalled.
bool SignalsOnAcks(const Scenario& sc) {
  if (sc.host.dcqcn.mode != DcqcnMode::kAckEcnEcho) return false;
  if (sc.host.cc == CcKind::kDcqcn) return true;
  for (const TrafficSpec& t : sc.traffic) {
    if (t.cc == CcKind::kDcqcn) return true;
    for (const FlowSpec& f : t.flows)
      if (f.cc == CcKind::kDcqcn) return true;
  }
  return false;
}

void PrintSummary(const nlohmann::json& s, const std::string& dir, const Scenario& sc) {
  fmt::print("rocesim: {} (seed {})\n", s["name"].get<std::string>(), s["seed"].get<uint64_t>());
  const auto& sd = s["slowdown"];
  if (s["flows"]["completed"].get<uint64_t>() == 0)
    fmt::print("  flows     {}/{} completed   slowdown n/a (no completed flow)\n",
               s["flows"]["completed"].get<uint64_t>(), s["flows"]["total"].get<uint64_t>());
  else
    fmt::print("  flows     {}/{} completed   slowdown p50 {}  p95 {}  p99 {}\n",
               s["flows"]["completed"].get<uint64_t>(), s["flows"]["total"].get<uint64_t>(),
               Stat(sd["p50"]), Stat(sd["p95"]), Stat(sd["p99"]));
  // Drops by cause: only the causes that happened (summary.json has them all).
  std::string causes;
  for (const auto& [cause, n] : s["drops"].items())
    if (cause != "total" && n.get<uint64_t>() > 0)
      causes += fmt::format("{}{} {}", causes.empty() ? "" : ", ", cause, n.get<uint64_t>());
  fmt::print("  drops     {}{}\n", s["drops"]["total"].get<uint64_t>(),
             causes.empty() ? "" : " (" + causes + ")");
  fmt::print("  pfc       pause frames sent {}, received {}\n",
             s["pfc"]["pause_frames_sent"].get<uint64_t>(),
             s["pfc"]["pause_frames_received"].get<uint64_t>());
  fmt::print("  ecn       marks {}, cnps sent {}{}\n", s["ecn_marks"].get<uint64_t>(),
             s["cnps_sent"].get<uint64_t>(),
             SignalsOnAcks(sc) ? " (DCQCN signal ack_ecn: congestion is signalled on ACKs, "
                                 "not CNPs)"
                               : "");
  if (s.contains("watchdog") && s.contains("deadlocks")) {
    const uint64_t triggers = s["watchdog"]["triggers"], restores = s["watchdog"]["restores"];
    if (triggers + restores + s["deadlocks"].size() > 0)
      fmt::print("  ops       watchdog triggers {}, restores {}; deadlocks {}\n", triggers,
                 restores, s["deadlocks"].size());
  }
  const auto& r = s["run"];
  fmt::print("  run       {:.3f} ms simulated, {} events, {:.2f} s wall, {:.2f} M events/s\n",
             s["sim_seconds"].get<double>() * 1e3, s["events"].get<uint64_t>(),
             r["wall_seconds"].get<double>(), r["events_per_second"].get<double>() / 1e6);
  fmt::print("  results   {}/\n", dir);
}

// The end-of-run warnings: those of the summary the scenario did not give
// at the start.
void PrintRunWarnings(const nlohmann::json& summary, size_t already_printed) {
  const auto& w = summary["warnings"];
  for (size_t i = already_printed; i < w.size(); ++i)
    fmt::print(stderr, "rocesim: warning: {}\n", w[i].get<std::string>());
}

// After a run stopped by Ctrl-C or SIGTERM: say so, even to a quiet run.
void SayPartial(const RunStats& stats, const Scenario& scenario, const std::string& dir) {
  fmt::print(stderr,
             "rocesim: interrupted at {:.3f} ms of {:.3f} ms simulated: the results in {}/ are "
             "partial (summary.json \"partial\": true)\n",
             ToSeconds(stats.end_time) * 1e3, ToSeconds(scenario.duration) * 1e3, dir);
}

// A broken invariant (stats/invariants.h) is a bug in rocesim, not in the
// scenario: say which, where to look, and exit 3.
int SayInvariantBroken(const InvariantBreak& b, const std::string& dir) {
  fmt::print(stderr,
             "rocesim: error: invariant {} broken at the end of the run: {}\n"
             "  (a bug in rocesim: the results in {}/ record it under summary.json "
             "\"invariants\"; a build with -DROCESIM_CHECKS=ON names the first event that "
             "broke it)\n",
             b.name, b.detail, dir);
  return 3;
}

// Writes the results into the staging directory, moves them into place,
// reports; the exit status.
int Finish(const Simulation& sim, const RunStats& stats, ResultsDir& results,
           const std::string& dir, bool quiet, size_t warnings_printed) {
  const nlohmann::json summary = WriteResults(sim, stats, results.staging());
  results.Commit();
  PrintRunWarnings(summary, warnings_printed);
  if (!quiet) PrintSummary(summary, dir, sim.scenario());
  if (stats.invariant_break) return SayInvariantBroken(*stats.invariant_break, dir);
  if (!stats.interrupted) return 0;
  SayPartial(stats, sim.scenario(), dir);
  return StoppedExitStatus();
}

// Runs the partitions. When a partition of an MPI job's run fails, every
// rank leaves the run at the same point (PartitionedRun::FailedTogether):
// the rank that failed says why, once, and every rank ends with its status,
// unwinding (rank 0 removes the results' staging directory, the others
// their scratch directories). Past the run's last meeting of the ranks
// (rank 0 merging what they sent) nobody waits for anybody: the error ends
// this rank alone, through the usual error report. Any other failure (the
// exchange itself) says why and ends the whole job: the other ranks would
// wait for this rank's next window forever (and MPI_Finalize, on the way
// out, for them). The scratch directory goes first, as MPI_Abort ends the
// process unwound.
RunStats RunOrEndJob(PartitionedRun& run, const Simulation::ProgressFn& update, RankExchange* ranks,
                     std::optional<ScratchDir>& scratch) {
  if (ranks == nullptr) return run.Run(update);
  try {
    return run.Run(update);
  } catch (const std::exception& e) {
    if (run.PastLastMeeting()) throw;
    if (run.FailedTogether()) {
      StopSignalsAfterFailure();
      EndJobTogether(*ranks, dynamic_cast<const FailedOnAnotherRank*>(&e)
                                 ? nullptr
                                 : std::current_exception());
    }
    fmt::print(stderr, "rocesim: error: rank {}: {}\n", ranks->Rank(), ErrorText(e));
    std::fflush(stderr);
    if (scratch) scratch->Remove();
    ranks->AbortJob(1);
    throw;  // not reached: AbortJob ends the process
  }
}

// --window-trace's file: made empty before the run, so that a path that
// cannot be written fails at once rather than after the run, and removed
// again unless the run wrote the trace into it (a run that fails leaves no
// empty trace to be mistaken for one, as it leaves no results directory).
class WindowTraceFile {
 public:
  void Create(const std::string& path) {
    WriteFileChecked(path, "");
    path_ = path;
  }
  void Write(const WindowTrace& trace) {
    WriteWindowTraceCsv(trace, path_);
    path_.clear();
  }
  ~WindowTraceFile() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove(path_, ignored);
  }

 private:
  std::string path_;  // created and not yet written
};

// Why `--threads auto` runs fewer threads than this process has cores.
std::string AutoThreadsNote(const AutoThreadCount& fit, uint32_t ranks) {
  const std::string whole =
      "links shorter than the window, links a fault takes down and a GPU server's hosts are never "
      "cut";
  if (fit.separable_parts <= 1)
    return fmt::format("rocesim: note: --threads auto: this fabric cannot be cut ({}){}", whole,
                       ranks == 1 ? ": a serial run" : "");
  return fmt::format(
      "rocesim: note: --threads auto: {} thread{}{} rather than {}: the fabric can be cut into at "
      "most {} parts ({})",
      fit.threads, fit.threads == 1 ? "" : "s", ranks > 1 ? " per rank" : "", fit.share,
      fit.separable_parts, whole);
}

}  // namespace

int RunCommand(const RunOptions& options) {
  RunOptions o = options;
  // --threads auto: one thread per usable core, until the scenario says how
  // many the fabric takes (below).
  const bool auto_threads = o.threads == 0;
  if (auto_threads) o.threads = AutoThreadsHere();
  // Under mpirun with more than one rank, every rank runs its share of the
  // partitions and rank 0 writes the results. The ranks set the run up each
  // on its own and meet after every step (apps/rank_agreement.h): an error
  // is said once, by the rank that met it, and ends every rank.
  std::unique_ptr<RankExchange> ranks = MakeMpiRankExchange(o.threads);
  const bool writer = !ranks || ranks->Rank() == 0;
  const bool quiet = o.quiet || !writer;
  std::optional<Scenario> loaded;
  std::vector<std::string> warnings;
  OnEveryRank(
      ranks.get(), [&] { return ranks ? BuildValues() : std::vector<AgreedValue>{}; },
      kSameBuildEverywhere);
  if (ranks) StopSignalsWatchRanks(ranks->OtherRanksHere());  // collective
  OnEveryRank(ranks.get(), [&] {
    loaded.emplace(LoadScenario(o.file, o.sets, o.seed));
    warnings = ScenarioWarnings(*loaded);
    return ranks ? ScenarioValues(*loaded) : std::vector<AgreedValue>{};
  });
  const Scenario& scenario = *loaded;
  std::shared_ptr<const FabricLayout> layout;  // laid out for --threads auto, then cut
  if (auto_threads && o.threads > 1) {
    const uint32_t rank_count = ranks ? ranks->Ranks() : 1;
    AutoThreadCount fit;
    OnEveryRank(ranks.get(), [&] {
      fit = AutoThreadsFor(scenario, rank_count, o.partitions);
      return std::vector<AgreedValue>{};
    });
    // The fabric, not the cores or --partitions, held the count down: say why.
    const uint32_t asked = o.partitions == 0 ? o.threads : std::min(o.threads, o.partitions);
    if (!quiet && writer && fit.separable_parts > 0 && fit.separable_parts / rank_count < asked)
      fmt::print(stderr, "{}\n", AutoThreadsNote(fit, rank_count));
    o.threads = fit.threads;
    layout = std::move(fit.layout);
  }
  if (o.check) {
    if (writer) PrintWarnings(warnings);  // even with -q, as a run prints them
    SetupLine setup(!quiet, StderrReachesTerminal(LauncherRanks() > 0));
    OnEveryRank(ranks.get(), [&] {
      CheckScenario(scenario, AgreeOnCut(ranks.get(), o.threads, o.partitions), writer, layout);
      return std::vector<AgreedValue>{};
    });
    return 0;
  }
  std::string out_dir = o.out_dir;
  if (out_dir.empty())
    out_dir = scenario.output.dir.empty() ? "results/" + scenario.name : scenario.output.dir;
  // From here a Ctrl-C ends the run at a window boundary with partial results
  // (before the run starts: at its first window).
  InstallStopSignals(writer);
  // Take the results directory now, before building and simulating
  // (core/results_dir.h): rank 0 takes it for the job. The other ranks
  // write their partitions' files into a scratch directory of their own,
  // sent to rank 0 after the run (apps/mpi_file_transfer.h), so the
  // machines need not share a filesystem.
  std::unique_ptr<ResultsDir> results;
  std::optional<ScratchDir> scratch;
  const bool serial = o.threads <= 1 && o.partitions <= 1 && !ranks;
  WindowTraceFile trace_file;
  OnEveryRank(ranks.get(), [&] {
    if (writer) {
      results = std::make_unique<ResultsDir>(out_dir, o.force);
      if (!o.window_trace.empty() && !serial) trace_file.Create(o.window_trace);
    } else {
      scratch.emplace(fmt::format("rocesim-rank{}-", ranks->Rank()));
    }
    return std::vector<AgreedValue>{};
  });
  const std::string files_dir = writer ? results->staging() : scratch->path();

  // Warnings flag likely mistakes: printed even with -q (on rank 0 only).
  if (writer) PrintWarnings(warnings);
  // Under mpirun: whether mpirun's stderr is a terminal (sim/launcher_terminal.h).
  const bool terminal = StderrReachesTerminal(LauncherRanks() > 0);
  ProgressLine progress(scenario.duration, !quiet && terminal);
  auto update = [&](const RunProgress& p) { progress.Update(p); };
  auto setup = std::make_unique<SetupLine>(!quiet, terminal);
  if (serial) {
    if (!o.window_trace.empty())
      fmt::print(stderr,
                 "rocesim: warning: --window-trace: a serial run has no windows to trace; "
                 "nothing written to {}\n",
                 o.window_trace);
    Simulation sim(scenario, std::move(layout));
    setup.reset();
    if (o.verbose && !quiet) {
      PrintRunDetails(sim);
      fmt::print(stderr, "rocesim: 1 partition (serial run)\n");
    }
    sim.EnableMonitors(files_dir);
    StopSignalsAtWindows();
    const RunStats stats = sim.Run(update);
    progress.Clear();
    return Finish(sim, stats, *results, out_dir, quiet, warnings.size());
  }
  if (const uint32_t cores = UsableCores(); !quiet && o.threads > cores) {
    fmt::print(stderr,
               "rocesim: note: {} threads on {} core{} (this process's affinity mask{}): the "
               "partitions wait for each other at every window, so a run with more threads than "
               "cores is slower, not faster\n",
               o.threads, cores, cores == 1 ? "" : "s",
               ranks
                   ? "; under mpirun give each rank its cores: --bind-to none or --map-by slot:PE=T"
                   : "");
  } else if (const uint32_t share = AutoThreadsHere(); !quiet && writer && o.threads > share) {
    // Unbound ranks (mpirun --bind-to none, or more ranks than cores) each
    // have every core in their masks but share them with the machine's other
    // ranks; all see the same share, so rank 0 speaks for them.
    fmt::print(stderr,
               "rocesim: note: {} threads on {} core{}, each rank's share of this machine's {} "
               "(its ranks all run on every core): the partitions wait for each other at every "
               "window, so a run with more threads than cores is slower, not faster; --threads "
               "auto takes the share\n",
               o.threads, share, share == 1 ? "" : "s", cores);
  }
  std::unique_ptr<PartitionedRun> built;
  OnEveryRank(ranks.get(), [&] {
    built = std::make_unique<PartitionedRun>(scenario, o.threads, ranks.get(), o.partitions,
                                             std::move(layout));
    built->EnableMonitors(files_dir);
    if (!o.window_trace.empty()) built->EnableWindowTrace();
    return ranks ? RunSetupValues(*built) : std::vector<AgreedValue>{};
  });
  PartitionedRun& run = *built;
  setup.reset();
  if (o.verbose && !quiet) PrintRunDetails(run.result());
  if (!quiet)
    fmt::print(stderr, "rocesim: {} ({} rank{} x {} thread{}{})\n",
               run.partitioning().Describe(run.result().quantum()), ranks ? ranks->Ranks() : 1,
               ranks && ranks->Ranks() > 1 ? "s" : "", o.threads, o.threads > 1 ? "s" : "",
               run.local_partitions() > o.threads
                   ? fmt::format(" sharing {} partitions{}", run.local_partitions(),
                                 ranks && ranks->Ranks() > 1 ? " per rank" : "")
                   : "");
  if (const std::string note = WindowNote(run.partitioning(), run.result().quantum(), scenario);
      !quiet && !note.empty())
    fmt::print(stderr, "rocesim: note: {}\n", note);
  StopSignalsAtWindows();
  const RunStats stats = RunOrEndJob(run, update, ranks.get(), scratch);
  progress.Clear();
  if (!o.quiet)
    fmt::print(stderr, "rocesim: {}{}{}\n", ranks ? fmt::format("rank {}: ", ranks->Rank()) : "",
               run.Balance(), ranks ? "; " + ranks->Describe() : "");
  if (writer && !o.window_trace.empty()) trace_file.Write(run.window_trace());
  if (!writer) {
    if (stats.invariant_break) return SayInvariantBroken(*stats.invariant_break, out_dir);
    return stats.interrupted ? StoppedExitStatus() : 0;
  }
  return Finish(run.result(), stats, *results, out_dir, quiet, warnings.size());
}

}  // namespace rocesim
