// Shared memory for the ranks of an MPI job that all run on one machine:
// one MPI-3 shared-memory window (MPI_Win_allocate_shared) that every rank
// maps, holding a barrier (sim/spin_barrier.h, on words in the window) and,
// per rank, two slots, one per window parity, into which the rank writes
// what it tells the others after a simulation window. The others read it in
// place after the barrier, as the threads of one process read each other's
// outboxes (apps/mpi_rank_exchange.cpp). Two slots by parity, for the same
// reason as the threads' two outbox sets: a rank writes window w + 1's slot
// while a slower rank may still read window w's, and nobody writes window
// w + 2's (the first slot again) before everyone passed window w + 1's
// barrier, that is, finished reading window w's.
//
// A slot holds a fixed number of bytes (ROCESIM_MPI_SLOT_BYTES, default 4
// MiB); a window whose frames do not fit is sent by message instead, and the
// slot says so. Only built with MPI.
#pragma once

#ifdef ROCESIM_HAVE_MPI
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "sim/spin_barrier.h"

namespace rocesim {

class NodeWindow {
 public:
  // What a rank's slot says about its contents.
  struct SlotHeader {
    uint64_t bytes;       // the message's length
    uint64_t by_message;  // 1: too long for the slot, sent by MPI message instead
  };

  // What the environment asks for (read before MPI starts, so that a bad
  // value ends the rank before it joins the job): ROCESIM_MPI_EXCHANGE,
  // "shared" (the default) or "messages"; ROCESIM_MPI_SLOT_BYTES, a size
  // (core/units.h: "4194304", "4MiB"), rounded up to a cache line. Throws
  // std::runtime_error naming a bad one.
  struct Settings {
    bool shared = true;
    size_t slot_bytes = size_t{4} << 20;
  };
  static Settings FromEnvironment();

  // Collective over MPI_COMM_WORLD. The window, when every rank of the job
  // runs on this machine and `settings` asks for shared memory; otherwise
  // null. `threads` is each rank's partition threads, for the barrier's
  // spin budget.
  static std::unique_ptr<NodeWindow> IfEveryRankIsHere(const Settings& settings, uint32_t threads);
  ~NodeWindow();  // frees the window: before MPI_Finalize
  NodeWindow(const NodeWindow&) = delete;
  NodeWindow& operator=(const NodeWindow&) = delete;

  SlotHeader& Header(uint32_t rank, uint32_t parity) const {
    return *reinterpret_cast<SlotHeader*>(SlotStart(rank, parity));
  }
  char* Payload(uint32_t rank, uint32_t parity) const {
    return SlotStart(rank, parity) + kHeaderBytes;
  }
  size_t Capacity() const { return capacity_; }
  // Every rank's thread 0 meets here once per window.
  void Barrier() { barrier_->Wait(); }

 private:
  NodeWindow() = default;
  static constexpr size_t kHeaderBytes = 64;  // SlotHeader, padded to a cache line
  char* SlotStart(uint32_t rank, uint32_t parity) const {
    return base_[rank] + parity * (kHeaderBytes + capacity_);
  }

  MPI_Win win_ = MPI_WIN_NULL;
  size_t capacity_ = 0;
  std::unique_ptr<char*[]> base_;  // per rank: its part of the window
  std::optional<SpinBarrier> barrier_;
};

}  // namespace rocesim
#endif
