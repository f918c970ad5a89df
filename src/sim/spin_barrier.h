// A barrier for the threads of a partitioned run (sim/partitioned_run.h),
// which meet two or three times per window, thousands of times per simulated
// millisecond. std::barrier parks a waiting thread in the kernel, and waking
// it costs tens of microseconds, as much as a window's work; here a thread
// spins (with the CPU's pause hint) and yields its core only after a while,
// so that a run with more threads than cores still makes progress.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>

namespace rocesim {

class SpinBarrier {
 public:
  explicit SpinBarrier(uint32_t threads) : threads_(threads) {}
  void Wait() {
    const uint32_t generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) == threads_ - 1) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
      return;
    }
    for (uint32_t spins = 0; generation_.load(std::memory_order_acquire) == generation; ++spins) {
      if (spins < kSpinsBeforeYield) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      } else {
        std::this_thread::yield();
      }
    }
  }

 private:
  static constexpr uint32_t kSpinsBeforeYield = 1 << 14;
  const uint32_t threads_;
  alignas(64) std::atomic<uint32_t> arrived_{0};
  alignas(64) std::atomic<uint32_t> generation_{0};
};

}  // namespace rocesim
