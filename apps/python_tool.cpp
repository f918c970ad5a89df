// `rocesim report DIR`, `rocesim compare DIR...` and `rocesim validate` are
// written in Python (python/rocesim_report.py and validation/validate.py,
// matplotlib): this finds the script and a python3 that can import
// matplotlib and numpy, and execs it with the remaining arguments, so the
// script's exit status and --help are the command's own.
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "core/data_path.h"

namespace rocesim {
namespace {

extern "C" char** environ;

// The plotting script: $ROCESIM_PYTHON_DIR/rocesim_report.py (a copy of
// one's own), else found beside the binary (core/data_path.h); for
// `validate`, validation/validate.py the same way.
std::string ToolScript(const std::string& command) {
  if (command == "validate") return DataFile("validation", "validation", "validate.py");
  const char* dir = std::getenv("ROCESIM_PYTHON_DIR");
  if (dir != nullptr && *dir != '\0') return std::string(dir) + "/rocesim_report.py";
  return DataFile("python", "python", "rocesim_report.py");
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

}  // namespace

int RunPythonTool(int argc, char** argv) {
  const std::string command = argv[1];
  const bool validate = command == "validate";
  const std::string script = ToolScript(command);
  if (!std::filesystem::is_regular_file(script)) {
    fmt::print(stderr, "rocesim: error: cannot find the script {}{}\n", script,
               validate ? " (the validation suite runs from a source tree)"
                        : " (set ROCESIM_PYTHON_DIR to the directory holding rocesim_report.py)");
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
  // The report script takes the command as its first argument; validate.py
  // takes only its options, and runs this very binary.
  std::string self;
  for (int i = validate ? 2 : 1; i < argc; ++i) args.push_back(argv[i]);
  if (validate) {
    std::error_code ec;
    self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (!ec) {
      args.push_back(const_cast<char*>("--bin"));
      args.push_back(self.data());
    }
  }
  args.push_back(nullptr);
  std::fflush(stdout);
  execvp(python.c_str(), args.data());
  fmt::print(stderr, "rocesim: error: cannot run {}: {}\n", python, std::strerror(errno));
  return 1;
}

}  // namespace rocesim
