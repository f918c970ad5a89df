// Wall time, CPU time and peak memory of a run (summary.json's `run` object),
// for the serial and the partitioned run alike.
#pragma once

#include <chrono>
#include <string>

#include "sim/simulation.h"

namespace rocesim {

// A fresh random id for a run (16 hex digits), told apart in summary.json.
std::string NewRunId();
// CPU seconds of this process, all threads.
double ProcessCpuSeconds();
// The process's peak resident memory.
int64_t PeakRssBytes();

class RunClock {
 public:
  RunClock() : wall_start_(std::chrono::steady_clock::now()), cpu_start_(ProcessCpuSeconds()) {}
  // Fills the run's wall and CPU seconds since construction, the peak memory
  // and a run id.
  void Finish(RunStats& stats) const {
    stats.run_id = NewRunId();
    stats.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
    stats.cpu_seconds = ProcessCpuSeconds() - cpu_start_;
    stats.peak_rss_bytes = PeakRssBytes();
  }

 private:
  std::chrono::steady_clock::time_point wall_start_;
  double cpu_start_;
};

}  // namespace rocesim
