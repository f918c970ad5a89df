#include "apps/stop_signals.h"

#include <unistd.h>

#include <csignal>

#include "sim/stop_request.h"

namespace rocesim {
namespace {

volatile sig_atomic_t announce_stop = 0;
volatile sig_atomic_t in_setup = 0;
volatile sig_atomic_t failed = 0;

extern "C" void OnStopSignal(int signal) {
  if (failed) _exit(128 + signal);  // the failure was said; nothing is kept
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

void StopSignalsAfterFailure() {
  failed = 1;
}

}  // namespace rocesim
