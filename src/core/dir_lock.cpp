#include "core/dir_lock.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rocesim {
namespace fs = std::filesystem;

fs::path ResolvedDir(const std::string& dir) {
  fs::path p = fs::absolute(fs::path(dir)).lexically_normal();
  if (p.filename().empty() && p != p.root_path()) p = p.parent_path();
  if (p == p.root_path())
    throw ResultsDirError(fmt::format("{}: the root directory cannot be a results directory", dir));
  return p;
}

fs::path BesideDir(const fs::path& resolved, const std::string& suffix) {
  return resolved.parent_path() / ("." + resolved.filename().string() + suffix);
}

DirLock::DirLock(const std::string& dir) {
  const fs::path resolved = ResolvedDir(dir);
  path_ = BesideDir(resolved, ".lock").string();
  std::error_code ec;
  fs::create_directories(resolved.parent_path(), ec);
  if (ec)
    throw std::runtime_error(
        fmt::format("cannot create {}: {}", resolved.parent_path().string(), ec.message()));
  // A holder that finishes unlinks the file while still holding it; whoever
  // locked that unlinked file meanwhile has locked nothing and tries again.
  for (;;) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw std::runtime_error(fmt::format("cannot write to the results directory {}: {}: {}", dir,
                                           path_, std::strerror(errno)));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      char pid[32] = {};
      const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
      ::close(fd_);
      fd_ = -1;
      if (err == EWOULDBLOCK)
        throw ResultsDirError(fmt::format(
            "another rocesim{} is writing {} now; wait for it to finish, or choose another "
            "directory with -o",
            n > 0 ? fmt::format(" (pid {})", std::string(pid, static_cast<size_t>(n))) : "", dir));
      throw std::runtime_error(fmt::format("cannot lock {}: {}", path_, std::strerror(err)));
    }
    struct stat held {
    }, named{};
    if (::fstat(fd_, &held) == 0 && ::stat(path_.c_str(), &named) == 0 &&
        held.st_ino == named.st_ino && held.st_dev == named.st_dev)
      break;
    ::close(fd_);
    fd_ = -1;
  }
  // The pid is only for a second run's message: the lock holds without it.
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, pid.data(), pid.size(), 0);
}

DirLock::~DirLock() {
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace rocesim
