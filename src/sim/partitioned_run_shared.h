// PartitionedRun's state shared by the threads of one process
// (sim/partitioned_run.cpp runs the windows on it; sim/partitioned_merge.cpp
// reads how the run ended). Internal to PartitionedRun.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "sim/mpi_launch_env.h"
#include "sim/partitioned_run.h"
#include "sim/spin_barrier.h"

namespace rocesim {

// What the threads of one machine share: the per-partition outboxes live in
// each replica's Fabric; these are what each partition publishes after a
// window (in two slots, by window parity, for the reason the outboxes
// alternate) and what the job agreed on.
struct PartitionedRun::Shared {
  // The threads spin long only if each has a core: the cores this process
  // may count on are its affinity mask's, or, when that is the whole
  // machine, its share with the other ranks mpirun started there or the
  // sweep's other points (what --threads auto takes). Three ranks of 2
  // threads on 2 cores, each counting both cores, spun 1 ms a window: 26.8 s
  // for rcm-victim, whose serial run takes 0.24 s.
  Shared(uint32_t threads, uint32_t partitions)
      : sync(threads, SpinBarrier::ForCores(threads, AutoThreadsHere())) {
    for (Slot& s : slots) {
      s.next.resize(partitions);
      s.finished.resize(partitions);
      s.bytes_finished.resize(partitions);
      s.events.resize(partitions);
      s.window_events.resize(partitions);
    }
    for (auto& c : claims) c = std::make_unique<Claim[]>(threads);
  }
  struct Slot {
    std::vector<Time> next;               // per local partition: its earliest pending event
    std::vector<uint64_t> finished;       // ... flows finished
    std::vector<int64_t> bytes_finished;  // ... and their bytes (progress line only)
    std::vector<uint64_t> events;         // ... events counted
    // ... of them in the window. Not derived from the other slot's counts:
    // that slot is the one the next window publishes into, which a fast
    // thread may do while a slow one is still agreeing on this window.
    std::vector<uint64_t> window_events;
    bool stop = false;                // thread 0 saw a stop request (one reader: one answer)
    std::atomic<bool> failed{false};  // a partition threw in the window (RunThread)
  };
  std::array<Slot, 2> slots;
  SpinBarrier sync;
  // Per thread, by phase parity (a window is one phase, and one more per
  // deadlock sample in it): how far the phase's claims have got through the
  // thread's own partitions (PartitionedRun::ClaimPartition).
  struct alignas(64) Claim {
    std::atomic<uint32_t> next{0};
  };
  std::array<std::unique_ptr<Claim[]>, 2> claims;

  // MPI: the job's agreement, filled by thread 0 between two barriers.
  WindowAgreement global;
  bool last_window_clipped = false;  // the last window ran only up to the duration
  bool interrupted = false;          // the partitions agreed to stop early
  bool failed = false;               // ... or to end because a partition failed
  // A partition that threw in a phase: its exception (per thread: the first
  // it met), and which partitions threw (per local partition: they run no
  // more of the window).
  std::vector<std::exception_ptr> failures;
  std::vector<uint8_t> failed_parts;
  // The deadlock detector's samples: each partition's, then everyone's.
  std::vector<DeadlockSample> samples;
  std::vector<DeadlockSample> all_samples;
};

}  // namespace rocesim
