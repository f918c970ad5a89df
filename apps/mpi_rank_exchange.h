// The MPI side of a partitioned run (sim/rank_exchange.h): frames between
// ranks with MPI_Alltoallv, the per-window agreement (next event, flows
// finished, events, stop requested) with MPI_Allgather, and
// the merge of flows, port and fabric counters onto rank 0 after the run.
#pragma once

#include <memory>

#include "sim/rank_exchange.h"

namespace rocesim {

// Ranks of the MPI launcher this process runs under (1 if none), from the
// launcher's environment (OpenMPI, PMI, PMIx).
int LauncherRanks();

// Under an MPI launcher with more than one rank: initialises MPI (finalised
// when the exchange is destroyed) and returns the exchange; otherwise null.
// Throws std::runtime_error under a launcher when rocesim was built without MPI.
std::unique_ptr<RankExchange> MakeMpiRankExchange();

}  // namespace rocesim
