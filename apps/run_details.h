// What `rocesim run` says beside its results: warnings for likely mistakes,
// the `--check` paragraph, and the `-v` details (apps/run_command.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "sim/partitioned_run.h"

namespace rocesim {

class Simulation;

// One "rocesim: warning: ..." line each on stderr.
void PrintWarnings(const std::vector<std::string>& warnings);

// `rocesim run X.yaml --check`: builds the fabric and its flows (and, when
// `cut` asks for more than one partition, the partitioning the run would
// use; under mpirun, the job's: AgreeOnCut) without simulating, and prints
// one paragraph: hosts, switches, links, flows, partitions (where `print`:
// on rank 0). Throws what building throws (BuildError, PartitionError:
// exit 2). `laid_out`: the fabric laid out already (--threads auto), or null.
void CheckScenario(const Scenario& scenario, const CutRequest& cut, bool print,
                   std::shared_ptr<const FabricLayout> laid_out = nullptr);

// `-v`: the fabric's size, each traffic entry's expansion (flows, bytes) and
// whether the heap is on huge pages (apps/huge_page_heap.h), on stderr.
void PrintRunDetails(const Simulation& sim);

}  // namespace rocesim
