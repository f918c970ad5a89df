// `rocesim sweep SWEEP.yaml [-j N] [-o DIR] [--mpi] [--dry-run]` (docs/sweep.md):
// reads the sweep file, expands and validates every point, runs the unfinished
// ones as worker processes (src/sweep/sweep_runner.h) and writes DIR/sweep.csv.
// With --mpi (under mpirun) rank r runs the points with index % ranks == r,
// each with -j local workers (default 1), and rank 0 gathers every rank's rows
// (MPI_Gatherv of a small JSON per rank) and writes sweep.csv; only this file
// touches MPI, and only when CMake found one (ROCESIM_HAVE_MPI).
// Exit status: 0 every point ok, 1 some point failed (after the others ran),
// 2 a bad sweep file or point, or a sweep directory that another sweep is
// writing (the lock `.DIR.lock` beside it, core/dir_lock.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "apps/commands.h"
#include "apps/error_report.h"
#include "apps/mpi_rank_exchange.h"
#include "apps/rank_agreement.h"
#include "core/dir_lock.h"
#include "core/usable_cores.h"
#include "sim/mpi_launch_env.h"
#include "sim/rank_group.h"
#include "sweep/sweep_results.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_spec.h"

#ifdef ROCESIM_HAVE_MPI
#include <mpi.h>
#endif

namespace rocesim {
namespace {

using sweep::PointOutcome;
using sweep::PointStatus;

// The MPI world when --mpi is given, else a single process.
class SweepRanks final : public RankGroup {
 public:
  explicit SweepRanks(bool mpi) {
    if (!mpi) return;
#ifdef ROCESIM_HAVE_MPI
    PreferSharedMemoryPml();
    MPI_Init(nullptr, nullptr);
    active_ = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
#else
    throw sweep::SweepError(
        "--mpi: this rocesim was built without MPI support; install an MPI implementation "
        "(Debian: apt-get install libopenmpi-dev openmpi-bin, see scripts/install-deps.sh), "
        "re-run cmake and rebuild");
#endif
  }
  ~SweepRanks() override {
#ifdef ROCESIM_HAVE_MPI
    if (active_) MPI_Finalize();
#endif
  }
  SweepRanks(const SweepRanks&) = delete;
  SweepRanks& operator=(const SweepRanks&) = delete;

  int rank() const {
    return rank_;
  }
  int size() const {
    return size_;
  }
  // The ranks to meet after each setup step (apps/rank_agreement.h): null
  // without --mpi or alone.
  RankGroup* group() {
    return active_ && size_ > 1 ? this : nullptr;
  }
  uint32_t Ranks() const override {
    return static_cast<uint32_t>(size_);
  }
  uint32_t Rank() const override {
    return static_cast<uint32_t>(rank_);
  }
  std::vector<uint64_t> GatherAll(std::span<const uint64_t> mine) override {
    std::vector<uint64_t> all(mine.size() * static_cast<size_t>(size_));
#ifdef ROCESIM_HAVE_MPI
    MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_UINT64_T, all.data(),
                  static_cast<int>(mine.size()), MPI_UINT64_T, MPI_COMM_WORLD);
#else
    std::copy(mine.begin(), mine.end(), all.begin());
#endif
    return all;
  }

  // Copies every other rank's outcomes for its points into rank 0's `outcomes`.
  void Gather(std::vector<PointOutcome>& outcomes) const {
#ifdef ROCESIM_HAVE_MPI
    if (!active_ || size_ == 1) return;
    const std::string mine =
        sweep::OutcomesToJson(outcomes, sweep::OwnedPoints(outcomes.size(), rank_, size_)).dump();
    const int len = static_cast<int>(mine.size());
    std::vector<int> lens(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (rank_ == 0) {
      int total = 0;
      for (int r = 0; r < size_; ++r) {
        displs[static_cast<size_t>(r)] = total;
        total += lens[static_cast<size_t>(r)];
      }
      all.resize(static_cast<size_t>(total));
    }
    MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    if (rank_ != 0) return;
    for (int r = 1; r < size_; ++r) {
      const size_t at = static_cast<size_t>(r);
      sweep::MergeOutcomes(nlohmann::json::parse(all.substr(static_cast<size_t>(displs[at]),
                                                            static_cast<size_t>(lens[at]))),
                           outcomes);
    }
#else
    (void)outcomes;
#endif
  }

  // Rank 0's `value` on every rank.
  int Broadcast(int value) const {
#ifdef ROCESIM_HAVE_MPI
    if (active_) MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return value;
  }

  // Ends every rank: one rank failing mid-sweep must not leave others waiting.
  void Abort(int code) const {
#ifdef ROCESIM_HAVE_MPI
    if (active_ && size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    (void)code;
  }

 private:
  bool active_ = false;
  int rank_ = 0;
  int size_ = 1;
};

// What the ranks of a sweep must agree on once they read its file: the
// points and their settings.
std::vector<AgreedValue> PointValues(const sweep::SweepSpec& spec,
                                     const std::vector<sweep::SweepPoint>& points) {
  Digest digest;
  for (const sweep::SweepPoint& pt : points) {
    digest.Add(pt.name);
    for (const std::string& set : sweep::OverrideArgs(spec, pt)) digest.Add(set);
  }
  return {{"point count", points.size(), true},
          {"points (their names and settings)", digest.value(), false}};
}

constexpr std::string_view kSameSweepEverywhere =
    "every rank must read the same sweep file, with the same options";

int Sweep(const SweepOptions& o, SweepRanks& ranks) {
  if (!o.mpi && LauncherRanks() > 1)
    throw sweep::SweepError(
        fmt::format("running under an MPI launcher with {} ranks but without --mpi: every rank "
                    "would run every point; add --mpi",
                    LauncherRanks()));
  // Each rank reads the sweep on its own; the ranks meet after each step of
  // the setup (apps/rank_agreement.h), so that an error is said once and a
  // rank that failed alone does not leave the others waiting.
  OnEveryRank(
      ranks.group(), [&] { return ranks.group() ? BuildValues() : std::vector<AgreedValue>{}; },
      kSameBuildEverywhere);
  std::optional<sweep::SweepSpec> read;
  std::vector<sweep::SweepPoint> points;
  OnEveryRank(
      ranks.group(),
      [&] {
        read.emplace(sweep::LoadSweep(o.file));
        points = sweep::ExpandPoints(*read);
        sweep::ValidatePoints(*read, points);
        return ranks.group() ? PointValues(*read, points) : std::vector<AgreedValue>{};
      },
      kSameSweepEverywhere);
  const sweep::SweepSpec& spec = *read;

  std::string out = o.out_dir;
  if (out.empty()) out = spec.output;
  if (out.empty()) out = "results/" + std::filesystem::path(o.file).stem().string();

  if (o.dry_run) {
    if (ranks.rank() != 0) return 0;
    fmt::print("{} points from {} (base {}) -> {}/\n", points.size(), spec.file, spec.base, out);
    for (const sweep::SweepPoint& pt : points) {
      std::string sets;
      for (const std::string& s : sweep::OverrideArgs(spec, pt)) sets += " --set " + s;
      fmt::print("  {}:{}\n", pt.name, sets);
    }
    return 0;
  }

  // One sweep at a time in a directory (its points would race for the same
  // names); rank 0 takes it for every rank.
  std::unique_ptr<DirLock> lock;
  OnEveryRank(
      ranks.group(),
      [&] {
        if (ranks.rank() != 0) return std::vector<AgreedValue>{};
        if (std::filesystem::exists(std::filesystem::path(out) / "summary.json"))
          throw ResultsDirError(
              fmt::format("{} holds a run's results (summary.json), not a sweep; choose another "
                          "sweep directory with -o",
                          out));
        lock = std::make_unique<DirLock>(out);
        return std::vector<AgreedValue>{};
      },
      kSameSweepEverywhere);

  sweep::RunnerOptions ro;
  ro.exe = sweep::SelfExecutable();
  ro.out_dir = out;
  // --threads auto (0): a point may take every usable core (it takes its
  // share of them, ROCESIM_SWEEP_WORKERS, and what its fabric can be cut for).
  const int per_point = o.threads == 0 ? static_cast<int>(AutoThreadsHere()) : o.threads;
  const int default_jobs = o.mpi ? 1 : sweep::DefaultWorkers(UsableCores(), per_point);
  ro.jobs = o.jobs.value_or(default_jobs);
  ro.machine_workers = ro.jobs * static_cast<int>(o.mpi ? LocalRanksHere() : 1);
  // Under --threads auto each point's run takes its share: nothing to warn of.
  if (const uint32_t cores = UsableCores();
      !o.mpi && o.threads > 1 && static_cast<uint32_t>(ro.jobs * o.threads) > cores)
    fmt::print(stderr,
               "sweep: note: {} points at once, each on {} threads, on {} core{}: a point's "
               "partitions wait for each other at every window, so this sweep runs slower than "
               "with -j {} (the default for --threads {} here)\n",
               ro.jobs, o.threads, cores, cores == 1 ? "" : "s", default_jobs, o.threads);
  ro.threads = o.threads;
  ro.partitions = static_cast<int>(o.partitions);
  ro.rank = ranks.rank();
  ro.ranks = ranks.size();
  if (ranks.size() > 1) ro.log_prefix = fmt::format("rank {}/{}: ", ranks.rank(), ranks.size());
  std::vector<PointOutcome> outcomes = sweep::RunPoints(spec, points, ro);
  ranks.Gather(outcomes);

  int failed = 0;
  if (ranks.rank() == 0) {
    const std::string csv_path = (std::filesystem::path(out) / "sweep.csv").string();
    sweep::WriteFileAtomically(csv_path, sweep::SweepCsv(spec, points, outcomes));
    int ok = 0;
    std::string names;
    for (const PointOutcome& oc : outcomes) {
      if (oc.status == PointStatus::kOk) ++ok;
    }
    for (const sweep::SweepPoint& pt : points) {
      if (outcomes[pt.index].status == PointStatus::kOk) continue;
      ++failed;
      names += (names.empty() ? "" : ", ") + pt.name;
    }
    fmt::print(stderr, "sweep: {}/{} points ok{}; wrote {}\n", ok, points.size(),
               failed == 0 ? "" : fmt::format(", {} failed ({})", failed, names), csv_path);
  }
  return ranks.Broadcast(failed) == 0 ? 0 : 1;
}

}  // namespace

int SweepCommand(const SweepOptions& command_line) {
  SweepOptions options = command_line;
  SweepRanks ranks(options.mpi);  // throws SweepError without MPI support (exit 2)
  try {
    return Sweep(options, ranks);
  } catch (const ScenarioError&) {
    throw;  // a bad sweep file, without --mpi (main: exit 2)
  } catch (const ResultsDirError&) {
    throw;  // the same
  } catch (const std::exception& e) {
    // Mid-sweep: one rank failing must not leave the others waiting.
    if (ranks.group()) {
      fmt::print(stderr, "rocesim: error: rank {}: {}\n", ranks.rank(), ErrorText(e));
      std::fflush(stderr);
      ranks.Abort(1);
    }
    throw;
  }
}

}  // namespace rocesim
