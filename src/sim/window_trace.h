// A partitioned run's windows, one by one (`rocesim run --window-trace
// FILE`): when each window started and, per partition, how many events it
// ran and how long they took. The run's end line and summary.json give only
// totals (sim/simulation.h PartitionTimes); the trace shows where the
// partitions' work was uneven and for how long, which decides what a
// different cut or synchronisation could gain (bench/window_model.py replays
// a trace under a barrier and under asynchronous schemes; bench/NOTES.md,
// thirty-eighth session). Events are a property of the scenario and the
// cut, the same on threads and ranks; seconds are this machine's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/checked_write.h"
#include "core/time.h"

namespace rocesim {

struct WindowTrace {
  uint32_t partitions = 0;   // in the whole job, every rank's
  std::vector<Time> starts;  // per window, its first picosecond
  // Per window and partition, at [window * partitions + partition]: the
  // events the partition ran in the window and the nanoseconds they took.
  std::vector<uint64_t> events;
  std::vector<uint64_t> nanoseconds;
};

// Writes the trace to `path` as CSV, a row per window and partition:
// window,start_ps,partition,events,seconds. The rows go out every
// `flush_bytes` as they are formatted: the text of a long run's trace (40
// bytes a row) would take more memory than its numbers (16). Throws
// std::runtime_error naming the file when it cannot be written.
void WriteWindowTraceCsv(const WindowTrace& trace, const std::string& path,
                         size_t flush_bytes = CheckedFileWriter::kChunkBytes);

}  // namespace rocesim
