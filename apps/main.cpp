// The rocesim command line: `rocesim run SCENARIO.yaml [-o DIR] [--seed N]
// [--set key.path=value ...]`. Exit status: 0 success, 2 bad scenario or
// usage, 1 any other failure.
//
// `rocesim report DIR` and `rocesim compare DIR...` are plotting commands
// written in Python (python/rocesim_report.py, matplotlib): this program
// finds the script and a python3 that can import matplotlib and numpy, and
// execs it with the remaining arguments, so the script's exit status and
// --help are the command's own.
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"
#include "topo/hpcc_topology_file.h"

namespace {

using namespace rocesim;

// A one-line progress display on a terminal; silent when stderr is piped.
class Progress {
 public:
  Progress(Time stop, bool enabled) : stop_(stop), enabled_(enabled) {}
  void Update(Time now, uint64_t events) {
    if (!enabled_) return;
    const auto t = std::chrono::steady_clock::now();
    const double wall = std::chrono::duration<double>(t - start_).count();
    if (wall - last_ < 0.25) return;
    last_ = wall;
    const double frac = static_cast<double>(now) / static_cast<double>(stop_);
    const double eta = frac > 0 ? wall * (1 - frac) / frac : 0;
    std::fprintf(stderr, "\r  sim %.3f ms / %.3f ms  %.2f M events/s  ETA %.0f s   ",
                 ToSeconds(now) * 1e3, ToSeconds(stop_) * 1e3,
                 static_cast<double>(events) / wall / 1e6, eta);
    shown_ = true;
  }
  void Clear() {
    if (shown_) std::fprintf(stderr, "\r%80s\r", "");
  }

 private:
  Time stop_;
  bool enabled_;
  bool shown_ = false;
  double last_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

void PrintSummary(const nlohmann::json& s, const std::string& dir) {
  fmt::print("rocesim: {} (seed {})\n", s["name"].get<std::string>(), s["seed"].get<uint64_t>());
  fmt::print("  flows     {}/{} completed   slowdown p50 {:.3f}  p95 {:.3f}  p99 {:.3f}\n",
             s["flows"]["completed"].get<uint64_t>(), s["flows"]["total"].get<uint64_t>(),
             s["slowdown"]["p50"].get<double>(), s["slowdown"]["p95"].get<double>(),
             s["slowdown"]["p99"].get<double>());
  const auto& d = s["drops"];
  fmt::print("  drops     {} (headroom overflow {}, buffer full {}, wred {})\n",
             d["total"].get<uint64_t>(), d["headroom_overflow"].get<uint64_t>(),
             d["buffer_full"].get<uint64_t>(), d["wred"].get<uint64_t>());
  fmt::print("  pfc       pause frames sent {}, received {}\n",
             s["pfc"]["pause_frames_sent"].get<uint64_t>(),
             s["pfc"]["pause_frames_received"].get<uint64_t>());
  fmt::print("  ecn       marks {}, cnps sent {}\n", s["ecn_marks"].get<uint64_t>(),
             s["cnps_sent"].get<uint64_t>());
  const auto& r = s["run"];
  fmt::print("  run       {:.3f} ms simulated, {} events, {:.2f} s wall, {:.2f} M events/s\n",
             s["sim_seconds"].get<double>() * 1e3, s["events"].get<uint64_t>(),
             r["wall_seconds"].get<double>(), r["events_per_second"].get<double>() / 1e6);
  fmt::print("  results   {}/\n", dir);
}

int Run(const std::string& file, std::string out_dir, std::optional<uint64_t> seed,
        const std::vector<std::string>& sets, bool quiet) {
  const Scenario scenario = LoadScenario(file, sets, seed);
  if (out_dir.empty())
    out_dir = scenario.output.dir.empty() ? "results/" + scenario.name : scenario.output.dir;
  std::filesystem::create_directories(out_dir);
  Simulation sim(scenario);
  sim.EnableMonitors(out_dir);
  Progress progress(scenario.duration, !quiet && isatty(STDERR_FILENO));
  const RunStats stats = sim.Run([&](Time now, uint64_t ev) { progress.Update(now, ev); });
  progress.Clear();
  WriteResults(sim, stats, out_dir);
  if (!quiet) PrintSummary(BuildSummary(sim, stats), out_dir);
  return 0;
}

// --- report / compare: hand over to python/rocesim_report.py ---------------

extern "C" char** environ;

// The plotting script: $ROCESIM_PYTHON_DIR/rocesim_report.py (an installed or
// relocated copy), else the source tree's python/ directory.
std::string ReportScript() {
  const char* dir = std::getenv("ROCESIM_PYTHON_DIR");
  const std::string base = dir != nullptr && *dir != '\0' ? dir : ROCESIM_SOURCE_DIR "/python";
  return base + "/rocesim_report.py";
}

enum class Probe { kOk, kNotFound, kNoModules };

// Runs `python -c "import matplotlib, numpy"` with its output discarded.
Probe ProbePython(const std::string& python) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::string code = "import matplotlib, numpy";
  std::vector<char*> args = {const_cast<char*>(python.c_str()), const_cast<char*>("-c"),
                             code.data(), nullptr};
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, python.c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (err != 0) return Probe::kNotFound;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Probe::kOk;
  // 127: the shell-style "command not found" of a wrapper (e.g. a pyenv shim).
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return Probe::kNotFound;
  return Probe::kNoModules;
}

// Execs `python3 rocesim_report.py COMMAND ARGS...`; returns only on failure.
// $ROCESIM_PYTHON picks the interpreter; otherwise python3 on PATH, then the
// system's /usr/bin/python3, because a PATH python3 from pyenv or a venv
// often lacks the Debian packages python3-matplotlib and python3-numpy.
int RunPythonTool(int argc, char** argv) {
  const std::string script = ReportScript();
  if (!std::filesystem::is_regular_file(script)) {
    fmt::print(stderr,
               "rocesim: error: cannot find the plotting script {} (set ROCESIM_PYTHON_DIR to "
               "the directory holding rocesim_report.py)\n",
               script);
    return 1;
  }
  std::vector<std::string> candidates;
  if (const char* py = std::getenv("ROCESIM_PYTHON"); py != nullptr && *py != '\0') {
    candidates.push_back(py);
  } else {
    candidates = {"python3", "/usr/bin/python3", "/usr/local/bin/python3"};
  }
  std::string python;
  bool found_any = false;
  for (const std::string& c : candidates) {
    const Probe p = ProbePython(c);
    found_any = found_any || p != Probe::kNotFound;
    if (p == Probe::kOk) {
      python = c;
      break;
    }
  }
  if (python.empty()) {
    if (!found_any) {
      fmt::print(stderr,
                 "rocesim: error: `rocesim {}` needs python3, which was not found (tried {}); "
                 "install python3 python3-matplotlib python3-numpy python3-yaml "
                 "(scripts/install-deps.sh), or set ROCESIM_PYTHON\n",
                 argv[1], fmt::join(candidates, ", "));
    } else {
      fmt::print(stderr,
                 "rocesim: error: `rocesim {}` needs matplotlib and numpy, and no python3 "
                 "(tried {}) can import them; install python3-matplotlib python3-numpy "
                 "python3-yaml (scripts/install-deps.sh), or set ROCESIM_PYTHON to a python3 "
                 "that has them\n",
                 argv[1], fmt::join(candidates, ", "));
    }
    return 1;
  }
  std::vector<char*> args = {python.data(), const_cast<char*>(script.c_str())};
  for (int i = 1; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  std::fflush(stdout);
  execvp(python.c_str(), args.data());
  fmt::print(stderr, "rocesim: error: cannot run {}: {}\n", python, std::strerror(errno));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  // The Python commands take their own arguments (and --help); dispatch them
  // before CLI11 parses anything. They are still declared below so that
  // `rocesim --help` lists them.
  if (argc >= 2 && (std::strcmp(argv[1], "report") == 0 || std::strcmp(argv[1], "compare") == 0))
    return RunPythonTool(argc, argv);

  CLI::App app{"rocesim: a packet-level simulator of RoCEv2 / RDMA datacenter fabrics"};
  app.set_version_flag("--version", std::string("rocesim ") + ROCESIM_VERSION);
  app.require_subcommand(1);

  std::string file, out_dir;
  std::optional<uint64_t> seed;
  std::vector<std::string> sets;
  bool quiet = false;
  CLI::App* run = app.add_subcommand("run", "Run a scenario and write a results directory");
  run->add_option("scenario", file, "Scenario YAML file")->required();
  run->add_option("-o,--output", out_dir,
                  "Results directory (default: output.dir or results/NAME)");
  run->add_option("--seed", seed, "Override the scenario's seed");
  run->add_option("--set", sets, "Override a field: key.path=value (repeatable)")
      ->take_last()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  run->add_flag("-q,--quiet", quiet, "Print nothing but errors");
  // Handled by RunPythonTool before parsing; `rocesim report --help` shows their options.
  app.add_subcommand("report",
                     "Plot a results directory: PNGs and an HTML page in DIR/report/ "
                     "(python3 + matplotlib)")
      ->allow_extras();
  app.add_subcommand("compare",
                     "Compare results directories (or a sweep): table, compare.csv, "
                     "compare.html, overlaid plots")
      ->allow_extras();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (run->parsed()) return Run(file, out_dir, seed, sets, quiet);
  } catch (const ScenarioError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const TopologyFileError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const BuildError& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "rocesim: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
