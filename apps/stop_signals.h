// Ctrl-C (SIGINT) and SIGTERM during `rocesim run`. While the fabric is being
// built (minutes for the largest) a signal ends the process at once: there is
// nothing to keep. Once the run simulates, the first asks it to stop at the
// next window boundary (sim/stop_request.h), after which it writes what it
// measured, marked partial; a second ends the process at once.
#pragma once

#include <span>

#include "sim/rank_exchange.h"

namespace rocesim {

// `announce`: say on stderr that the run is stopping (rank 0 only under MPI).
// Installs the handlers in their building mode.
void InstallStopSignals(bool announce);
// The fabric is built and the run begins: from now on a signal stops it at a
// window boundary.
void StopSignalsAtWindows();
// Under mpirun: the other ranks on this machine. When one of them ends
// mid-run without a word (killed: out of memory, `kill -9`), mpirun sends
// SIGTERM to the rest, which would otherwise take it for a Ctrl-C and say
// they are stopping to write partial results while they wait for the
// dead rank's window; a signal that finds one of these ranks gone says
// which and ends this rank at once, writing nothing (the next run into the
// same directory clears what is left). Ranks on other machines cannot be
// checked and are not listed.
void StopSignalsWatchRanks(std::span<const RankExchange::LocalRank> ranks);
// The run failed and writes nothing: from now on a signal ends the process
// at once, saying nothing more. Under mpirun this is how the ranks of a job
// that failed together end (mpirun sends SIGTERM to the ranks still exiting
// once one has exited with an error): not "stopping at the next window".
void StopSignalsAfterFailure();
// The exit status of a run that stopped on request: 128 + the signal, as a
// shell reports a process that the signal ended (130 for SIGINT, 143 for
// SIGTERM); 130 on an MPI rank that stopped because another rank was asked.
int StoppedExitStatus();

}  // namespace rocesim
