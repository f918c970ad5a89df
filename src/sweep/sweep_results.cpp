// sweep.csv: result columns from summary.json and the table (sweep_results.h).
#include "sweep/sweep_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <string_view>

#include "stats/slowdown_stats.h"
#include "sweep/seed_statistics.h"

namespace rocesim::sweep {
namespace {

// summary.json field (dotted path) -> column, in column order; the size-bucket
// columns go after slowdown_mean.
struct Column {
  const char* name;
  const char* path;
};
constexpr Column kFlowColumns[] = {{"flows_total", "flows.total"},
                                   {"flows_completed", "flows.completed"}};
// Computed from the two above (SummaryRow), not read.
constexpr const char* kIncompleteColumns[] = {"flows_incomplete", "flows_incomplete_fraction"};
constexpr Column kSlowdownColumns[] = {{"slowdown_p50", "slowdown.p50"},
                                       {"slowdown_p95", "slowdown.p95"},
                                       {"slowdown_p99", "slowdown.p99"},
                                       {"slowdown_mean", "slowdown.mean"}};
constexpr Column kTailColumns[] = {
    {"drops_total", "drops.total"}, {"pause_frames_sent", "pfc.pause_frames_sent"},
    {"ecn_marks", "ecn_marks"},     {"cnps_sent", "cnps_sent"},
    {"sim_seconds", "sim_seconds"}, {"events", "events"}};
// Last: the only column that differs between identical runs.
constexpr Column kCpuColumn = {"cpu_seconds", "run.cpu_seconds"};
// Tail columns that get a mean and interval over seeds (sim_seconds and
// events describe the run, not the network).
constexpr const char* kTailStatistics[] = {"drops_total", "pause_frames_sent", "ecn_marks",
                                           "cnps_sent"};
// The key whose values are the repetitions of a point, not a parameter.
constexpr std::string_view kSeedKey = "seed";

const nlohmann::json* Find(const nlohmann::json& j, std::string_view dotted) {
  const nlohmann::json* cur = &j;
  while (true) {
    const size_t dot = dotted.find('.');
    const std::string key(dotted.substr(0, dot));
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string_view::npos) return cur;
    dotted.remove_prefix(dot + 1);
  }
}

std::string Text(const nlohmann::json* v) {
  if (v == nullptr || v->is_null()) return "";
  if (v->is_string()) return v->get<std::string>();
  return v->dump();  // numbers: exact, shortest round-trip form
}

// The size buckets of slowdown_stats.h in order, as {summary name, column suffix}.
std::vector<std::pair<std::string, std::string>> Buckets() {
  std::vector<std::pair<std::string, std::string>> out;
  for (int64_t size :
       {int64_t{0}, int64_t{10'000}, int64_t{100'000}, int64_t{1'000'000}, int64_t{10'000'000}}) {
    const std::string name = SizeBucket(size);
    std::string suffix;
    for (char c : name) {
      if (c == '<') {
        suffix += "lt";
      } else if (c == '>') {
        suffix += "gt";
      } else if (c == '-') {
        suffix += '_';
      } else {
        suffix += c;
      }
    }
    out.emplace_back(name, "slowdown_p99_" + suffix);
  }
  return out;
}

// A number's shortest text that reads back to the same double.
std::string Number(double v) {
  return fmt::format("{}", v);
}

std::optional<double> ParseNumber(const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

// A swept value as sweep.csv writes it: a percentage as the fraction it
// stands for ("30%" -> 0.3), so the column is numeric; anything else as
// written (a size or time keeps its unit, which says what the number is).
std::string ParameterText(const std::string& label) {
  if (label.size() > 1 && label.back() == '%')
    if (std::optional<double> v = ParseNumber(label.substr(0, label.size() - 1)))
      return Number(*v / 100);
  return label;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

const char* StatusName(PointStatus s) {
  switch (s) {
    case PointStatus::kOk:
      return "ok";
    case PointStatus::kFailed:
      return "failed";
    case PointStatus::kNotRun:
      break;
  }
  return "not_run";
}

nlohmann::json SummaryRow(const nlohmann::json& summary) {
  nlohmann::json row = nlohmann::json::object();
  for (const Column& c : kFlowColumns) row[c.name] = Text(Find(summary, c.path));
  const nlohmann::json* total = Find(summary, "flows.total");
  const nlohmann::json* completed = Find(summary, "flows.completed");
  const bool counted = total != nullptr && total->is_number_integer() && completed != nullptr &&
                       completed->is_number_integer();
  if (counted) {
    const int64_t n = total->get<int64_t>(), done = completed->get<int64_t>();
    const int64_t incomplete = n > done ? n - done : 0;
    row["flows_incomplete"] = std::to_string(incomplete);
    row["flows_incomplete_fraction"] =
        n > 0 ? Number(static_cast<double>(incomplete) / static_cast<double>(n)) : "";
  }
  // Slowdown percentiles of no flow at all are not a number: left empty, so
  // neither a reader nor the mean over seeds takes them for 0.
  const bool any_completed = !counted || completed->get<int64_t>() > 0;
  for (const Column& c : kSlowdownColumns)
    row[c.name] = any_completed ? Text(Find(summary, c.path)) : "";
  for (const Column& c : kTailColumns) row[c.name] = Text(Find(summary, c.path));
  row[kCpuColumn.name] = Text(Find(summary, kCpuColumn.path));
  for (const auto& [bucket, column] : Buckets()) {
    const nlohmann::json* group = Find(summary, "slowdown_groups.by_size");
    if (group == nullptr || !group->is_object()) break;
    auto it = group->find(bucket);
    if (it == group->end()) continue;
    const nlohmann::json* count = Find(*it, "count");
    if (count == nullptr || !count->is_number() || count->get<double>() <= 0) continue;
    row[column] = Text(Find(*it, "p99"));
  }
  return row;
}

nlohmann::json OutcomesToJson(const std::vector<PointOutcome>& outcomes,
                              const std::vector<size_t>& indices) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i : indices)
    out.push_back(
        {{"index", i}, {"status", static_cast<int>(outcomes[i].status)}, {"row", outcomes[i].row}});
  return out;
}

void MergeOutcomes(const nlohmann::json& j, std::vector<PointOutcome>& outcomes) {
  for (const nlohmann::json& e : j) {
    const size_t i = e.at("index").get<size_t>();
    if (i >= outcomes.size()) continue;
    outcomes[i].status = static_cast<PointStatus>(e.at("status").get<int>());
    outcomes[i].row = e.at("row");
  }
}

namespace {

// The value of `key` at `pt` as sweep.csv writes it: the point's own value;
// else the `set:` value every point gets; else empty (the base scenario's).
std::string ParameterValue(const SweepSpec& spec, const SweepPoint& pt, const std::string& key) {
  std::string label;
  for (const Setting& s : spec.set)
    if (s.key == key) label = s.label;
  for (const Setting& s : pt.settings)
    if (s.key == key) label = s.label;
  return ParameterText(label);
}

std::string Cell(const PointOutcome& o, const std::string& column) {
  if (o.status != PointStatus::kOk || !o.row.contains(column) || !o.row[column].is_string())
    return "";
  return o.row[column].get<std::string>();
}

// The points that repeat one another over seeds: same values of every
// parameter but the seed. Returns each point's group number (groups in
// order of first appearance).
std::vector<size_t> SeedGroups(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                               const std::vector<std::string>& params) {
  std::map<std::vector<std::string>, size_t> ids;
  std::vector<size_t> group;
  for (const SweepPoint& pt : points) {
    std::vector<std::string> key;
    for (const std::string& p : params)
      if (p != kSeedKey) key.push_back(ParameterValue(spec, pt, p));
    group.push_back(ids.emplace(key, ids.size()).first->second);
  }
  return group;
}

}  // namespace

std::string SweepCsv(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                     const std::vector<PointOutcome>& outcomes) {
  const std::vector<std::string> params = ParameterKeys(spec);
  // Per-point results, then `seeds` and a mean and interval per statistic,
  // then cpu_seconds.
  std::vector<std::string> results, statistics;
  for (const Column& c : kFlowColumns) results.push_back(c.name);
  for (const char* c : kIncompleteColumns) results.push_back(c);
  statistics.push_back("flows_incomplete_fraction");
  for (const Column& c : kSlowdownColumns) results.push_back(c.name);
  for (const auto& [bucket, column] : Buckets()) {
    const bool any = std::any_of(outcomes.begin(), outcomes.end(), [&](const PointOutcome& o) {
      return o.status == PointStatus::kOk && o.row.contains(column);
    });
    if (any) results.push_back(column);
  }
  for (size_t i = 2 + std::size(kIncompleteColumns); i < results.size(); ++i)
    statistics.push_back(results[i]);  // the slowdowns
  for (const Column& c : kTailColumns) results.push_back(c.name);
  for (const char* c : kTailStatistics) statistics.push_back(c);

  // Statistics per group of seeds, over its ok points that have the metric.
  const std::vector<size_t> group = SeedGroups(spec, points, params);
  const size_t groups = group.empty() ? 0 : *std::max_element(group.begin(), group.end()) + 1;
  std::vector<size_t> seeds(groups, 0);
  std::vector<std::vector<std::string>> stat_text(groups);
  for (size_t g = 0; g < groups; ++g) {
    for (const std::string& metric : statistics) {
      std::vector<double> values;
      for (size_t i = 0; i < points.size(); ++i) {
        if (group[i] != g) continue;
        if (std::optional<double> v = ParseNumber(Cell(outcomes.at(points[i].index), metric)))
          values.push_back(*v);
      }
      const MeanCi m = MeanAndCi95(values);
      stat_text[g].push_back(m.n > 0 ? Number(m.mean) : "");
      stat_text[g].push_back(m.ci95 ? Number(*m.ci95) : "");
    }
    for (size_t i = 0; i < points.size(); ++i)
      if (group[i] == g && outcomes.at(points[i].index).status == PointStatus::kOk) ++seeds[g];
  }

  std::string csv = "point,dir";
  for (const std::string& p : params) csv += "," + CsvField(p);
  csv += ",status";
  for (const std::string& r : results) csv += "," + r;
  csv += ",seeds";
  for (const std::string& m : statistics) csv += "," + m + "_mean," + m + "_ci95";
  csv += ",";
  csv += kCpuColumn.name;
  csv += "\n";
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& pt = points[i];
    const PointOutcome& o = outcomes.at(pt.index);
    csv += std::to_string(pt.index) + "," + CsvField(pt.name);
    for (const std::string& key : params) csv += "," + CsvField(ParameterValue(spec, pt, key));
    csv += ",";
    csv += StatusName(o.status);
    for (const std::string& r : results) csv += "," + CsvField(Cell(o, r));
    csv += "," + std::to_string(seeds[group[i]]);
    for (const std::string& text : stat_text[group[i]]) csv += "," + text;
    csv += "," + CsvField(Cell(o, kCpuColumn.name));
    csv += "\n";
  }
  return csv;
}

}  // namespace rocesim::sweep
