// Sleeping until a 32-bit atomic word changes, and waking whoever sleeps on
// it, for threads of one process and for processes that map the word's
// memory (MPI ranks on one machine: apps/mpi_node_window.h). C++20's
// atomic wait cannot serve the second: libstdc++ waits with a futex private
// to the process, keyed by its address space, which another process's wake
// never reaches. On Linux this is the futex without FUTEX_PRIVATE_FLAG, keyed
// by the page the word lives on; elsewhere it is the atomic wait (one
// process only, where nothing shares memory across processes).
#pragma once

#include <atomic>
#include <cstdint>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#endif

namespace rocesim {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
                  std::atomic<uint32_t>::is_always_lock_free,
              "a futex is a plain 32-bit word");

// Returns once `word` may no longer hold `value` (spuriously too: callers
// re-check).
inline void SleepWhileEquals(std::atomic<uint32_t>& word, uint32_t value) {
#ifdef __linux__
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT, value, nullptr, nullptr, 0);
#else
  word.wait(value, std::memory_order_seq_cst);
#endif
}

inline void WakeAllSleepers(std::atomic<uint32_t>& word) {
#ifdef __linux__
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
#else
  word.notify_all();
#endif
}

}  // namespace rocesim
