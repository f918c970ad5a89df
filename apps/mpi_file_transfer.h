// Files from the other ranks of an MPI job to rank 0, after a partitioned
// run (RankExchange::CollectFiles, apps/mpi_rank_exchange.cpp). A rank other
// than 0 writes its partitions' time series (`.partition-N/*.csv`) and
// packet captures (`pcap/*.pcap`) into a private scratch directory on its
// own machine (core/scratch_dir.h); rank 0 writes its own into the results'
// staging directory. These calls copy every file of each rank's directory
// into rank 0's, at the same relative path, so that the results are
// complete whether or not the machines share a filesystem (until the
// twenty-sixth session the other ranks wrote into rank 0's staging
// directory by its path, and on machines without a shared filesystem the
// merged time series silently lacked their rows).
//
// The protocol, on one tag of MPI_COMM_WORLD, from rank r to rank 0: per
// file a header message (its size in bytes, then its relative path) and
// the file in chunks of at most 8 MiB; then an end message (size
// UINT64_MAX, then the text of the first error the sender met, or
// nothing). Both sides always finish the protocol, so an error (a file the
// sender cannot read, one rank 0 cannot write) is reported by rank 0 after
// it, never left as a rank waiting for a message. Only built with MPI.
#pragma once

#ifdef ROCESIM_HAVE_MPI
#include <string>

namespace rocesim {

// Rank r != 0: sends every regular file under `root` (recursively, in path
// order) to rank 0.
void SendFilesToRankZero(const std::string& root);
// Rank 0: receives rank `from`'s files into `root`, creating directories as
// needed. Returns the first error met (by either side), or "".
std::string ReceiveFilesFromRank(int from, const std::string& root);

}  // namespace rocesim
#endif
