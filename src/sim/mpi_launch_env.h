// What an MPI job's launch environment says before MPI starts, and the one
// choice rocesim makes from it (apps/mpi_rank_exchange.cpp, the sweep's
// --mpi). OpenMPI's launcher exports OMPI_COMM_WORLD_SIZE (ranks in the job)
// and OMPI_COMM_WORLD_LOCAL_SIZE (ranks on this machine) to every rank.
// When they are equal, every message stays on one machine, where OpenMPI's
// ob1 messaging layer moves it through shared memory (its vader transport);
// left to choose, OpenMPI first brings up UCX, whose device probing costs
// about 0.2 s of every rank's start (k8, 2 ranks: 3.18-3.35 s a run with
// ob1 against 3.51-3.65 s; bench/NOTES.md, fifteenth session). Across
// machines, or when the user has chosen a layer (OMPI_MCA_pml), nothing
// changes.
#pragma once

#include <cstdint>

namespace rocesim {

// The OMPI_MCA_pml value to set, or null to leave the choice to OpenMPI.
// Arguments are the environment variables' values (null when unset).
const char* SingleMachinePml(const char* world_size, const char* local_size, const char* user_pml);

// Sets OMPI_MCA_pml from this process's environment as SingleMachinePml
// says; call before MPI_Init.
void PreferSharedMemoryPml();

// `--threads auto`: one thread per core this process may use (`usable`, its
// affinity mask). mpirun binds each rank to its own cores by default, and
// then the mask is the rank's share; with `--bind-to none` every rank's mask
// is the whole machine (`machine` cores), and the `local_ranks` ranks on it
// (OMPI_COMM_WORLD_LOCAL_SIZE; null outside mpirun) share it, so each takes
// its part, at least one.
uint32_t AutoThreads(uint32_t usable, uint32_t machine, const char* local_ranks);
// AutoThreads for this process: its mask, the machine's online cores and the
// launcher's environment, or outside mpirun the sweep's (kSweepWorkersVar).
// It is also the cores a partitioned run's threads count on when they choose
// how long to spin at the barrier (sim/partitioned_run.cpp).
uint32_t AutoThreadsHere();

// The ranks mpirun started on this machine (OMPI_COMM_WORLD_LOCAL_SIZE), 1
// outside mpirun.
uint32_t LocalRanksHere();

// Set by `rocesim sweep` for each point's run when more than one point runs
// at once on the machine: how many, so that a point partitioned over threads
// knows that it shares the cores (sweep/sweep_runner.h).
inline constexpr char kSweepWorkersVar[] = "ROCESIM_SWEEP_WORKERS";

}  // namespace rocesim
