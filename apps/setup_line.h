// What `rocesim run` shows while a large fabric is built (issue #19), so a
// setup of seconds or minutes is not mistaken for a hang: on a terminal, a
// line "building forwarding tables 812/2048" redrawn at most four times a
// second once a step has taken a second; elsewhere (a log), a line when a
// step passes two seconds, another every 30 s while it lasts (a k=200 fat
// tree's tables take about 15 minutes) and one when it ends. Quiet runs show
// nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/run_progress.h"

namespace rocesim {

class SetupLine {
 public:
  // Listens to the setup's reports (core/setup_progress.h) until destroyed.
  SetupLine(bool enabled, bool terminal);
  ~SetupLine();
  SetupLine(const SetupLine&) = delete;
  SetupLine& operator=(const SetupLine&) = delete;

  // Erases the terminal line (before the run's own progress line).
  void Clear() { line_.Clear(); }

 private:
  void Report(std::string_view step, uint64_t done, uint64_t total);

  bool terminal_;
  std::string step_;  // the step being timed
  std::chrono::steady_clock::time_point step_start_;
  double last_drawn_ = -1;  // s into the step: the last line drawn or logged (-1: none yet)
  TerminalLine line_;
};

}  // namespace rocesim
