// The sweep's process pool: spawn, wait, rename on success, report (sweep_runner.h).
#include "sweep/sweep_runner.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "core/checked_write.h"
#include "sim/mpi_launch_env.h"

extern char** environ;

namespace rocesim::sweep {
namespace fs = std::filesystem;
namespace {

constexpr char kPointFile[] = "sweep_point.json";
constexpr char kLogFile[] = "run.log";
constexpr int kTailLines = 12;

std::optional<nlohmann::json> ReadJson(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The last `n` lines of `text`.
std::vector<std::string> Tail(const std::string& text, int n) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.size() > static_cast<size_t>(n)) lines.erase(lines.begin(), lines.end() - n);
  return lines;
}

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("wait status {}", status);
}

class Pool {
 public:
  Pool(const SweepSpec& spec, const std::vector<SweepPoint>& points, const RunnerOptions& o,
       std::vector<PointOutcome>& outcomes, size_t owned, size_t done)
      : spec_(spec),
        points_(points),
        o_(o),
        outcomes_(outcomes),
        owned_(owned),
        done_(done),
        base_(fs::absolute(spec.base).string()),
        workers_var_(fmt::format("{}={}", kSweepWorkersVar, o.machine_workers)) {}

  void Run(const std::vector<size_t>& todo) {
    size_t next = 0;
    while (next < todo.size() || !running_.empty()) {
      while (next < todo.size() && running_.size() < static_cast<size_t>(o_.jobs))
        Start(points_[todo[next++]]);
      if (running_.empty()) continue;
      int status = 0;
      const pid_t pid = waitpid(-1, &status, 0);
      if (pid < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
      }
      auto it = running_.find(pid);
      if (it == running_.end()) continue;  // not one of ours
      const Running r = it->second;
      running_.erase(it);
      Finish(points_[r.index], status, r.start);
    }
  }

 private:
  struct Running {
    size_t index;
    std::chrono::steady_clock::time_point start;
  };

  fs::path Log(const SweepPoint& pt) const { return fs::path(o_.out_dir) / (pt.name + ".log"); }
  fs::path Results(const SweepPoint& pt) const { return fs::path(o_.out_dir) / pt.name; }

  // A point runs as a plain process, not as a rank of the sweep's MPI job:
  // this process's environment without the launcher's variables, which would
  // make `rocesim run` take itself for one rank of a partitioned run, and
  // (more than one point at once) with how many points share the machine.
  std::vector<char*> PointEnvironment() {
    std::vector<char*> env;
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string_view var(*e);
      if (var.starts_with("OMPI_COMM_WORLD") || var.starts_with("PMIX_") ||
          var.starts_with("PMI_") || var.starts_with(kSweepWorkersVar))
        continue;
      env.push_back(*e);
    }
    if (o_.machine_workers > 1) env.push_back(workers_var_.data());
    env.push_back(nullptr);
    return env;
  }

  // The point's run owns DIR/NAME as any run owns its directory
  // (core/results_dir.h): it writes beside it and moves its results in only
  // when complete; --force because a point is run only when DIR/NAME holds
  // no finished results of this point (stale ones are replaced).
  void Start(const SweepPoint& pt) {
    const std::vector<std::string> sets = OverrideArgs(spec_, pt);
    std::vector<std::string> args = {o_.exe, "run", base_, "-o", Results(pt).string(), "--force"};
    for (const std::string& s : sets) args.push_back("--set=" + s);
    args.push_back("-q");
    if (o_.threads == 0)
      args.emplace_back("--threads=auto");
    else if (o_.threads > 1)
      args.push_back(fmt::format("--threads={}", o_.threads));
    if (o_.partitions != 0) args.push_back(fmt::format("--partitions={}", o_.partitions));
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    const std::string log = Log(pt).string();
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid = 0;
    const int rc =
        posix_spawn(&pid, o_.exe.c_str(), &fa, nullptr, argv.data(), PointEnvironment().data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
      Report(pt, false, fmt::format("cannot start {}: {}", o_.exe, std::strerror(rc)), 0, {});
      return;
    }
    running_[pid] = {pt.index, std::chrono::steady_clock::now()};
  }

  void Finish(const SweepPoint& pt, int status, std::chrono::steady_clock::time_point start) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const fs::path results = Results(pt);
    const fs::path log = Log(pt);
    std::string why = DescribeStatus(status);
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    std::optional<nlohmann::json> summary;
    if (ok) {
      summary = ReadJson(results / "summary.json");
      if (!summary) {
        ok = false;
        why = "exited 0 but wrote no readable summary.json";
      }
    }
    if (!ok) {
      Report(pt, false, fmt::format("{}; output in {}", why, log.string()), secs,
             Tail(ReadText(log), kTailLines));
      return;
    }
    std::error_code ec;
    if (fs::file_size(log, ec) == 0 && !ec) {
      fs::remove(log, ec);
    } else {
      fs::rename(log, results / kLogFile, ec);
    }
    RecordFinishedPoint(o_.out_dir, spec_, pt);
    outcomes_[pt.index].row = SummaryRow(*summary);
    Report(pt, true, "", secs, {});
  }

  void Report(const SweepPoint& pt, bool ok, const std::string& why, double secs,
              const std::vector<std::string>& tail) {
    outcomes_[pt.index].status = ok ? PointStatus::kOk : PointStatus::kFailed;
    ++done_;
    if (!ok) ++failed_;
    const std::string counter =
        fmt::format("[{:>{}}/{}]", done_, std::to_string(owned_).size(), owned_);
    if (ok) {
      fmt::print(stderr, "{}{} {} ok ({:.2f} s)\n", o_.log_prefix, counter, pt.name, secs);
    } else {
      fmt::print(stderr, "{}{} {} FAILED: {}\n", o_.log_prefix, counter, pt.name, why);
      for (const std::string& line : tail) fmt::print(stderr, "{}    | {}\n", o_.log_prefix, line);
    }
    std::fflush(stderr);
  }

  const SweepSpec& spec_;
  const std::vector<SweepPoint>& points_;
  const RunnerOptions& o_;
  std::vector<PointOutcome>& outcomes_;
  size_t owned_;
  size_t done_;
  size_t failed_ = 0;
  std::string base_;
  std::string workers_var_;  // ROCESIM_SWEEP_WORKERS=N, for PointEnvironment
  std::map<pid_t, Running> running_;
};

}  // namespace

int DefaultWorkers(uint32_t cores, int threads_per_point) {
  const uint32_t per_point = threads_per_point > 1 ? static_cast<uint32_t>(threads_per_point) : 1;
  return static_cast<int>(std::max(1u, cores / per_point));
}

std::string SelfExecutable() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw std::runtime_error("cannot find the rocesim executable (/proc/self/exe): " +
                             ec.message());
  return p.string();
}

std::vector<size_t> OwnedPoints(size_t count, int rank, int ranks) {
  std::vector<size_t> out;
  for (size_t i = static_cast<size_t>(rank); i < count; i += static_cast<size_t>(ranks))
    out.push_back(i);
  return out;
}

PointOutcome ReadFinishedPoint(const std::string& out_dir, const SweepSpec& spec,
                               const SweepPoint& point, bool* stale) {
  if (stale != nullptr) *stale = false;
  PointOutcome o;
  const fs::path dir = fs::path(out_dir) / point.name;
  const std::optional<nlohmann::json> summary = ReadJson(dir / "summary.json");
  if (!summary || (summary->is_object() && summary->value("partial", false))) return o;
  const std::optional<nlohmann::json> record = ReadJson(dir / kPointFile);
  const bool same = record && record->is_object() && record->contains("overrides") &&
                    (*record)["overrides"] == nlohmann::json(OverrideArgs(spec, point));
  if (!same) {
    if (stale != nullptr) *stale = true;
    return o;
  }
  o.status = PointStatus::kOk;
  o.row = SummaryRow(*summary);
  return o;
}

void RecordFinishedPoint(const std::string& out_dir, const SweepSpec& spec,
                         const SweepPoint& point) {
  const nlohmann::json record = {{"index", point.index},
                                 {"name", point.name},
                                 {"base", fs::absolute(spec.base).string()},
                                 {"overrides", OverrideArgs(spec, point)}};
  WriteFileAtomically((fs::path(out_dir) / point.name / kPointFile).string(),
                      record.dump(2) + "\n");
}

std::vector<PointOutcome> RunPoints(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                                    const RunnerOptions& options) {
  std::vector<PointOutcome> outcomes(points.size());
  fs::create_directories(options.out_dir);
  const std::vector<size_t> owned = OwnedPoints(points.size(), options.rank, options.ranks);
  std::vector<size_t> todo;
  for (size_t i : owned) {
    bool stale = false;
    outcomes[i] = ReadFinishedPoint(options.out_dir, spec, points[i], &stale);
    if (stale)
      fmt::print(stderr, "{}{}: results were made with other overrides; running it again\n",
                 options.log_prefix, points[i].name);
    if (outcomes[i].status != PointStatus::kOk) todo.push_back(i);
  }
  const size_t done = owned.size() - todo.size();
  const std::string of_total =
      options.ranks > 1 ? fmt::format(" of {}", points.size()) : std::string();
  if (todo.empty()) {
    fmt::print(stderr, "{}sweep: all {} points{} already done in {}\n", options.log_prefix,
               owned.size(), of_total, options.out_dir);
  } else {
    fmt::print(stderr, "{}sweep: {} points{} in {}: {} already done, running {} with {} worker{}\n",
               options.log_prefix, owned.size(), of_total, options.out_dir, done, todo.size(),
               options.jobs, options.jobs == 1 ? "" : "s");
  }
  std::fflush(stderr);
  Pool(spec, points, options, outcomes, owned.size(), done).Run(todo);
  return outcomes;
}

void WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  WriteFileChecked(tmp, text);
  fs::rename(tmp, path);
}

}  // namespace rocesim::sweep
