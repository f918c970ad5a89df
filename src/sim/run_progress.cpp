// The progress line and its work-based ETA (run_progress.h).
#include "sim/run_progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace rocesim {

std::optional<double> EstimateRemainingSeconds(const RunProgress& p, Time stop, double wall) {
  std::optional<double> best;
  auto offer = [&](double done) {
    if (done <= 0) return;
    const double left = done >= 1 ? 0 : wall * (1 - done) / done;
    best = best ? std::min(*best, left) : left;
  };
  // Simulated time since traffic began: the lead-in before the first flow
  // costs no wall time, so it is not progress.
  const Time from = std::min(p.traffic_start, stop);
  if (stop > from) offer(static_cast<double>(p.now - from) / static_cast<double>(stop - from));
  if (p.bytes_total > 0)
    offer(static_cast<double>(p.bytes_finished) / static_cast<double>(p.bytes_total));
  return best;
}

namespace {
std::string Duration(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}
}  // namespace

std::string ProgressLineText(const RunProgress& p, Time stop, double wall) {
  std::string line =
      fmt::format("sim {:.3f} ms / {:.3f} ms", ToSeconds(p.now) * 1e3, ToSeconds(stop) * 1e3);
  if (p.flows_total > 0) line += fmt::format("  flows {}/{}", p.flows_finished, p.flows_total);
  if (wall > 0)
    line += fmt::format("  {:.2f} M events/s", static_cast<double>(p.events) / wall / 1e6);
  const std::optional<double> eta = EstimateRemainingSeconds(p, stop, wall);
  line += "  ETA " + (eta ? Duration(*eta) : std::string("?"));
  return line;
}

void ProgressLine::Update(const RunProgress& p) {
  if (!enabled_) return;
  if (p.over) {
    line_.Clear();
    return;
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (wall - last_ < 0.25) return;
  last_ = wall;
  line_.Show("  " + ProgressLineText(p, stop_, wall));
}

void TerminalLine::Show(const std::string& line) {
  std::fprintf(stderr, "\r%-*s", static_cast<int>(std::max(shown_, line.size())), line.c_str());
  shown_ = line.size();
}

void TerminalLine::Clear() {
  if (shown_ > 0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(shown_), "");
  shown_ = 0;
}

}  // namespace rocesim
