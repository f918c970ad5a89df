// sweep.csv: result columns from summary.json and the table (sweep_results.h).
#include "sweep/sweep_results.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "stats/slowdown_stats.h"

namespace rocesim::sweep {
namespace {

// summary.json field (dotted path) -> column, in column order; the size-bucket
// columns go after slowdown_mean.
struct Column {
  const char* name;
  const char* path;
};
constexpr Column kHeadColumns[] = {
    {"flows_total", "flows.total"},   {"flows_completed", "flows.completed"},
    {"slowdown_p50", "slowdown.p50"}, {"slowdown_p95", "slowdown.p95"},
    {"slowdown_p99", "slowdown.p99"}, {"slowdown_mean", "slowdown.mean"}};
constexpr Column kTailColumns[] = {
    {"drops_total", "drops.total"},    {"pause_frames_sent", "pfc.pause_frames_sent"},
    {"ecn_marks", "ecn_marks"},        {"cnps_sent", "cnps_sent"},
    {"sim_seconds", "sim_seconds"},    {"events", "events"},
    {"cpu_seconds", "run.cpu_seconds"}};

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
  for (const Column& c : kHeadColumns) row[c.name] = Text(Find(summary, c.path));
  for (const Column& c : kTailColumns) row[c.name] = Text(Find(summary, c.path));
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

std::string SweepCsv(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                     const std::vector<PointOutcome>& outcomes) {
  const std::vector<std::string> params = ParameterKeys(spec);
  std::vector<std::string> results;
  for (const Column& c : kHeadColumns) results.push_back(c.name);
  for (const auto& [bucket, column] : Buckets()) {
    const bool any = std::any_of(outcomes.begin(), outcomes.end(), [&](const PointOutcome& o) {
      return o.status == PointStatus::kOk && o.row.contains(column);
    });
    if (any) results.push_back(column);
  }
  for (const Column& c : kTailColumns) results.push_back(c.name);

  std::string csv = "point,dir";
  for (const std::string& p : params) csv += "," + CsvField(p);
  csv += ",status";
  for (const std::string& r : results) csv += "," + r;
  csv += "\n";
  for (const SweepPoint& pt : points) {
    const PointOutcome& o = outcomes.at(pt.index);
    csv += std::to_string(pt.index) + "," + CsvField(pt.name);
    for (const std::string& key : params) {
      // The point's own value; else the `set:` value every point gets; else empty
      // (the base scenario's value).
      std::string value;
      for (const Setting& s : spec.set)
        if (s.key == key) value = s.label;
      for (const Setting& s : pt.settings)
        if (s.key == key) value = s.label;
      csv += "," + CsvField(value);
    }
    csv += ",";
    csv += StatusName(o.status);
    for (const std::string& r : results) {
      std::string value;
      if (o.status == PointStatus::kOk && o.row.contains(r) && o.row[r].is_string())
        value = o.row[r].get<std::string>();
      csv += "," + CsvField(value);
    }
    csv += "\n";
  }
  return csv;
}

}  // namespace rocesim::sweep
