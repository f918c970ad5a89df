// The sweep's table (docs/sweep.md "sweep.csv"): one row per point, in point
// order whatever order the points finished in, so a sweep run locally, resumed,
// or spread over MPI ranks writes the same file (but for cpu_seconds).
//
//   point, dir, <one column per swept key>, status,
//   flows_total, flows_completed, flows_incomplete, flows_incomplete_fraction,
//   slowdown_p50, slowdown_p95, slowdown_p99, slowdown_mean,
//   slowdown_p99_<bucket>..., drops_total, pause_frames_sent, ecn_marks,
//   cnps_sent, sim_seconds, events,
//   seeds, <statistic>_mean, <statistic>_ci95 ..., cpu_seconds
//
// status is ok, failed or not_run; a point that is not ok leaves its result
// columns empty. The per-size-bucket columns (buckets of slowdown_stats.h:
// lt10KB, 10KB_100KB, 100KB_1MB, 1MB_10MB, gt10MB) appear for buckets that hold
// completed flows in at least one point; empty where a point has none.
// Points that differ only in `seed` are repetitions: `seeds` counts the ok
// ones and each statistic (the incomplete fraction, slowdowns, drops, pauses,
// marks, CNPs) gets their mean and 95% Student-t half-width, the same on every
// row of the group. A percentage parameter is written as its fraction.
// Column names avoid the words `rocesim compare` reads as parameters.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sweep/sweep_spec.h"

namespace rocesim::sweep {

enum class PointStatus { kNotRun, kOk, kFailed };
const char* StatusName(PointStatus s);

struct PointOutcome {
  PointStatus status = PointStatus::kNotRun;
  nlohmann::json row;  // SummaryRow of the point's summary.json when kOk
};

// The result columns of one finished point: a JSON object mapping column name to
// its text, taken from summary.json (results_writer.h). Small, so MPI ranks can
// ship it to rank 0.
nlohmann::json SummaryRow(const nlohmann::json& summary);

// Serialises outcomes (with their point indices) for MPI, and back.
nlohmann::json OutcomesToJson(const std::vector<PointOutcome>& outcomes,
                              const std::vector<size_t>& indices);
// Copies each {index, status, row} of `j` into outcomes[index].
void MergeOutcomes(const nlohmann::json& j, std::vector<PointOutcome>& outcomes);

// sweep.csv's text. `outcomes` is indexed like `points`.
std::string SweepCsv(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                     const std::vector<PointOutcome>& outcomes);

}  // namespace rocesim::sweep
