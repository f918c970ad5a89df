// The progress line of `rocesim run` on a terminal, and the estimate behind
// its ETA. Simulated time alone misleads: a run whose traffic starts at 2 s
// (the HPCC benchmark) reaches 2 s at once and then shows "ETA 0 s" for its
// whole length. The estimate therefore measures work: simulated time counted
// from the first flow's start, and the bytes of completed flows of all bytes
// offered, whichever says the run ends sooner (it stops at `duration` or when
// the last flow finishes). Bytes, not the flow count: the mice finish first,
// and a count would promise the end while the elephants still run.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/time.h"

namespace rocesim {

// Where a run stands, as the simulation reports it every 64k events.
struct RunProgress {
  Time now = 0;
  uint64_t events = 0;
  uint64_t flows_finished = 0;
  uint64_t flows_total = 0;
  int64_t bytes_finished = 0;  // bytes of the finished flows (0 with bytes_total: unknown)
  int64_t bytes_total = 0;     // of all flows
  Time traffic_start = 0;      // the earliest flow start (the run's idle lead-in ends there)
  // The last report of a partitioned run, when its windows are over: the line
  // goes before the partitions merge, so that nothing another MPI rank
  // prints from then on lands on it.
  bool over = false;
};

// Wall seconds left, from `wall` seconds so far; none while no work is
// measurably done (nothing to extrapolate from).
std::optional<double> EstimateRemainingSeconds(const RunProgress& p, Time stop, double wall);

// "sim 2000.125 ms / 2100.000 ms  flows 1234/5000  1.52 M events/s  ETA 41 s".
std::string ProgressLineText(const RunProgress& p, Time stop, double wall);

// One line of stderr redrawn in place (a progress line): each Show pads
// over the end of a longer previous line; Clear erases it.
class TerminalLine {
 public:
  void Show(const std::string& line);
  void Clear();

 private:
  size_t shown_ = 0;  // characters on the line now
};

// Prints ProgressLineText on one terminal line, at most four times a second;
// silent when disabled (stderr is not a terminal, or -q).
class ProgressLine {
 public:
  ProgressLine(Time stop, bool enabled) : stop_(stop), enabled_(enabled) {}
  void Update(const RunProgress& p);
  void Clear() { line_.Clear(); }

 private:
  Time stop_;
  bool enabled_;
  TerminalLine line_;
  double last_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace rocesim
