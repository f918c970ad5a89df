// A request to end the run early (Ctrl-C, SIGTERM; issue #18): set from a
// signal handler, read by the event loop between windows, the only points
// where a run can stop with every counter and file consistent. A partitioned
// run reads it in one thread and agrees on it with every partition and rank
// (sim/partitioned_run.cpp), so all of them stop at the same window boundary.
#pragma once

namespace rocesim {

// Async-signal-safe. `signal` is reported back by StopSignal().
void RequestStop(int signal);
bool StopRequested();
// The signal that asked for the stop (0: none).
int StopSignal();

}  // namespace rocesim
