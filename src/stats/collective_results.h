// Job-level results of collective traffic (issue "AI training on RoCE
// fabrics"), per instance (one iteration of one job's collective):
//   start      its first message's start
//   finish     its last message's delivery (every rank holds the result)
//   time       finish - start; algbw = size / time; busbw = algbw x NCCL's
//              factor (workload/collectives.h BusBandwidthFactor)
//   ideal      the instance alone on the idle fabric (stats/collective_ideal.h),
//              and slowdown = time / ideal
//   straggler  the rank whose last delivery came last, and how far behind
//              the median rank it finished
// and per step, its slowest rank. Written as collectives.csv,
// collective_steps.csv and summary.json "jobs".
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/simulation.h"

namespace rocesim {

struct CollectiveStepResult {
  int step = 0;
  Time start = -1, finish = -1;
  int slowest_host = -1;  // whose last delivery of the step came last
};

struct CollectiveResult {
  size_t traffic_index = 0;
  std::string tag;
  int iteration = 0;
  uint64_t flows = 0;
  bool complete = false;
  Time start = -1, finish = -1, ideal = 0;
  int straggler_host = -1;
  Time straggler_lag = 0;  // its finish minus the median rank's
  std::vector<CollectiveStepResult> steps;
};

std::vector<CollectiveResult> CollectiveResults(const Simulation& sim);
// summary.json "jobs": one object per collective entry.
nlohmann::json CollectiveJobsJson(const Simulation& sim, const std::vector<CollectiveResult>& r);
// collectives.csv and collective_steps.csv in `dir` (nothing without collectives).
void WriteCollectiveFiles(const Simulation& sim, const std::vector<CollectiveResult>& r,
                          const std::string& dir);

}  // namespace rocesim
