#include "sim/run_clock.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <cstdio>
#include <random>

namespace rocesim {

std::string NewRunId() {
  std::random_device rd;
  const uint64_t id = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  return fmt::format("{:016x}", id);
}

double ProcessCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

int64_t PeakRssBytes() {
  // VmHWM belongs to this process image; getrusage's ru_maxrss would also count
  // the parent's memory when we were forked from a large process and exec'd.
  if (std::FILE* status = std::fopen("/proc/self/status", "r")) {
    char line[256];
    long long kb = -1;
    while (std::fgets(line, sizeof line, status))
      if (std::sscanf(line, "VmHWM: %lld kB", &kb) == 1) break;
    std::fclose(status);
    if (kb >= 0) return kb * 1024;
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<int64_t>(ru.ru_maxrss) * 1024;
}

}  // namespace rocesim
