// Random dependency workloads for the tests of flows that wait for flows
// (transport/flow_dependencies.h, workload/dependency_file.h): a random DAG
// whose every edge respects the source-host rule (a flow waits only for
// flows that start or end at its own source host), written as a CSV or a
// JSON dependency file, rows in shuffled order so that a flow may wait for
// one listed after it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/time.h"

namespace rocesim::test {

struct DagFlow {
  std::string id;
  int src = 0, dst = 0;
  int64_t size = 0;
  std::string size_text;  // as written ("12345", "12KiB")
  std::vector<int> deps;  // indices into the workload (file order)
  Time delay = 0;
  Time start = 0;
  std::string tag;  // empty: the entry's
};

struct DagOptions {
  int hosts = 8;
  int min_flows = 60, max_flows = 200;
  int64_t min_size = 1000, max_size = 300'000;
  int max_deps = 3;
  Time max_delay = 5 * kMicrosecond;
  double start_fraction = 0;  // flows with a nonzero `start` (up to max_start)
  Time max_start = 200 * kMicrosecond;
  double tag_fraction = 0;  // flows with their own tag
};

// Flows in file order; deps name file indices.
inline std::vector<DagFlow> RandomDag(uint64_t seed, const DagOptions& o) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  const int n = static_cast<int>(uniform(o.min_flows, o.max_flows));
  std::vector<DagFlow> gen(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    DagFlow& f = gen[i];
    f.id = "g" + std::to_string(seed) + ".f-" + std::to_string(i);
    f.src = static_cast<int>(uniform(0, o.hosts - 1));
    f.dst = static_cast<int>(uniform(0, o.hosts - 2));
    if (f.dst >= f.src) ++f.dst;
    if (uniform(0, 3) == 0) {
      const int64_t k = std::max<int64_t>(1, uniform(o.min_size, o.max_size) / 1024);
      f.size = k * 1024;
      f.size_text = std::to_string(k) + "KiB";
    } else {
      f.size = uniform(o.min_size, o.max_size);
      f.size_text = std::to_string(f.size);
    }
    // Predecessors among earlier flows touching this flow's source host,
    // mostly recent ones so that chains grow long.
    std::vector<int> cand;
    for (int j = i - 1; j >= 0 && cand.size() < 12; --j)
      if (gen[j].src == f.src || gen[j].dst == f.src) cand.push_back(j);
    std::shuffle(cand.begin(), cand.end(), rng);
    const auto k = std::min<size_t>(cand.size(), static_cast<size_t>(uniform(0, o.max_deps)));
    f.deps.assign(cand.begin(), cand.begin() + static_cast<std::ptrdiff_t>(k));
    f.delay = uniform(0, 3) == 0 ? 0 : uniform(0, o.max_delay);
    if (std::uniform_real_distribution<double>(0, 1)(rng) < o.start_fraction)
      f.start = uniform(1, o.max_start);
    if (std::uniform_real_distribution<double>(0, 1)(rng) < o.tag_fraction)
      f.tag = "t" + std::to_string(uniform(0, 3));
  }
  // File order: a random permutation (a flow may wait for a later row).
  std::vector<int> order(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<int> row_of(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) row_of[order[r]] = r;
  std::vector<DagFlow> out;
  out.reserve(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    DagFlow f = gen[order[r]];
    for (int& d : f.deps) d = row_of[d];
    out.push_back(std::move(f));
  }
  return out;
}

inline std::string TimeText(Time t) {
  if (t == 0) return "0";
  if (t % kMicrosecond == 0) return std::to_string(t / kMicrosecond) + "us";
  if (t % kNanosecond == 0) return std::to_string(t / kNanosecond) + "ns";
  return std::to_string(t) + "ps";
}

// The workload as CSV: columns in a seed-chosen order, comments, blank
// lines, ';' and space separators, CRLF line ends when `crlf`.
inline std::string DagCsv(const std::vector<DagFlow>& flows, uint64_t seed, bool crlf = false) {
  std::mt19937_64 rng(seed ^ 0x5eedc5f);
  std::vector<std::string> cols = {"id", "src", "dst", "size", "depends_on", "delay", "start"};
  const bool tags =
      std::any_of(flows.begin(), flows.end(), [](const DagFlow& f) { return !f.tag.empty(); });
  if (tags) cols.push_back("tag");
  std::shuffle(cols.begin(), cols.end(), rng);
  const std::string eol = crlf ? "\r\n" : "\n";
  const std::vector<std::string> seps = {";", " ", "; ", " ;", "  "};
  std::string out = "# a generated workload (seed " + std::to_string(seed) + ")" + eol;
  for (size_t c = 0; c < cols.size(); ++c) out += (c ? "," : "") + cols[c];
  out += eol;
  for (size_t i = 0; i < flows.size(); ++i) {
    const DagFlow& f = flows[i];
    if (rng() % 17 == 0) out += eol;
    if (rng() % 19 == 0) out += "   # a comment line" + eol;
    for (size_t c = 0; c < cols.size(); ++c) {
      if (c) out += rng() % 5 == 0 ? " , " : ",";
      const std::string& col = cols[c];
      if (col == "id") {
        out += f.id;
      } else if (col == "src") {
        out += std::to_string(f.src);
      } else if (col == "dst") {
        out += std::to_string(f.dst);
      } else if (col == "size") {
        out += f.size_text;
      } else if (col == "depends_on") {
        for (size_t d = 0; d < f.deps.size(); ++d)
          out += (d ? seps[rng() % seps.size()] : "") + flows[f.deps[d]].id;
      } else if (col == "delay") {
        if (f.delay != 0 || rng() % 2 == 0) out += TimeText(f.delay);
      } else if (col == "start") {
        if (f.start != 0 || rng() % 2 == 0) out += TimeText(f.start);
      } else if (col == "tag") {
        out += f.tag;
      }
    }
    if (rng() % 13 == 0) out += "  # trailing comment";
    out += eol;
  }
  return out;
}

inline std::string DagJson(const std::vector<DagFlow>& flows, uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x150f);
  nlohmann::json list = nlohmann::json::array();
  for (const DagFlow& f : flows) {
    nlohmann::json j;
    j["id"] = f.id;
    j["src"] = f.src;
    // Numbers and strings alike.
    if (rng() % 2 == 0) {
      j["dst"] = f.dst;
    } else {
      j["dst"] = std::to_string(f.dst);
    }
    if (f.size_text.find("KiB") == std::string::npos && rng() % 2 == 0) {
      j["size"] = f.size;
    } else {
      j["size"] = f.size_text;
    }
    if (!f.deps.empty() || rng() % 2 == 0) {
      nlohmann::json deps = nlohmann::json::array();
      for (int d : f.deps) deps.push_back(flows[d].id);
      j["depends_on"] = deps;
    }
    if (f.delay != 0 || rng() % 2 == 0) j["delay"] = TimeText(f.delay);
    if (f.start != 0) j["start"] = TimeText(f.start);
    if (!f.tag.empty()) j["tag"] = f.tag;
    list.push_back(std::move(j));
  }
  return nlohmann::json{{"flows", list}}.dump(rng() % 2 == 0 ? 2 : -1);
}

}  // namespace rocesim::test
