// The routing tables a link_down fault's convergence recomputes (around the
// links down then), built once per process for every replica of a
// partitioned run. Each replica runs the same recomputations at the same
// simulated instants, in the same (canonical) order, from the same links,
// so its n-th recomputation is every other replica's n-th: the first
// replica to reach it builds the tables, with the run's threads (the others
// will stop there too), and the rest wait for them and share them (copies
// of a Routing share its tables). Each replica used to build its own, one
// at a time: a k=64 fat tree with 8 partitions on 2 threads spent 16
// CPU-seconds and 460 MB on one link_down and its repair, where the serial
// run spent 2 CPU-seconds and 77 MB (it searches with TableThreads, as the
// layout does).
//
// Each recomputation is built as sim/built_once.h says. Once every replica
// has taken its tables, the slot lets them go: a replica holds them for as
// long as they are its routes.
#pragma once

#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "sim/built_once.h"
#include "topo/routing.h"

namespace rocesim {

class SharedRoutes {
 public:
  // The recomputed routes, or none: a host cut off (its own link down) has
  // no route either way, and every replica keeps its old tables.
  using Product = std::optional<Routing>;

  // `replicas` replicas take every recomputation; `threads` build one.
  SharedRoutes(uint32_t replicas, uint32_t threads) : replicas_(replicas), threads_(threads) {}

  // Recomputation `n` of this replica (counted from 0): built here by
  // `build(threads)` if this replica is the first to reach it, else the
  // first one's.
  template <class BuildFn>
  Product Take(uint64_t n, BuildFn&& build) {
    std::unique_lock lock(mutex_);
    Slot& slot = slots_[n];  // a map's entries stay put while others come and go
    lock.unlock();
    if (slot.routes.Claim()) {
      try {
        slot.routes.Give(build(threads_));
      } catch (...) {
        slot.routes.Fail(std::current_exception());
      }
    }
    Product routes = slot.routes.Take();  // throws the builder's failure
    lock.lock();
    if (++slot.taken == replicas_) slots_.erase(n);
    return routes;
  }

  // Recomputations some replica has begun and not every replica has taken.
  size_t Pending() const {
    std::lock_guard lock(mutex_);
    return slots_.size();
  }

 private:
  struct Slot {
    BuiltOnce<Product> routes;
    uint32_t taken = 0;  // under mutex_
  };
  const uint32_t replicas_;
  const uint32_t threads_;
  mutable std::mutex mutex_;
  std::map<uint64_t, Slot> slots_;
};

}  // namespace rocesim
