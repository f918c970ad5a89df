// Tests of the partitioned run's barrier (sim/spin_barrier.h): no thread
// leaves a round before every thread has arrived, whether the waiters are
// still spinning or already asleep when the last one comes (a lost wake-up
// would hang the waiters: a watchdog fails the test after 60 s); the
// spin budget follows the threads-to-cores count, and a long spin that runs
// out backs off to the short one for a while; Abort stops every waiter;
// and UsableCores (core/usable_cores.h) follows the thread's affinity mask.
// The same holds for processes meeting on words in shared memory.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "core/usable_cores.h"
#include "sim/spin_barrier.h"

namespace rocesim {
namespace test_spin_barrier {
namespace {

// `threads` threads meet `rounds` times; before each meeting every thread
// counts itself into the round's tally, and after it each checks the tally
// is complete. A slow thread (every 7th round, thread 0 sleeps a little)
// makes the others outlast a short spin budget and sleep.
void RunRounds(uint32_t threads, std::chrono::nanoseconds budget, uint32_t rounds) {
  SpinBarrier barrier(threads, budget);
  std::vector<std::atomic<uint32_t>> tally(rounds);
  std::atomic<uint32_t> early{0};
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (uint32_t r = 0; r < rounds; ++r) {
        if (t == 0 && r % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(60));
        tally[r].fetch_add(1, std::memory_order_relaxed);
        barrier.Wait();
        if (tally[r].load(std::memory_order_relaxed) != threads) early.fetch_add(1);
      }
    });
  // A lost wake-up hangs the waiters: fail at once rather than at ctest's
  // timeout (the hung threads cannot be joined, so the process ends here).
  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!done.load() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!done.load()) {
      std::fprintf(stderr, "SpinBarrier: %u threads still waiting after 60 s (a lost wake-up)\n",
                   threads);
      std::_Exit(1);
    }
  });
  for (std::thread& th : pool) th.join();
  done = true;
  watchdog.join();
  EXPECT_EQ(early.load(), 0u);
  for (uint32_t r = 0; r < rounds; ++r) EXPECT_EQ(tally[r].load(), threads) << "round " << r;
}

TEST(SpinBarrier, NobodyLeavesBeforeAllArriveWhileSpinning) {
  RunRounds(2, std::chrono::milliseconds(1), 2000);
}

TEST(SpinBarrier, NobodyLeavesBeforeAllArriveWhenWaitersSleep) {
  // A zero budget: every waiter goes to sleep at its first clock read.
  RunRounds(3, std::chrono::nanoseconds(0), 2000);
}

TEST(SpinBarrier, MoreThreadsThanCoresStillMeet) {
  RunRounds(8, SpinBarrier::ForCores(8, 2), 500);
}

// Abort wakes the waiters, spinning or asleep, with Aborted, and every
// later Wait throws it too.
TEST(SpinBarrier, AbortStopsEveryWaiter) {
  for (const auto budget : {std::chrono::nanoseconds(0), std::chrono::nanoseconds(1'000'000)}) {
    SpinBarrier barrier(3, budget);
    std::atomic<uint32_t> aborted{0};
    std::vector<std::thread> waiters;
    for (int i = 0; i < 2; ++i)
      waiters.emplace_back([&] {
        try {
          barrier.Wait();
        } catch (const SpinBarrier::Aborted&) {
          aborted.fetch_add(1);
        }
      });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    barrier.Abort();
    for (std::thread& w : waiters) w.join();
    EXPECT_EQ(aborted.load(), 2u) << "budget " << budget.count() << " ns";
    EXPECT_THROW(barrier.Wait(), SpinBarrier::Aborted);
  }
}

// MPI ranks on one machine meet on barrier words in memory they all map
// (apps/mpi_node_window.h): here, processes forked over an anonymous shared
// mapping, each with its own SpinBarrier on the same words. With no spin
// budget every waiter sleeps at once, so a wake-up that does not cross the
// process boundary (a process-private futex) hangs them: alarm() ends a hung
// child, and the test fails.
void RunRoundsInProcesses(uint32_t processes, std::chrono::nanoseconds budget, uint32_t rounds) {
  struct Shared {
    BarrierWords words;
    std::atomic<uint32_t> tally[4000];
  };
  ASSERT_LE(rounds, 4000u);
  void* mem =
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  Shared* sh = new (mem) Shared();
  std::vector<pid_t> children;
  for (uint32_t p = 0; p < processes; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      alarm(60);
      SpinBarrier barrier(processes, budget, sh->words);
      uint32_t early = 0;
      for (uint32_t r = 0; r < rounds; ++r) {
        if (p == 0 && r % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(60));
        sh->tally[r].fetch_add(1, std::memory_order_relaxed);
        barrier.Wait();
        if (sh->tally[r].load(std::memory_order_relaxed) != processes) ++early;
      }
      _exit(early == 0 ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << (WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                : "left a round early");
  }
  for (uint32_t r = 0; r < rounds; ++r) EXPECT_EQ(sh->tally[r].load(), processes) << "round " << r;
  munmap(mem, sizeof(Shared));
}

TEST(SpinBarrier, ProcessesSharingTheWordsMeetWhileSpinning) {
  RunRoundsInProcesses(2, std::chrono::milliseconds(1), 2000);
}

TEST(SpinBarrier, ProcessesSharingTheWordsWakeEachOther) {
  RunRoundsInProcesses(3, std::chrono::nanoseconds(0), 2000);
}

TEST(SpinBarrier, BudgetFollowsThreadsPerCore) {
  EXPECT_EQ(SpinBarrier::ForCores(2, 2), std::chrono::milliseconds(1));
  EXPECT_EQ(SpinBarrier::ForCores(1, 16), std::chrono::milliseconds(1));
  EXPECT_EQ(SpinBarrier::ForCores(3, 2), std::chrono::microseconds(20));
  EXPECT_EQ(SpinBarrier::ForCores(2, 1), std::chrono::microseconds(20));
}

// Two long spins that run out in windows less than 64 apart (the other
// thread arrives 250 ms late) are taken for contention: the barrier's next
// 1,024 windows spin only 20 us, then the long budget returns. One alone is
// not, nor is a short budget running out. The long budget is 100 ms here
// rather than 1 ms, so that a loaded machine (the sanitizers' suite, two
// tests at once) cannot run a long spin out in the rounds between.
TEST(SpinBarrier, LongSpinsThatRunOutBackOffForAWhile) {
  using std::chrono::microseconds;
  using std::chrono::milliseconds;
  SpinBarrier barrier(2, milliseconds(100));
  EXPECT_EQ(barrier.SpinBudgetNow(), milliseconds(100));
  auto late_round = [&] {
    std::thread late([&] {
      std::this_thread::sleep_for(milliseconds(250));
      barrier.Wait();
    });
    barrier.Wait();
    late.join();
  };
  auto rounds = [&](int n) {
    std::thread other([&] {
      for (int r = 0; r < n; ++r) barrier.Wait();
    });
    for (int r = 0; r < n; ++r) barrier.Wait();
    other.join();
  };
  late_round();  // window 0
  EXPECT_EQ(barrier.Backoffs(), 0u);
  EXPECT_EQ(barrier.SpinBudgetNow(), milliseconds(100));
  rounds(10);
  late_round();  // window 11
  EXPECT_EQ(barrier.Backoffs(), 1u);
  EXPECT_EQ(barrier.SpinBudgetNow(), microseconds(20));
  rounds(1022);  // windows 12 to 1033: up to 11 + 1,023
  EXPECT_EQ(barrier.SpinBudgetNow(), microseconds(20));
  rounds(1);
  EXPECT_EQ(barrier.SpinBudgetNow(), milliseconds(100));
  EXPECT_EQ(barrier.Backoffs(), 1u);
  rounds(100);
  late_round();  // more than 64 windows after window 11's
  EXPECT_EQ(barrier.Backoffs(), 1u);
  EXPECT_EQ(barrier.SpinBudgetNow(), milliseconds(100));

  // Two late windows in a row: were short spins counted, they would back off.
  SpinBarrier crowded(2, SpinBarrier::ForCores(3, 2));
  std::thread slow([&] {
    for (int r = 0; r < 2; ++r) {
      std::this_thread::sleep_for(milliseconds(5));
      crowded.Wait();
    }
  });
  for (int r = 0; r < 2; ++r) crowded.Wait();
  slow.join();
  EXPECT_EQ(crowded.Backoffs(), 0u);
  EXPECT_EQ(crowded.SpinBudgetNow(), microseconds(20));
}

TEST(UsableCores, FollowsTheAffinityMask) {
  const uint32_t all = UsableCores();
  EXPECT_GE(all, 1u);
  uint32_t pinned = 0;
  std::thread probe([&] {
    cpu_set_t one;
    CPU_ZERO(&one);
    cpu_set_t mine;
    ASSERT_EQ(sched_getaffinity(0, sizeof(mine), &mine), 0);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &mine)) {
        CPU_SET(c, &one);
        break;
      }
    ASSERT_EQ(pthread_setaffinity_np(pthread_self(), sizeof(one), &one), 0);
    pinned = UsableCores();
  });
  probe.join();
  EXPECT_EQ(pinned, 1u);
}

}  // namespace
}  // namespace test_spin_barrier
}  // namespace rocesim
