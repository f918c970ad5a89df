// A barrier for the threads of a partitioned run (sim/partitioned_run.h),
// which meet once per window, thousands of times per simulated millisecond.
// std::barrier parks a waiting thread in the kernel at once, and waking it
// costs tens of microseconds, as much as a window's work; most waits here
// are far shorter (k8 WebSearch, 2 threads: median 0.4-1.5 us, 99th
// percentile 67-146 us). So a thread first spins (with the CPU's pause
// hint) for up to a spin budget, and only then sleeps on the generation
// word (a futex, through C++20 atomic wait).
//
// The budget is the caller's (ForCores below): with a core for every
// thread, sleeping early only adds a wake-up to the slower partition's
// path (fat320, 2 threads on 2 cores: 5% slower with a 20 us budget), so a
// thread spins up to 1 ms and sleeps only when something else holds the
// cores; with more threads than cores a spinning thread holds the core that
// the thread it waits for needs, so it sleeps after 20 us (k8, 4 threads on
// 2 cores: 3.7 s against 8.5 s when it spun and yielded).
//
// What the run cannot see: other programs on the machine, such as a second
// run started beside it (`--threads auto` twice, ctest -j2). Then a thread
// spinning 1 ms holds a core that a thread of its own run needs; two
// rcm-victim runs of 2 threads at once on 2 cores took 8.1 s, against 0.16
// s for one alone. A long spin that runs out (a wait past 1 ms) is rare
// with a core per thread (fat320's waits have a 99th percentile near 100
// us; a run alone on this VM met one every 2,000-4,000 windows, and in its
// first window), and frequent under contention, where the thread waited for
// is off its core. So two long spins that run out within kSuspectWindows
// windows are taken for contention, and the next kBackoffWindows windows
// spin only the short budget; a run that keeps meeting them stays short. A
// run whose windows really are that uneven then sleeps through its long
// waits, which costs a wake-up (tens of microseconds) against a wait of a
// millisecond or more.
//
// A thread that fails outside a partition's work (a partition's own
// failure is agreed with its window: sim/partitioned_run.h) calls Abort:
// every thread waiting, and every later Wait, throws Aborted, so the others
// stop instead of waiting for it forever.
//
// The barrier's words live in the barrier, or (MPI ranks on one machine,
// apps/mpi_node_window.h) in memory the processes share: then the
// participants are processes, each with its own SpinBarrier on the same
// words, and sleeping uses a futex that other processes can wake
// (sim/futex_word.h).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>

#include "sim/futex_word.h"

namespace rocesim {

// A barrier's state. Lock-free atomics of fixed size, so that it works in
// memory mapped by several processes; zero-initialised is a fresh barrier.
struct BarrierWords {
  alignas(64) std::atomic<uint32_t> arrived{0};
  alignas(64) std::atomic<uint32_t> generation{0};
  alignas(64) std::atomic<uint32_t> sleepers{0};
  std::atomic<uint32_t> aborted{0};
};

class SpinBarrier {
 public:
  SpinBarrier(uint32_t threads, std::chrono::nanoseconds spin_budget)
      : SpinBarrier(threads, spin_budget, own_) {}
  // On words somewhere else (shared memory), which must outlive the barrier.
  SpinBarrier(uint32_t threads, std::chrono::nanoseconds spin_budget, BarrierWords& words)
      : threads_(threads), spin_budget_(spin_budget), w_(words) {}
  SpinBarrier(const SpinBarrier&) = delete;
  SpinBarrier& operator=(const SpinBarrier&) = delete;

  // The short spin budget, and how many windows use it after two long spins
  // ran out close together (contention: see the top of the file).
  static constexpr std::chrono::nanoseconds kShortSpin = std::chrono::microseconds(20);
  static constexpr uint32_t kBackoffWindows = 1024;

  // The budget for `threads` threads on `cores` usable cores.
  static std::chrono::nanoseconds ForCores(uint32_t threads, uint32_t cores) {
    using std::chrono::microseconds;
    return threads <= cores ? microseconds(1000) : kShortSpin;
  }

  // How long a waiting thread spins before it sleeps, with a core per thread.
  std::chrono::nanoseconds SpinBudget() const { return spin_budget_; }
  // How long it spins in the barrier's next window (shorter after a long
  // spin ran out: contention).
  std::chrono::nanoseconds SpinBudgetNow() const {
    return BudgetFor(w_.generation.load(std::memory_order_acquire));
  }
  // How many times the barrier backed off to short spins for
  // kBackoffWindows windows.
  uint64_t Backoffs() const { return backoffs_.load(std::memory_order_relaxed); }

  struct Aborted : std::exception {
    const char* what() const noexcept override { return "another partition of the run failed"; }
  };

  void Abort() {
    w_.aborted.store(1, std::memory_order_seq_cst);
    w_.generation.fetch_add(1, std::memory_order_seq_cst);
    WakeAllSleepers(w_.generation);
  }

  void Wait() {
    if (w_.aborted.load(std::memory_order_acquire)) throw Aborted();
    const uint32_t generation = w_.generation.load(std::memory_order_acquire);
    if (w_.arrived.fetch_add(1, std::memory_order_acq_rel) == threads_ - 1) {
      w_.arrived.store(0, std::memory_order_relaxed);
      // seq_cst with the sleepers' count (a Dekker pair): either a sleeper
      // counted itself before this increment, and is woken, or it sees the
      // new generation before it sleeps.
      w_.generation.fetch_add(1, std::memory_order_seq_cst);
      if (w_.sleepers.load(std::memory_order_seq_cst) != 0) WakeAllSleepers(w_.generation);
      return;
    }
    const std::chrono::nanoseconds budget = BudgetFor(generation);
    const bool long_spin = budget > kShortSpin;
    const auto spin_until = std::chrono::steady_clock::now() + budget;
    for (uint32_t spins = 1; w_.generation.load(std::memory_order_acquire) == generation; ++spins) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
      if (spins % kSpinsPerClockRead == 0 && std::chrono::steady_clock::now() >= spin_until) {
        if (long_spin) RanOutOfLongSpin(generation);
        w_.sleepers.fetch_add(1, std::memory_order_seq_cst);
        while (w_.generation.load(std::memory_order_seq_cst) == generation)
          SleepWhileEquals(w_.generation, generation);
        w_.sleepers.fetch_sub(1, std::memory_order_relaxed);
        break;
      }
    }
    if (w_.aborted.load(std::memory_order_acquire)) throw Aborted();
  }

 private:
  static constexpr uint32_t kSpinsPerClockRead = 16;  // a clock read is ~20 ns, a pause ~40
  static constexpr uint32_t kSuspectWindows = 64;
  // Backs off when the long spin of window `generation` ran out within
  // kSuspectWindows windows of the last window whose long spin did (two
  // waiters of one window are one slow thread, not contention).
  void RanOutOfLongSpin(uint32_t generation) {
    const uint32_t last = last_run_out_.load(std::memory_order_relaxed);
    if (generation == last) return;  // another waiter of the same window
    last_run_out_.store(generation, std::memory_order_relaxed);
    if (generation - last >= kSuspectWindows) return;
    backoff_until_.store(generation + kBackoffWindows, std::memory_order_relaxed);
    backoffs_.fetch_add(1, std::memory_order_relaxed);
  }
  // The spin budget of the window of `generation`: the short one while it
  // is one of the kBackoffWindows before backoff_until_ (counted modulo 2^32,
  // as the generation wraps around).
  std::chrono::nanoseconds BudgetFor(uint32_t generation) const {
    const uint32_t ahead = backoff_until_.load(std::memory_order_relaxed) - generation;
    return ahead - 1 < kBackoffWindows ? std::min(spin_budget_, kShortSpin) : spin_budget_;
  }
  const uint32_t threads_;
  const std::chrono::nanoseconds spin_budget_;
  // This process's view of contention (each process sharing the words has
  // its own): the generation before which waits spin short, the last window
  // whose long spin ran out, and how many back-offs there were.
  std::atomic<uint32_t> backoff_until_{0};
  std::atomic<uint32_t> last_run_out_{UINT32_MAX / 2};  // far from any early window
  std::atomic<uint64_t> backoffs_{0};
  BarrierWords own_;  // unused when the words are elsewhere
  BarrierWords& w_;
};

}  // namespace rocesim
