// A parameter sweep file (`rocesim sweep SWEEP.yaml`, docs/sweep.md): a base
// scenario plus override sets, expanded into an ordered list of points. Each
// point is the base scenario with `--set key=value` overrides; the sweep runs
// every point into its own results directory and tabulates them (sweep.csv).
//
//   base: scenario.yaml          # relative to the sweep file (required)
//   grid:                        # cartesian product; first key outermost,
//     host.cc: [dcqcn, hpcc]     #   last key varies fastest
//     traffic.0.load: [30%, 50%]
//   points:                      # explicit override maps, after the grid
//     - {host.cc: timely, traffic.0.load: 70%}
//   set: {duration: 2ms}         # applied to every point, before its own values
//   output: results/my-sweep     # default results/<sweep file stem>; -o overrides
//
// Errors carry file:line:column like the scenario reader's, and every point is
// checked by loading its scenario before anything runs (ValidatePoints).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "scenario/scenario_reader.h"

namespace rocesim::sweep {

// Any problem with a sweep file or one of its points. Derives from
// ScenarioError so callers treat both alike (exit status 2); what() is a
// complete, user-facing message.
class SweepError : public ScenarioError {
 public:
  using ScenarioError::ScenarioError;
};

// A position in the sweep file (1-based; 0 when unknown).
struct Mark {
  int line = 0;
  int column = 0;
};

// One `key: value` override taken from the sweep file.
struct Setting {
  std::string key;    // override path as written, e.g. "traffic.0.load"
  std::string value;  // the value as YAML text for --set: "30%", "[3, 4]", "\"a: b\""
  std::string label;  // the value for people and sweep.csv: "30%", "[3, 4]", "a: b"
  Mark mark;          // where the value is in the sweep file
  Mark key_mark;      // where the key is
  std::string Arg() const { return key + "=" + value; }  // "key=value" for --set
};

struct GridAxis {
  std::string key;
  std::vector<Setting> values;
};

struct SweepSpec {
  std::string file;  // the sweep file as named by the user (error messages)
  std::string base;  // the base scenario path, resolved against the sweep file's directory
  Mark base_mark;
  std::string output;  // `output:` as written ("" if absent); relative to the current directory
  std::vector<Setting> set;
  std::vector<GridAxis> grid;                // in file order
  std::vector<std::vector<Setting>> points;  // explicit points, in file order
};

struct SweepPoint {
  size_t index = 0;               // 0-based position in the expanded list
  std::string name;               // results directory name (PointName)
  std::vector<Setting> settings;  // the point's own values (grid or explicit entry)
};

// Points the grid may expand to before the sweep is refused as a likely mistake.
constexpr size_t kMaxPoints = 100000;

// Parses sweep text. `display_name` names it in errors; `base_dir` resolves `base:`
// ("" = current directory). Checks structure only; ValidatePoints checks values.
SweepSpec ParseSweepText(const std::string& text, const std::string& display_name,
                         const std::string& base_dir);
// Reads and parses a sweep file; `base:` resolves against the file's directory.
SweepSpec LoadSweep(const std::string& path);

// The grid's cartesian product (first key outermost, the last key varying
// fastest, values in list order) followed by the explicit points, numbered from 0.
std::vector<SweepPoint> ExpandPoints(const SweepSpec& spec);

// The swept keys, one sweep.csv column each: grid keys in file order, then keys
// that only explicit points set, in order of first appearance. `set:` keys are
// constant and not listed (unless a grid or point also sets them).
std::vector<std::string> ParameterKeys(const SweepSpec& spec);

// The --set arguments of a point: `set:` entries, then the point's own values
// (so a point's value wins over `set:` for the same key).
std::vector<std::string> OverrideArgs(const SweepSpec& spec, const SweepPoint& point);

// "p0003_host.cc=hpcc_traffic.0.load=50pct": the zero-padded index (at least
// `digits` wide) and key=value pairs, with '%' spelt "pct", characters other
// than [A-Za-z0-9._+=-] replaced by '-', and the pairs cut to keep names short.
// Unique because of the index; readable for people browsing the directory.
std::string PointName(size_t index, size_t digits, const std::vector<Setting>& settings);

// Loads every point's scenario (LoadScenario with its overrides) and throws
// SweepError for the first one that fails, naming the sweep file position of the
// offending value (when an override is to blame), the point and the reader's message.
void ValidatePoints(const SweepSpec& spec, const std::vector<SweepPoint>& points);

}  // namespace rocesim::sweep
