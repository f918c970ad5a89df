// Whether two results directories hold the same results (issue #15: a
// partitioned run's results are the serial run's, byte for byte): the same
// files, each byte-identical, but for summary.json's `run` object (wall
// time, threads, partitions: how the run went, not what it found). Used by
// the partitioned fuzz target (fuzz/partitioned_against_serial.h) and the CLI tests'
// comparisons (tests/cli_test_support.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rocesim {

// The files under `dir` (paths relative to it, sorted).
std::vector<std::string> ResultFiles(const std::string& dir);

// The first difference between results directories `a` and `b`, in words
// ("flows.csv differs", "only b holds queues.csv"), or nullopt when they
// hold the same results.
std::optional<std::string> FirstResultsDifference(const std::string& a, const std::string& b);

}  // namespace rocesim
