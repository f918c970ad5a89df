#include "core/results_dir.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace rocesim {
namespace fs = std::filesystem;
namespace {

bool LooksLikeResults(const fs::path& dir) {
  return fs::exists(dir / "summary.json") || fs::exists(dir / "scenario.yaml");
}

// Fails now, before the simulation, if `dir` cannot take a file (read-only,
// full): better than after an hour's run.
void CheckWritable(const fs::path& dir, const std::string& shown) {
  const fs::path probe = dir / ".rocesim-write-probe";
  std::ofstream out(probe);
  if (out) out << "x";
  if (out) out.close();
  const int err = errno;
  std::error_code ignored;
  fs::remove(probe, ignored);
  if (!out)
    throw std::runtime_error(
        fmt::format("cannot write to the results directory {}: {}", shown, std::strerror(err)));
}

}  // namespace

ResultsDir::ResultsDir(const std::string& dir, bool force) : dir_(dir) {
  const fs::path resolved = ResolvedDir(dir);
  staging_ = BesideDir(resolved, ".partial").string();
  lock_ = std::make_unique<DirLock>(dir);
  if (fs::exists(resolved) && !fs::is_directory(resolved))
    throw ResultsDirError(
        fmt::format("{} exists and is not a directory; choose another results directory", dir));
  if (fs::is_directory(resolved) && !fs::is_empty(resolved)) {
    if (!force)
      throw ResultsDirError(fmt::format(
          "the results directory {} already exists and is not empty; rerun with --force to "
          "replace it (removed only once the new results are complete), or choose a new "
          "directory with -o",
          dir));
    if (!LooksLikeResults(resolved))
      throw ResultsDirError(
          fmt::format("--force replaces only a results directory, and {} holds no summary.json "
                      "or scenario.yaml; not removing it: remove it yourself or choose another "
                      "directory",
                      dir));
  }
  // Left by a killed run: nobody else writes them while we hold the lock.
  fs::remove_all(staging_);
  fs::remove_all(BesideDir(resolved, ".replaced"));
  fs::create_directories(staging_);
  try {
    CheckWritable(staging_, dir);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(staging_, ignored);
    throw;
  }
}

void ResultsDir::Commit() {
  const fs::path resolved = ResolvedDir(dir_);
  const fs::path replaced = BesideDir(resolved, ".replaced");
  std::error_code ec;
  const bool had_old = fs::exists(resolved);
  if (had_old) fs::rename(resolved, replaced, ec);
  if (!ec) fs::rename(staging_, resolved, ec);
  if (ec) {
    const std::string why = ec.message();
    if (had_old && !fs::exists(resolved)) fs::rename(replaced, resolved, ec);  // put it back
    throw std::runtime_error(
        fmt::format("cannot move the results from {} to {}: {}", staging_, dir_, why));
  }
  committed_ = true;
  if (had_old) fs::remove_all(replaced, ec);
}

ResultsDir::~ResultsDir() {
  std::error_code ignored;
  if (!committed_) fs::remove_all(staging_, ignored);
}

}  // namespace rocesim
