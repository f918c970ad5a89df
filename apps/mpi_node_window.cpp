#include "apps/mpi_node_window.h"

#ifdef ROCESIM_HAVE_MPI
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/units.h"
#include "core/usable_cores.h"

namespace rocesim {

namespace {

constexpr size_t kBarrierBytes = 4096;  // rank 0's part starts with the barrier's words
constexpr size_t kCacheLine = 64;
static_assert(alignof(BarrierWords) <= kCacheLine);
static_assert(sizeof(BarrierWords) <= kBarrierBytes);

// Bytes free in /dev/shm, where OpenMPI backs shared windows (no limit
// where there is no /dev/shm: OpenMPI then uses its session directory).
size_t SharedMemoryRoom() {
  struct statvfs fs;
  if (statvfs("/dev/shm", &fs) != 0) return SIZE_MAX;
  return static_cast<size_t>(fs.f_bavail) * fs.f_frsize;
}

// The largest file this process may write (`ulimit -f`; SIZE_MAX: no limit).
size_t FileSizeLimit() {
  struct rlimit limit;
  if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return SIZE_MAX;
  return static_cast<size_t>(limit.rlim_cur);
}

}  // namespace

NodeWindow::Settings NodeWindow::FromEnvironment() {
  Settings s;
  if (const char* v = std::getenv("ROCESIM_MPI_EXCHANGE")) {
    if (std::string(v) == "messages")
      s.shared = false;
    else if (std::string(v) != "shared")
      throw std::runtime_error(fmt::format(
          "ROCESIM_MPI_EXCHANGE is '{}'; it must be 'shared' (ranks on one machine exchange "
          "through shared memory, the default) or 'messages' (always by MPI message)",
          v));
  }
  if (const char* v = std::getenv("ROCESIM_MPI_SLOT_BYTES")) {
    constexpr int64_t kMost = int64_t{1} << 40;
    int64_t n = 0;
    try {
      n = ParseSize(v);
    } catch (const UnitError&) {
      n = 0;
    }
    if (n <= 0 || n > kMost)
      throw std::runtime_error(fmt::format(
          "ROCESIM_MPI_SLOT_BYTES is '{}'; it must be a size from 1 byte to {} bytes (\"4194304\", "
          "\"4MiB\"; the default is {})",
          v, kMost, s.slot_bytes));
    s.slot_bytes = (static_cast<size_t>(n) + 63) / 64 * 64;
  }
  return s;
}

std::unique_ptr<NodeWindow> NodeWindow::IfEveryRankIsHere(const Settings& settings,
                                                          uint32_t threads) {
  // Every rank reads the same environment (the launcher's); agreeing on it
  // anyway costs one reduction, once.
  int wanted = settings.shared ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &wanted, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int world = 0, here = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_size(node, &here);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Every rank sees here < world when any is elsewhere, so all agree. With
  // every rank here (and key 0), the node's ranks are the world's.
  if (!wanted || here != world) {
    MPI_Comm_free(&node);
    return nullptr;
  }
  std::unique_ptr<NodeWindow> w(new NodeWindow());
  w->capacity_ = settings.slot_bytes;
  const size_t slots = 2 * (kHeaderBytes + w->capacity_);
  // MPI aligns each rank's part to 8 bytes only: a cache line more lets
  // the barrier's words and the slots start on one.
  const size_t mine = (rank == 0 ? kBarrierBytes + slots : slots) + kCacheLine;
  // OpenMPI backs the window with a file in /dev/shm, whose pages are taken
  // as the slots fill: past the space left there a write would end the rank
  // with SIGBUS mid-run. And a rank that may not write a file that large
  // (`ulimit -f`) fails to make the window, where OpenMPI 4 leaves the
  // other ranks waiting inside the call forever (seen: rank 0 under `ulimit
  // -f 20000` hung the job). Either way, exchange by message instead, and
  // say so; every rank checks its own limits and all agree.
  const size_t need = static_cast<size_t>(world) * (slots + kCacheLine) + kBarrierBytes;
  const size_t room = SharedMemoryRoom(), largest_file = FileSizeLimit();
  constexpr size_t kFileSlack = size_t{1} << 20;  // the segment's own header and page rounding
  int fits[2] = {room >= need ? 1 : 0, largest_file >= need + kFileSlack ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, fits, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!fits[0] || !fits[1]) {
    if (rank == 0)
      fmt::print(stderr,
                 "rocesim: note: {} and the ranks' shared slots take up to {} MiB: windows go by "
                 "MPI message (ROCESIM_MPI_SLOT_BYTES makes the slots smaller)\n",
                 !fits[0] ? fmt::format("/dev/shm has {} MiB free", room >> 20)
                          : "a rank may not write a file that large (ulimit -f)",
                 (need + (size_t{1} << 20) - 1) >> 20);
    MPI_Comm_free(&node);
    return nullptr;
  }
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "alloc_shared_noncontig", "true");  // each rank's part on its own pages
  char* own = nullptr;
  // An MPI without a shared-memory window for this machine (or without the
  // memory) leaves the ranks to exchange by message: every rank must agree.
  MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
  int made = MPI_Win_allocate_shared(static_cast<MPI_Aint>(mine), 1, info, node, &own, &w->win_) ==
             MPI_SUCCESS;
  MPI_Info_free(&info);
  MPI_Allreduce(MPI_IN_PLACE, &made, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!made) {
    // Not freed where it was made: freeing is collective, and the ranks
    // that failed would not join it.
    w->win_ = MPI_WIN_NULL;
    MPI_Comm_free(&node);
    return nullptr;
  }
  w->base_ = std::make_unique<char*[]>(static_cast<size_t>(world));
  BarrierWords* words = nullptr;
  for (int r = 0; r < world; ++r) {
    MPI_Aint size = 0;
    int unit = 0;
    char* at = nullptr;
    MPI_Win_shared_query(w->win_, r, &size, &unit, &at);
    at += (kCacheLine - reinterpret_cast<uintptr_t>(at) % kCacheLine) % kCacheLine;
    if (r == 0) {
      words = reinterpret_cast<BarrierWords*>(at);
      at += kBarrierBytes;
    }
    w->base_[static_cast<size_t>(r)] = at;
  }
  MPI_Comm_free(&node);  // the window keeps what it needs
  // Rank 0 makes the barrier's words; everyone sees them after the fence.
  MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win_);
  if (rank == 0) new (words) BarrierWords();
  MPI_Win_sync(w->win_);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(w->win_);
  // Spin as the threads' barrier does: long while every thread of every
  // rank has a core, briefly when they outnumber the machine's cores or a
  // rank's threads its own (mpirun binds each rank to one core by default).
  const auto ranks = static_cast<uint32_t>(world);
  const uint32_t cores =
      std::min(std::max(1u, std::thread::hardware_concurrency()), ranks * UsableCores());
  w->barrier_.emplace(ranks, SpinBarrier::ForCores(ranks * threads, cores), *words);
  return w;
}

NodeWindow::~NodeWindow() {
  if (win_ == MPI_WIN_NULL) return;
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
}

}  // namespace rocesim
#endif
