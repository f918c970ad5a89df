// The MPI side of a partitioned run (sim/rank_exchange.h): one message per
// rank per window, carrying the per-window agreement (next event, flows
// finished and their bytes, events, stop requested, a partition failed) and
// the frames that crossed, through shared memory when every rank is on one
// machine (apps/mpi_node_window.h), point to point between each pair of
// ranks otherwise; the merge of flows and fabric counters onto rank 0 after
// the run; the job's other ranks on this machine (for the stop signals);
// and ending the whole job when one rank fails outside its partitions' work.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/rank_exchange.h"

namespace rocesim {

// Ranks of the MPI launcher this process runs under (0 if none), from the
// launcher's environment (OpenMPI, PMI, PMIx).
int LauncherRanks();

// Under an MPI launcher with more than one rank: initialises MPI (finalised
// when the exchange is destroyed) and returns the exchange for ranks of
// `threads` partition threads each; otherwise null. Throws
// std::runtime_error under a launcher when rocesim was built without MPI,
// or on a bad ROCESIM_MPI_* setting (apps/mpi_node_window.h).
std::unique_ptr<RankExchange> MakeMpiRankExchange(uint32_t threads);

}  // namespace rocesim
