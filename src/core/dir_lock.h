// An exclusive lock on a directory that may not exist yet: the file
// `.NAME.lock` beside it, locked with flock(2), so the kernel releases it
// when the holder dies however it dies (no stale lock after a crash or a
// SIGKILL). Held by a run writing its results directory and by a sweep
// writing its sweep directory, so that a second one refuses at once instead
// of interleaving its files with the first's.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace rocesim {

// The directory is taken (or otherwise refused): exit status 2.
class ResultsDirError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `dir` as an absolute path without a trailing separator, so that its parent
// and name are what a person means by "beside it".
std::filesystem::path ResolvedDir(const std::string& dir);
// `.NAME<suffix>` beside `resolved`.
std::filesystem::path BesideDir(const std::filesystem::path& resolved, const std::string& suffix);

class DirLock {
 public:
  // Takes the lock for `dir` (creating its parent), or throws
  // ResultsDirError naming `dir` (as the user wrote it) and the holder's pid
  // when another process holds it.
  explicit DirLock(const std::string& dir);
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace rocesim
