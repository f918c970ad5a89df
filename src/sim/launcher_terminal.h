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
//
// Nor does a rank whose launcher writes each rank's output into files of its
// own (OpenMPI's `mpirun --output-filename DIR`, which its ranks see as
// OMPI_MCA_orte_output_filename): those files are logs, and a redrawn line
// would leave every redraw in them, although mpirun also copies the output
// onto its terminal (unless told `DIR:nocopy`).
#pragma once

#include <string_view>

namespace rocesim {

// Whether `path`, a file descriptor's target as readlink gives it, names a
// terminal: a pseudo-terminal (/dev/pts/N), a console or tty device.
bool NamesTerminal(std::string_view path);

// Whether a launcher's setting of where ranks' output goes (the value of
// OMPI_MCA_orte_output_filename, or null when it is not set) writes it into
// files.
bool LauncherWritesRankFiles(const char* output_filename);

// Whether lines drawn on this process's stderr reach a terminal only: stderr
// is one, or, for a process `under_launcher` (an MPI rank), its launcher's
// is and the launcher writes no rank files.
bool StderrReachesTerminal(bool under_launcher);

}  // namespace rocesim
