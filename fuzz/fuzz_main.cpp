// rocesim_fuzz: a deterministic mutation fuzzer over every input rocesim
// reads (fuzz/targets.h), for CI and for anyone changing a reader.
//
//   rocesim_fuzz [TARGET ...] [--seconds S] [--runs N] [--seed K] [--save DIR]
//       mutate each target's seed corpus for S seconds (or N inputs) each;
//       default every target. An input that escapes with an exception other
//       than the reader's own error is a finding, saved in DIR and listed;
//       the exit status is 1 when there were findings. Each input is written
//       to DIR/<target>.current before it runs, so a crash or a hang (after
//       --timeout seconds the process aborts) leaves it behind.
//   rocesim_fuzz --replay TARGET FILE ...
//       run saved inputs (the regression tests of tests/fuzz_regressions/).
//   rocesim_fuzz --list
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/mutator.h"
#include "fuzz/targets.h"

namespace fs = std::filesystem;
using rocesim::fuzz::Target;

namespace {

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Seed inputs, cut to their first 16 KB at a line end (a parser's cost on a
// long flow list is the fuzzer's loss).
std::vector<std::string> Corpus(const Target& t, const std::string& source_dir) {
  std::vector<fs::path> files;
  for (const std::string& d : t.corpus_dirs) {
    const fs::path dir = fs::path(source_dir) / d;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (!e.is_regular_file()) continue;
      const std::string name = e.path().filename().string();
      for (const std::string& suffix : t.suffixes)
        if (name.size() >= suffix.size() && name.ends_with(suffix)) {
          files.push_back(e.path());
          break;
        }
    }
  }
  std::sort(files.begin(), files.end());  // directory order is not deterministic
  std::vector<std::string> out;
  for (const fs::path& f : files) {
    std::string text = ReadAll(f);
    if (text.size() > 16 * 1024) text.resize(text.rfind('\n', 16 * 1024) + 1);
    out.push_back(std::move(text));
  }
  if (out.empty()) out.push_back("");
  return out;
}

const char* g_current = nullptr;  // the input file of the run in progress
void OnAlarm(int) {
  const char msg[] = "rocesim_fuzz: an input ran past the timeout (a hang); it is in ";
  [[maybe_unused]] auto r = write(2, msg, sizeof msg - 1);
  if (g_current) r = write(2, g_current, strlen(g_current));
  r = write(2, "\n", 1);
  _exit(3);
}

// Runs one input; returns the finding's description, or "".
std::string RunOne(const Target& t, const std::string& input, int timeout) {
  alarm(static_cast<unsigned>(timeout));
  std::string finding;
  try {
    t.run(input);
  } catch (const std::exception& e) {
    finding = fmt::format("escaped with {}: {}", typeid(e).name(), e.what());
  } catch (...) {
    finding = "escaped with a non-standard exception";
  }
  alarm(0);
  return finding;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rocesim_fuzz: mutation fuzzing of rocesim's input readers"};
  std::vector<std::string> names, replay;
  double seconds = 10;
  long runs = 0;
  uint64_t seed = 1;
  int timeout = 60;
  std::string save = "fuzz-findings";
  bool list = false;
  app.add_option("targets", names, "Targets (default: all)");
  app.add_option("--seconds", seconds, "Seconds per target (default 10)");
  app.add_option("--runs", runs, "Inputs per target instead of a time budget");
  app.add_option("--seed", seed, "Mutation seed (default 1)");
  app.add_option("--timeout", timeout, "Seconds one input may take (default 60)");
  app.add_option("--save", save, "Directory for findings and the current input");
  app.add_option("--replay", replay, "Run these saved inputs against the one target given");
  app.add_flag("--list", list, "List the targets");
  CLI11_PARSE(app, argc, argv);

  const std::string source_dir = ROCESIM_SOURCE_DIR;
  fs::create_directories(save);
  const std::vector<Target> targets = rocesim::fuzz::Targets(source_dir, save);
  if (list) {
    for (const Target& t : targets) fmt::print("{}\n", t.name);
    return 0;
  }
  std::signal(SIGALRM, OnAlarm);
  std::vector<const Target*> chosen;
  for (const Target& t : targets)
    if (names.empty() || std::find(names.begin(), names.end(), t.name) != names.end())
      chosen.push_back(&t);
  if (chosen.size() != (names.empty() ? targets.size() : names.size())) {
    fmt::print(stderr, "rocesim_fuzz: unknown target among {}; --list shows them\n",
               fmt::join(names, ", "));
    return 2;
  }

  int findings = 0;
  if (!replay.empty()) {
    if (chosen.size() != 1) {
      fmt::print(stderr, "rocesim_fuzz: --replay needs exactly one target\n");
      return 2;
    }
    for (const std::string& f : replay) {
      g_current = f.c_str();
      const std::string finding = RunOne(*chosen[0], ReadAll(f), timeout);
      if (!finding.empty()) {
        ++findings;
        fmt::print(stderr, "{}: {}\n", f, finding);
      }
    }
    fmt::print("{}: {} inputs replayed, {} findings\n", chosen[0]->name, replay.size(), findings);
    return findings > 0 ? 1 : 0;
  }

  for (const Target* t : chosen) {
    const std::vector<std::string> corpus = Corpus(*t, source_dir);
    rocesim::fuzz::Mutator mutator(seed);
    const std::string current = save + "/" + t->name + ".current";
    g_current = current.c_str();
    const auto begin = std::chrono::steady_clock::now();
    long done = 0;
    int found = 0;
    for (;; ++done) {
      if (runs > 0
              ? done >= runs
              : std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() >=
                    seconds)
        break;
      const std::string& base = corpus[done % corpus.size()];
      const std::string& other = corpus[(done * 7 + 3) % corpus.size()];
      // Every 16th input is a seed input as it is: they must pass too.
      const std::string input = done % 16 == 0 ? base : mutator.Mutate(base, other);
      std::ofstream(current, std::ios::binary) << input;
      const std::string finding = RunOne(*t, input, timeout);
      if (!finding.empty()) {
        ++found;
        const std::string path = fmt::format("{}/{}-finding-{}.txt", save, t->name, found);
        std::ofstream(path, std::ios::binary) << input;
        fmt::print(stderr, "{}: {} (input saved as {})\n", t->name, finding, path);
      }
    }
    fs::remove(current);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    fmt::print("{}: {} inputs in {:.1f} s from {} seeds, {} findings\n", t->name, done, took,
               corpus.size(), found);
    findings += found;
  }
  return findings > 0 ? 1 : 0;
}
