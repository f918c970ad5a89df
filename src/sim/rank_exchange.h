// Between the ranks of an MPI job running one partitioned simulation
// (sim/partitioned_run.h): the interface the run uses, implemented over MPI
// by the command line (apps/mpi_rank_exchange.cpp), so that the simulation
// library itself does not depend on MPI. Every call is collective: all
// ranks make it at the same point of the run. Its RankGroup part (rank,
// ranks, GatherAll) serves the setup's agreement too.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "net/fabric.h"
#include "ops/deadlock.h"
#include "sim/rank_group.h"

namespace rocesim {

class Simulation;
struct Partitioning;

// What the partitions agree on after each window of a partitioned run
// (sim/partitioned_run.h): where the next window starts (the earliest event
// pending anywhere, frames in flight included; kTimeMax: nothing left), the
// flows finished and their bytes (the progress line's measure of work), the
// events counted, whether a stop was requested, and whether a partition
// failed (threw: a file it could not write, memory it could not get), which
// ends the run there, on every rank, without results.
struct WindowAgreement {
  Time start = kTimeMax;
  uint64_t finished = 0;
  int64_t bytes_finished = 0;
  uint64_t events = 0;
  // The most events one partition ran in the window (the job's busiest):
  // how even the windows were (PartitionTimes::busiest_events).
  uint64_t busiest = 0;
  bool stop = false;
  bool failed = false;
};

class RankExchange : public RankGroup {
 public:
  // After a window: sends what the local partitions' outboxes (the set at
  // `base`, Fabric::outbox_base) hold for partitions of other ranks, and
  // empties those; receives what other ranks sent to the local ones, into
  // Inbox; and turns this rank's `agreement` (over its own partitions) into
  // the job's: the earliest start, the sums, the busiest partition's events,
  // and whether any rank was asked to stop or had a partition fail.
  virtual void ExchangeWindow(const std::vector<std::unique_ptr<Simulation>>& replicas,
                              uint32_t first_partition, uint32_t base,
                              WindowAgreement& agreement) = 0;
  // How this rank's windows went to the others (after the run), for the
  // line the run prints per rank: through shared memory or by message.
  virtual std::string Describe() const = 0;
  // What other ranks sent to local partition `part` in the last exchange,
  // in rank order: valid until the next exchange.
  virtual std::span<const CrossFramesView> Inbox(uint32_t part) const = 0;
  virtual Time MinTime(Time t) = 0;
  // Every partition's part of the wait-for graph, in partition order, from
  // this rank's partitions' parts (sim/partitioned_run.h, ops/deadlock.h).
  virtual std::vector<DeadlockSample> AllDeadlockSamples(
      const std::vector<DeadlockSample>& mine) = 0;
  // After the run: brings the flows, ops log entries and fabric counters that
  // other ranks' partitions own into rank 0's `merged` (already merged over
  // this rank's partitions), and sums or maxes the run's totals.
  virtual void MergeInto(Simulation& merged, const Partitioning& partitioning,
                         uint32_t first_partition, uint32_t threads, uint64_t& events, Time& end,
                         uint64_t& in_network, uint64_t& in_network_payload) = 0;
  // After the run: copies every file under each other rank's `root` (its
  // scratch directory: its partitions' time series and packet captures)
  // under rank 0's `root` (the results' staging directory), at the same
  // relative paths, so that rank 0's results are complete with or without
  // a filesystem the machines share (apps/mpi_file_transfer.h). Returns, on
  // rank 0, the first file that could not be read or written ("" if none),
  // once every rank has sent all it had: an error ends rank 0 alone.
  virtual std::string CollectFiles(const std::string& root) = 0;
  // The other ranks of the job on this machine (MPI's shared-memory node),
  // each with its process id, in rank order.
  struct LocalRank {
    uint32_t rank;
    int pid;
  };
  virtual std::vector<LocalRank> OtherRanksHere() = 0;
  // Ends every rank of the job with `status`: after this rank failed in the
  // middle of the run outside its partitions' work (the exchange itself),
  // when the others would wait for its windows forever. A partition's own
  // failure is agreed with its window instead (WindowAgreement::failed).
  [[noreturn]] virtual void AbortJob(int status) = 0;
};

}  // namespace rocesim
