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

#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "apps/mpi_rank_exchange.h"
#include "core/dir_lock.h"
#include "core/usable_cores.h"
#include "sim/mpi_launch_env.h"
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
class Ranks {
 public:
  explicit Ranks(bool mpi) {
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
  ~Ranks() {
#ifdef ROCESIM_HAVE_MPI
    if (active_) MPI_Finalize();
#endif
  }
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;

  int rank() const {
    return rank_;
  }
  int size() const {
    return size_;
  }
  bool active() const {
    return active_;
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

int Sweep(const SweepOptions& o, const Ranks& ranks) {
  if (!o.mpi && LauncherRanks() > 1)
    throw sweep::SweepError(
        fmt::format("running under an MPI launcher with {} ranks but without --mpi: every rank "
                    "would run every point; add --mpi",
                    LauncherRanks()));
  const sweep::SweepSpec spec = sweep::LoadSweep(o.file);
  const std::vector<sweep::SweepPoint> points = sweep::ExpandPoints(spec);
  sweep::ValidatePoints(spec, points);

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
  // names); rank 0 takes it and every rank learns whether it could.
  std::unique_ptr<DirLock> lock;
  std::exception_ptr refused;
  if (ranks.rank() == 0) {
    try {
      if (std::filesystem::exists(std::filesystem::path(out) / "summary.json"))
        throw ResultsDirError(
            fmt::format("{} holds a run's results (summary.json), not a sweep; choose another "
                        "sweep directory with -o",
                        out));
      lock = std::make_unique<DirLock>(out);
    } catch (...) {
      refused = std::current_exception();
    }
  }
  if (ranks.Broadcast(refused ? 1 : 0) != 0 && ranks.rank() != 0) return 2;
  if (refused) std::rethrow_exception(refused);

  sweep::RunnerOptions ro;
  ro.exe = sweep::SelfExecutable();
  ro.out_dir = out;
  ro.jobs = o.jobs.value_or(o.mpi ? 1 : sweep::DefaultWorkers(UsableCores(), o.threads));
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
  if (options.threads == 0)
    options.threads = static_cast<int>(AutoThreadsHere());  // --threads auto
  try {
    const Ranks ranks(options.mpi);
    try {
      return Sweep(options, ranks);
    } catch (const ScenarioError& e) {
      // Every rank reads the same files and fails alike; one message is enough.
      if (ranks.rank() == 0) fmt::print(stderr, "rocesim: error: {}\n", e.what());
      return 2;
    } catch (const ResultsDirError& e) {  // rank 0's; the others returned 2 already
      fmt::print(stderr, "rocesim: error: {}\n", e.what());
      return 2;
    } catch (const std::exception& e) {
      fmt::print(stderr, "rocesim: error: {}{}\n",
                 ranks.size() > 1 ? fmt::format("rank {}: ", ranks.rank()) : "", e.what());
      ranks.Abort(1);
      return 1;
    }
  } catch (const ScenarioError& e) {  // --mpi without MPI support
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  }
}

}  // namespace rocesim
