// Slowdown statistics of completed flows, overall and grouped the ways
// papers report them: by flow-size bucket (<10 KB, 10-100 KB, 100 KB-1 MB,
// 1-10 MB, >10 MB; mice < 1 MB and elephants > 10 MB as seed 002 §4 uses),
// by traffic tag and by congestion control. Sizes are decimal (1 KB = 1000 B).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rocesim {

struct FlowOutcome {
  int64_t size_bytes = 0;
  double slowdown = 0;
  double fct_us = 0;
  std::string tag;
  std::string cc;
};

// The size bucket a flow falls in: "<10KB", "10KB-100KB", "100KB-1MB",
// "1MB-10MB" or ">10MB".
const char* SizeBucket(int64_t size_bytes);

// {count, p50, p95, p99, mean, max, mean_fct_us} of a group (zeros if empty).
nlohmann::json GroupStats(const std::vector<const FlowOutcome*>& group);

// {"by_size": {...}, "mice": {...}, "elephants": {...}, "by_tag": {...}, "by_cc": {...}}
nlohmann::json GroupedSlowdowns(const std::vector<FlowOutcome>& flows);

}  // namespace rocesim
