// The MPI side of a partitioned run (sim/rank_exchange.h): one point-to-point
// message per pair of ranks per window, carrying the per-window agreement
// (next event, flows finished, events, stop requested) and the frames that
// crossed; the merge of flows and fabric counters onto rank 0 after the run;
// and ending the whole job when one rank fails mid-run.
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
