#include "apps/stop_signals.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <string>

#include "sim/stop_request.h"

namespace rocesim {
namespace {

volatile sig_atomic_t announce_stop = 0;
volatile sig_atomic_t in_setup = 0;
volatile sig_atomic_t failed = 0;

// StopSignalsWatchRanks' ranks, with the line that says one is gone, made
// beforehand (a signal handler may not format or allocate).
struct WatchedRank {
  pid_t pid = 0;
  char line[128] = {};
  size_t length = 0;
};
constexpr size_t kMostWatched = 256;
WatchedRank watched[kMostWatched];
volatile sig_atomic_t watched_count = 0;

// A watched rank that has ended (its process is gone), or null.
const WatchedRank* GoneRank() {
  const int saved = errno;
  const WatchedRank* gone = nullptr;
  for (sig_atomic_t i = 0; i < watched_count && !gone; ++i)
    if (::kill(watched[i].pid, 0) != 0 && errno == ESRCH) gone = &watched[i];
  errno = saved;
  return gone;
}

extern "C" void OnStopSignal(int signal) {
  if (failed) _exit(128 + signal);  // the failure was said; nothing is kept
  if (const WatchedRank* gone = in_setup ? nullptr : GoneRank()) {
    if (announce_stop) (void)!::write(STDERR_FILENO, gone->line, gone->length);
    _exit(128 + signal);
  }
  if (in_setup) {
    // Nothing measured yet: end now (the next run removes the staging
    // directory left beside the results).
    if (announce_stop) {
      static const char kMessage[] = "\nrocesim: stopped while building; nothing written\n";
      (void)!::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    }
    _exit(128 + signal);
  }
  if (StopRequested()) _exit(128 + signal);  // the second: now
  RequestStop(signal);
  if (announce_stop) {
    static const char kMessage[] =
        "\nrocesim: stopping at the next window to write partial results (again to quit "
        "at once, writing nothing)\n";
    (void)!::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  }
}

}  // namespace

int StoppedExitStatus() {
  return 128 + (StopSignal() != 0 ? StopSignal() : SIGINT);
}

void InstallStopSignals(bool announce) {
  announce_stop = announce ? 1 : 0;
  in_setup = 1;
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

void StopSignalsAtWindows() {
  in_setup = 0;
}

void StopSignalsWatchRanks(std::span<const RankExchange::LocalRank> ranks) {
  watched_count = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  const size_t n = std::min(ranks.size(), kMostWatched);
  for (size_t i = 0; i < n; ++i) {
    WatchedRank& w = watched[i];
    w.pid = ranks[i].pid;
    const std::string line = fmt::format(
        "\nrocesim: rank {} (pid {}) ended mid-run (killed?): this job ends, writing nothing\n",
        ranks[i].rank, ranks[i].pid);
    w.length = std::min(line.size(), sizeof w.line);
    std::copy_n(line.data(), w.length, w.line);
  }
  std::atomic_signal_fence(std::memory_order_seq_cst);
  watched_count = static_cast<sig_atomic_t>(n);
}

void StopSignalsAfterFailure() {
  failed = 1;
}

}  // namespace rocesim
