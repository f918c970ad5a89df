// What the MPI side of rocesim's apps share (apps/mpi_rank_exchange.cpp,
// apps/mpi_file_transfer.cpp): the tags that keep their point-to-point
// messages apart, and receiving one whole message of a length the
// receiver does not know. Only built with MPI.
#pragma once

#ifdef ROCESIM_HAVE_MPI
#include <mpi.h>

#include <cstddef>
#include <vector>

namespace rocesim {

constexpr int kWindowTag = 1;  // a partitioned run's window messages
constexpr int kFilesTag = 2;   // the files other ranks send rank 0 after the run
constexpr int kMergeTag = 3;   // what other ranks send rank 0 to merge after the run

// The next message from rank `from` with `tag`, whatever its length, into `into`.
inline void ReceiveWhole(int from, int tag, std::vector<char>& into) {
  MPI_Message message;
  MPI_Status status;
  MPI_Mprobe(from, tag, MPI_COMM_WORLD, &message, &status);
  int bytes = 0;
  MPI_Get_count(&status, MPI_CHAR, &bytes);
  into.resize(static_cast<size_t>(bytes));
  MPI_Mrecv(into.data(), bytes, MPI_CHAR, &message, MPI_STATUS_IGNORE);
}

}  // namespace rocesim
#endif
