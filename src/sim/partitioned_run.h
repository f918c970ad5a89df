// One simulation across cores: a partitioned, conservatively synchronised
// run whose results are byte-identical to the serial run's (DESIGN.md §5).
//
// Each partition (sim/partition.h) is a Simulation built from the same
// scenario on the shared layout (net/fabric_layout.h) that holds and runs
// only its own nodes (Simulation's partition constructor). Frames launched
// onto cut links are handed over (net/cross_link.cpp). Partitions run in windows of
// Simulation::quantum() picoseconds, each opened at the earliest event pending anywhere (so empty
// stretches are skipped): every partition runs its events of the window, the
// partitions exchange the frames that crossed cut links, agree on the next
// window's start and on how many flows have finished, and stop where the
// serial run stops, at the end of the window in which the last flow finished.
// Same-time events follow the canonical order (core/event.h), so every node
// sees its events in the serial run's order whatever the cut.
//
// Threads exchange through shared memory: each partition writes its frames
// into one outbox per destination, and a barrier separates writing from
// reading. Ranks of an MPI job (apps/mpi_rank_exchange.h) each run one or more of
// these thread partitions and exchange between ranks at the same barriers.
//
// A machine may hold more partitions than threads (`--partitions`): each
// window a thread runs its own partitions, then takes any that another
// thread has not begun. A partition keeps to its thread unless its thread
// falls behind, so its state stays in that core's caches; and a fabric cut
// finer than the thread count has partitions small enough to fit them
// (bench/NOTES.md, eighteenth session: k32 on 2 threads 31.7 s with 2
// partitions, 23.5 s with 8), which is why a run that names no count gets
// more partitions than threads on a large fabric (sim/partition.h).
//
// What each partition holds: its own nodes' ports (and the far ends of
// their links, where frames from other partitions land), its switches' MMU
// and queue state, the NICs of the hosts whose ports it holds, its
// senders' congestion control, its frames and events
// (core/held_array.h: the ports it does not hold take no memory). Shared
// read-only by the threads of one machine (each MPI rank has its own copy):
// the fabric's layout (net/fabric_layout.h: nodes, links, adjacency) and the
// intact fabric's routing tables; a link_down fault's route recomputation
// gives each partition a private copy from then on, as every partition
// recomputes at the same simulated instant. Replicated in every partition:
// the flow table (every partition's flow arrival cursor walks it, and its
// switches forward by each flow's route) and per-port bookkeeping (held
// flags, the partition at each port's far end).
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/partition.h"
#include "sim/rank_exchange.h"
#include "sim/simulation.h"
#include "sim/window_trace.h"

namespace rocesim {

// What a run is cut for: ranks, threads per rank and partitions per rank
// (0: by the fabric's size), as PartitionForRun takes them.
struct CutRequest {
  uint32_t ranks = 1;
  uint32_t threads = 1;
  uint32_t partitions = 0;
};

// The cut every rank of `exchange` (null: this machine alone) makes for a
// run of `threads` and `partitions` here. Ranks may run different thread
// counts (`--threads auto` on machines of other sizes): all cut for the
// most threads and partitions that any rank asked for, so that all cut
// alike and each has a partition for every thread it runs (more than that
// are shared, as with --partitions). Collective under MPI.
CutRequest AgreeOnCut(RankExchange* exchange, uint32_t threads, uint32_t partitions);

// `--threads auto` for `scenario` on each of `ranks` ranks running
// `partitions` partitions (0: by the fabric's size): FitAutoThreads with this
// process's share of the cores (AutoThreadsHere) and, when that is more than
// one, the fabric's separable parts (laying the fabric out to count them).
struct AutoThreadCount {
  uint32_t threads = 1;
  uint32_t share = 1;            // this process's share of the cores
  uint32_t separable_parts = 0;  // SeparableParts, or 0 when not counted
  // The fabric laid out to count them (null when not counted): the run
  // cuts it (or, on one thread, runs it serially; `--check` checks it)
  // rather than laying it out again (0.8 s at k=64).
  std::shared_ptr<const FabricLayout> layout;
};
AutoThreadCount AutoThreadsFor(const Scenario& scenario, uint32_t ranks, uint32_t partitions);

// Thrown by PartitionedRun::Run on the ranks of an MPI job whose own
// partitions ran well when another rank's partition failed: that rank says
// why (apps/rank_agreement.h).
struct FailedOnAnotherRank : std::runtime_error {
  FailedOnAnotherRank() : std::runtime_error("a partition on another rank failed") {}
};

class PartitionedRun {
 public:
  // Cuts the fabric into `partitions` partitions per machine (at least
  // `threads`; for `exchange`: this rank's share of rank count x partitions;
  // 0: as many as the fabric's size asks for, AutoPartitionsPerThread in
  // sim/partition.h) and builds them, in parallel, to run on `threads`
  // threads. With more partitions than threads, each window every thread
  // runs its own partitions first and then takes those that other threads
  // have not begun, so a window's work spreads over the threads as it falls.
  // Throws PartitionError when the fabric cannot be cut that many ways.
  // Under MPI every rank constructs its run at the same point: the cut is
  // AgreeOnCut's, agreed first. `layout`: the scenario's fabric laid out
  // already (AutoThreadCount::layout), or null to lay it out here.
  PartitionedRun(const Scenario& scenario, uint32_t threads, RankExchange* exchange = nullptr,
                 uint32_t partitions = 0, std::shared_ptr<const FabricLayout> layout = nullptr);
  ~PartitionedRun();

  // Opens what `monitors` writes: the time-series files, each partition's
  // rows into DIR/.partition-N/, merged into DIR after the run (on rank 0);
  // the packet captures (monitors.pcap) in DIR/pcap, each partition writing
  // the files of its own nodes' ports there, no merge needed. Under MPI,
  // DIR is rank 0's staging directory on rank 0 and a private scratch
  // directory on the other ranks, whose files reach rank 0's DIR after the
  // run (RankExchange::CollectFiles) before the merge.
  void EnableMonitors(const std::string& dir);
  // Records every window's start and each partition's events and seconds in
  // it (sim/window_trace.h), for window_trace() after the run. Under MPI
  // every rank must enable it (Run gathers the ranks' records, collectively).
  void EnableWindowTrace();
  // After Run: the trace of every partition of the job on rank 0 (and on a
  // single machine); empty on the other ranks.
  const WindowTrace& window_trace() const { return trace_; }
  // Runs to the scenario's duration (or until every flow finished), then
  // merges what the replicas measured into result() (on rank 0 of an MPI job).
  // A partition that fails (throws: a monitor file it cannot write) ends
  // the run at the end of its window, on every thread and rank: Run then
  // throws its exception, or FailedOnAnotherRank on the other ranks, all
  // at the same point (FailedTogether).
  RunStats Run(const Simulation::ProgressFn& progress = nullptr);
  // Whether Run threw because a partition failed, on every rank alike: no
  // rank is left waiting for another, so the ranks can meet to say why.
  bool FailedTogether() const { return failed_together_; }
  // Whether Run has passed its last meeting of the ranks (the files sent to
  // rank 0): a failure from there on leaves no rank waiting for another.
  bool PastLastMeeting() const { return past_last_meeting_; }
  // The merged simulation that the results writer reads.
  const Simulation& result() const { return *replicas_[0]; }
  Simulation& result() { return *replicas_[0]; }
  // Partition `p` of this machine (or rank), before the run (tests).
  const Simulation& replica(uint32_t p) const { return *replicas_[p]; }
  const Partitioning& partitioning() const { return partitioning_; }
  uint32_t local_partitions() const { return locals_; }  // on this machine (or rank)
  // After Run: where this machine's (or rank's) time went, in a line: the
  // windows run, each local partition's seconds of events and events, each
  // thread's seconds taking in frames, waiting at the barrier and (MPI)
  // exchanging with the other ranks (RunStats::partition_times).
  std::string Balance() const;
  // The same figures as numbers, for summary.json (RunStats::partition_times).
  PartitionTimes Times() const;

 private:
  void RunThread(uint32_t t, const Simulation::ProgressFn& progress);
  // Local partition p takes in the frames other partitions sent it in `window`.
  void TakeIn(uint32_t p, uint64_t window);
  // Before p runs `window`: takes in window - 1's frames, clears its outboxes for this one.
  void Open(uint32_t p, uint64_t window);
  // After p ran `window`: its earliest pending event (or frame it sent),
  // flows finished (and their bytes) and events, into the window's slot.
  void Publish(uint32_t p, uint64_t window);
  // What every partition (and rank) published after `window`.
  WindowAgreement Agree(uint32_t t, uint64_t window);
  // The next local partition thread t runs in `phase` (its own first, then
  // any another thread has not begun), or -1 when none is left.
  int64_t ClaimPartition(uint32_t t, uint64_t phase);
  // After the windows: throws (FailedTogether) if a partition of any rank
  // failed in them, or after them (taking in the last window's frames,
  // flushing the monitors' files, which it does); collective under MPI.
  void EndIfAPartitionFailed();
  void Merge(RunStats& stats);
  // After the windows: the partitions' window records into trace_ (every
  // rank's on rank 0; collective under MPI).
  void GatherWindowTrace();

  Scenario scenario_;
  uint32_t threads_;
  uint32_t locals_ = 0;     // partitions on this machine (or rank)
  RankExchange* exchange_;  // between the ranks of an MPI job; null on one machine
  std::string files_dir_;   // EnableMonitors' DIR ("" if not called)
  bool past_last_meeting_ = false;
  bool failed_together_ = false;
  uint32_t first_partition_ = 0;  // of this rank
  Partitioning partitioning_;
  // Declared before the replicas, which point at it until they go.
  std::unique_ptr<SharedRoutes> routes_;
  std::vector<std::unique_ptr<Simulation>> replicas_;  // per local partition
  std::vector<std::vector<uint32_t>> home_;            // per thread: its own partitions
  // Per local partition: its events when it last published (Publish; only
  // the thread running the partition's window touches its entry).
  std::vector<uint64_t> published_events_;
  uint64_t agreed_events_ = 0;  // the job's events, as the last window's agreement counted them
  // Where the time went: windows (thread 0 counts them), each partition's
  // events (its claimer adds them), each thread's own pieces.
  PartitionTimes times_;
  struct alignas(64) ThreadTimes {  // a line each: every thread adds to its own a window
    double taking_in = 0;
    double waiting = 0;
    double exchanging = 0;
  };
  std::vector<ThreadTimes> thread_times_;
  // EnableWindowTrace's records: the windows' starts (thread 0 adds them)
  // and, per local partition, its events in each window and its nanoseconds
  // of events so far at each window's end (whichever thread runs the
  // partition's window adds them in Publish).
  bool trace_windows_ = false;
  std::vector<Time> trace_starts_;
  std::vector<std::vector<uint64_t>> trace_events_;
  std::vector<std::vector<uint64_t>> trace_nanoseconds_;
  WindowTrace trace_;
  struct Shared;
  std::unique_ptr<Shared> shared_;
};

}  // namespace rocesim
