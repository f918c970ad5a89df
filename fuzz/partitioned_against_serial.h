// The fuzzer's check that a scenario runs partitioned as it runs serially
// (issue #15: "everything works partitioned"; the fuzz target
// "scenario_partitioned", fuzz/targets.h): every mutated scenario that the
// reader accepts runs once serially and once partitioned over two threads,
// each into its own results directory, as `rocesim run` and `rocesim run
// --threads 2 --partitions P` would write them (P is 2 or 3, by the input's
// length: a partition per thread, or three the threads share). The two
// directories must hold the same files, byte for byte, but for
// summary.json's `run` object. The random differential campaign
// (tests/differential_runs.py) draws well-formed scenarios; this one takes
// the mutator's odd values (zero rates, huge thresholds, faults at time 0)
// through the partitioned run too.
#pragma once

#include <cstdint>
#include <string>

#include "scenario/scenario.h"

namespace rocesim::fuzz {

// Runs `scenario` serially and on 2 threads sharing `partitions` (at least
// 2) into scratch_dir/serial and scratch_dir/partitioned (removed again
// when the two are alike), and throws
// PartitionedRunDiffers naming the first file that differs (or that only
// one run wrote, or the invariant that only one run broke). A fabric the
// cut refuses (PartitionError: too small, or joined only by zero-delay
// links) or cannot build is no finding: the serial target covers those.
void ExpectPartitionedRunAsSerial(const Scenario& scenario, uint32_t partitions,
                                  const std::string& scratch_dir);

}  // namespace rocesim::fuzz
