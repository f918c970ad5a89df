#include "apps/setup_line.h"

#include <fmt/format.h>

#include "core/setup_progress.h"

namespace rocesim {
namespace {
constexpr double kDrawAfter = 1.0;  // s: a terminal line for a step this long
constexpr double kLogAfter = 2.0;   // s: a log line
constexpr double kLogEvery = 30.0;  // s: a further log line while it lasts
double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

SetupLine::SetupLine(bool enabled, bool terminal) : terminal_(terminal) {
  if (enabled)
    SetSetupListener([this](std::string_view step, uint64_t done, uint64_t total) {
      Report(step, done, total);
    });
}

SetupLine::~SetupLine() {
  SetSetupListener({});
  Clear();
}

void SetupLine::Report(std::string_view step, uint64_t done, uint64_t total) {
  if (step != step_) {
    step_ = step;
    step_start_ = std::chrono::steady_clock::now();
    last_drawn_ = -1;
  }
  const double elapsed = Since(step_start_);
  const bool finished = done >= total;
  if (!terminal_) {
    const bool logged = last_drawn_ >= 0;
    const double next_log = logged ? last_drawn_ + kLogEvery : kLogAfter;
    if (elapsed >= next_log && !finished) {
      fmt::print(stderr, "rocesim: building {}: {}/{} ({:.0f} s) ...\n", step, done, total,
                 elapsed);
      last_drawn_ = elapsed;
    } else if (logged && finished) {
      fmt::print(stderr, "rocesim: built {} in {:.1f} s\n", step, elapsed);
    }
    return;
  }
  if (elapsed < kDrawAfter || (elapsed - last_drawn_ < 0.25 && !finished)) return;
  last_drawn_ = elapsed;
  line_.Show(fmt::format("  building {} {}/{}  {:.0f} s", step, done, total, elapsed));
}

}  // namespace rocesim
