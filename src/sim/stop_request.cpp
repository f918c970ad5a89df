#include "sim/stop_request.h"

#include <atomic>

namespace rocesim {
namespace {
// Lock-free, so a signal handler may store into it.
std::atomic<int> stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);
}  // namespace

void RequestStop(int signal) {
  stop_signal.store(signal, std::memory_order_relaxed);
}

bool StopRequested() {
  return stop_signal.load(std::memory_order_relaxed) != 0;
}

int StopSignal() {
  return stop_signal.load(std::memory_order_relaxed);
}

}  // namespace rocesim
