#include "stats/slowdown_stats.h"

#include <algorithm>
#include <map>

#include "stats/results_writer.h"

namespace rocesim {

namespace {
struct Bucket {
  const char* name;
  int64_t lo;  // inclusive
  int64_t hi;  // exclusive
};
constexpr Bucket kBuckets[] = {{"<10KB", 0, 10'000},
                               {"10KB-100KB", 10'000, 100'000},
                               {"100KB-1MB", 100'000, 1'000'000},
                               {"1MB-10MB", 1'000'000, 10'000'000},
                               {">10MB", 10'000'000, INT64_MAX}};
}  // namespace

const char* SizeBucket(int64_t size_bytes) {
  for (const Bucket& b : kBuckets)
    if (size_bytes >= b.lo && size_bytes < b.hi) return b.name;
  return kBuckets[0].name;
}

nlohmann::json GroupStats(const std::vector<const FlowOutcome*>& group) {
  std::vector<double> s;
  double fct = 0, sum = 0;
  for (const FlowOutcome* f : group) {
    s.push_back(f->slowdown);
    sum += f->slowdown;
    fct += f->fct_us;
  }
  const double n = static_cast<double>(s.size());
  std::sort(s.begin(), s.end());  // once, for every percentile
  // An empty group has no statistics: null, never a 0 that reads as a result.
  if (s.empty())
    return {{"count", 0},      {"p50", nullptr}, {"p95", nullptr},        {"p99", nullptr},
            {"mean", nullptr}, {"max", nullptr}, {"mean_fct_us", nullptr}};
  return {{"count", s.size()},
          {"p50", SortedPercentile(s, 50)},
          {"p95", SortedPercentile(s, 95)},
          {"p99", SortedPercentile(s, 99)},
          {"mean", sum / n},
          {"max", s.back()},
          {"mean_fct_us", fct / n}};
}

nlohmann::json GroupedSlowdowns(const std::vector<FlowOutcome>& flows) {
  nlohmann::json out;
  nlohmann::json by_size = nlohmann::json::object();
  for (const Bucket& b : kBuckets) {
    std::vector<const FlowOutcome*> g;
    for (const FlowOutcome& f : flows)
      if (SizeBucket(f.size_bytes) == b.name) g.push_back(&f);
    by_size[b.name] = GroupStats(g);
  }
  out["by_size"] = by_size;
  std::vector<const FlowOutcome*> mice, elephants;
  for (const FlowOutcome& f : flows) {
    if (f.size_bytes < 1'000'000) mice.push_back(&f);
    if (f.size_bytes > 10'000'000) elephants.push_back(&f);
  }
  out["mice"] = GroupStats(mice);
  out["elephants"] = GroupStats(elephants);
  for (const char* key : {"tag", "cc"}) {
    std::map<std::string, std::vector<const FlowOutcome*>> groups;
    for (const FlowOutcome& f : flows) groups[key[0] == 't' ? f.tag : f.cc].push_back(&f);
    nlohmann::json g = nlohmann::json::object();
    for (const auto& [name, members] : groups)
      g[name.empty() ? "untagged" : name] = GroupStats(members);
    out[std::string("by_") + key] = g;
  }
  return out;
}

}  // namespace rocesim
