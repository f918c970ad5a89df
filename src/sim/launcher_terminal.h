// Whether the lines `rocesim run` redraws in place on stderr (the setup
// line, apps/setup_line.h; the progress line, sim/run_progress.h) reach a
// terminal, also under mpirun.
//
// A rank's stderr is a pipe to mpirun, never a terminal, so the test of
// stderr alone kept rank 0 from ever drawing the run's progress. Yet mpirun
// forwards what a rank writes as it comes, carriage returns included (a line
// redrawn on the rank redraws on the user's terminal), so what matters is
// whether mpirun's own stderr is a terminal. OpenMPI's mpirun starts the
// ranks of its own machine as its children, so that is the parent's file
// descriptor 2 (/proc/PPID/fd/2, read with readlink: nothing is opened). A
// rank started by a daemon on another machine (orted, slurmstepd), or an
// mpirun writing into a file or a pipe, finds no terminal there and draws
// nothing, as before. Outside a launcher only this process's stderr counts:
// `rocesim run X 2>log` from a shell on a terminal draws nothing.
#pragma once

#include <string_view>

namespace rocesim {

// Whether `path`, a file descriptor's target as readlink gives it, names a
// terminal: a pseudo-terminal (/dev/pts/N), a console or tty device.
bool NamesTerminal(std::string_view path);

// Whether lines drawn on this process's stderr reach a terminal: stderr is
// one, or, for a process `under_launcher` (an MPI rank), its launcher's is.
bool StderrReachesTerminal(bool under_launcher);

}  // namespace rocesim
