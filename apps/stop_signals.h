// Ctrl-C (SIGINT) and SIGTERM during `rocesim run`: the first asks the run
// to stop at the next window boundary (sim/stop_request.h), after which it
// writes what it measured, marked partial; a second ends the process at once.
#pragma once

namespace rocesim {

// `announce`: say on stderr that the run is stopping (rank 0 only under MPI).
void InstallStopSignals(bool announce);
// The exit status of a run that stopped on request: 128 + the signal, as a
// shell reports a process that the signal ended (130 for SIGINT, 143 for
// SIGTERM); 130 on an MPI rank that stopped because another rank was asked.
int StoppedExitStatus();

}  // namespace rocesim
