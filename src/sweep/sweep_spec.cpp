// Sweep file parsing, grid expansion, point naming and validation (sweep_spec.h).
#include "sweep/sweep_spec.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include "scenario/yaml_fields.h"

namespace rocesim::sweep {
namespace {

using scenario_detail::Describe;
using scenario_detail::Keys;
using scenario_detail::Suggest;

const Keys kTopLevelKeys = {"base", "grid", "points", "set", "output"};

Mark MarkOf(const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  if (m.line < 0) return {};
  return {m.line + 1, m.column + 1};
}

std::string At(const std::string& file, Mark mark) {
  if (mark.line <= 0) return file;
  return fmt::format("{}:{}:{}", file, mark.line, mark.column);
}

// Reads the sweep file's YAML tree, reporting problems at their position.
class Parser {
 public:
  explicit Parser(const std::string& file) : file_(file) {}

  [[noreturn]] void Fail(const YAML::Node& node, std::string_view path,
                         std::string_view msg) const {
    if (path.empty()) throw SweepError(fmt::format("{}: {}", At(file_, MarkOf(node)), msg));
    throw SweepError(fmt::format("{}: {}: {}", At(file_, MarkOf(node)), path, msg));
  }

  std::string String(const YAML::Node& node, std::string_view path) const {
    if (!node.IsScalar() || node.Scalar().empty())
      Fail(node, path, fmt::format("expected a file name, got {}", Describe(node)));
    return node.Scalar();
  }

  // An override key: a dotted path of non-empty names, as `--set` takes it.
  std::string Key(const YAML::Node& key, std::string_view path) const {
    if (!key.IsScalar() || key.Scalar().empty())
      Fail(key, path, "keys must be override paths like host.cc or traffic.0.load");
    const std::string k = key.Scalar();
    const bool bad_char = std::any_of(k.begin(), k.end(), [](char c) {
      return c == '=' || std::isspace(static_cast<unsigned char>(c)) != 0;
    });
    if (bad_char || k.front() == '.' || k.back() == '.' || k.find("..") != std::string::npos) {
      Fail(key, path,
           fmt::format("'{}' is not an override path; expected names joined by dots, like "
                       "host.cc or traffic.0.load",
                       k));
    }
    return k;
  }

  Setting MakeSetting(const YAML::Node& key, const YAML::Node& value) const {
    Setting s;
    s.key = key.Scalar();
    s.key_mark = MarkOf(key);
    YAML::Emitter out;
    out.SetSeqFormat(YAML::Flow);
    out.SetMapFormat(YAML::Flow);
    out << value;
    s.value = out.c_str();
    s.label = value.IsScalar() ? value.Scalar() : s.value;
    s.mark = MarkOf(value);
    return s;
  }

  // A map of override path -> value (`set:` or one entry of `points:`).
  std::vector<Setting> Settings(const YAML::Node& node, const std::string& path) const {
    std::vector<Setting> out;
    if (node.IsNull()) return out;
    if (!node.IsMap())
      Fail(node, path,
           fmt::format("expected a map of override path -> value, like {{host.cc: hpcc}}, "
                       "got {}",
                       Describe(node)));
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = Key(it->first, path);
      for (const Setting& s : out)
        if (s.key == key) Fail(it->first, path, fmt::format("key '{}' appears twice", key));
      out.push_back(MakeSetting(it->first, it->second));
    }
    return out;
  }

  std::vector<GridAxis> Grid(const YAML::Node& node) const {
    if (!node.IsMap() || node.size() == 0)
      Fail(node, "grid",
           fmt::format("expected a map of override path -> list of values, like "
                       "{{host.cc: [dcqcn, hpcc]}}, got {}",
                       Describe(node)));
    std::vector<GridAxis> axes;
    for (auto it = node.begin(); it != node.end(); ++it) {
      GridAxis axis;
      axis.key = Key(it->first, "grid");
      for (const GridAxis& a : axes)
        if (a.key == axis.key)
          Fail(it->first, "grid", fmt::format("key '{}' appears twice", axis.key));
      const std::string path = "grid." + axis.key;
      const YAML::Node values = it->second;
      if (!values.IsSequence())
        Fail(values, path,
             fmt::format("expected a list of values like [a, b], got {}", Describe(values)));
      if (values.size() == 0) Fail(values, path, "expected at least one value, got an empty list");
      for (size_t i = 0; i < values.size(); ++i)
        axis.values.push_back(MakeSetting(it->first, values[i]));
      axes.push_back(std::move(axis));
    }
    return axes;
  }

 private:
  const std::string& file_;
};

// Scenario reader messages about an override's key path (scenario_reader.cpp).
constexpr const char* kPathProblems[] = {"unknown key", "is not an index", "is out of range",
                                         "is a single value", "empty key in the path"};

size_t Digits(size_t n) {
  size_t d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
}

}  // namespace

SweepSpec ParseSweepText(const std::string& text, const std::string& display_name,
                         const std::string& base_dir) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw SweepError(fmt::format("{}:{}:{}: invalid YAML: {}", display_name, e.mark.line + 1,
                                 e.mark.column + 1, e.msg));
  } catch (const YAML::Exception& e) {
    throw SweepError(fmt::format("{}: invalid YAML: {}", display_name, e.msg));
  }
  const Parser p(display_name);
  if (!root.IsMap())
    p.Fail(
        root, "",
        fmt::format("expected a map with base: and grid: and/or points:, got {}", Describe(root)));

  SweepSpec spec;
  spec.file = display_name;
  std::optional<YAML::Node> base, grid, points, set, output;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const YAML::Node key = it->first;
    if (!key.IsScalar()) p.Fail(key, "", "map keys must be plain names");
    const std::string k = key.Scalar();
    std::optional<YAML::Node>* slot = k == "base"     ? &base
                                      : k == "grid"   ? &grid
                                      : k == "points" ? &points
                                      : k == "set"    ? &set
                                      : k == "output" ? &output
                                                      : nullptr;
    if (slot == nullptr)
      p.Fail(key, "", fmt::format("unknown key '{}'{}", k, Suggest(k, kTopLevelKeys)));
    if (slot->has_value()) p.Fail(key, "", fmt::format("key '{}' appears twice", k));
    *slot = it->second;
  }

  if (!base) p.Fail(root, "", "missing required key 'base' (the scenario file to sweep)");
  spec.base_mark = MarkOf(*base);
  const std::filesystem::path base_path = p.String(*base, "base");
  spec.base = base_path.is_absolute() || base_dir.empty()
                  ? base_path.lexically_normal().string()
                  : (std::filesystem::path(base_dir) / base_path).lexically_normal().string();
  if (!std::ifstream(spec.base))
    p.Fail(*base, "base",
           fmt::format("cannot open scenario file '{}': {}", spec.base, std::strerror(errno)));

  if (output) spec.output = p.String(*output, "output");
  if (set) spec.set = p.Settings(*set, "set");
  if (grid) spec.grid = p.Grid(*grid);
  if (points) {
    if (!points->IsSequence())
      p.Fail(*points, "points",
             fmt::format("expected a list of override maps, like [{{host.cc: hpcc}}], got {}",
                         Describe(*points)));
    for (size_t i = 0; i < points->size(); ++i)
      spec.points.push_back(p.Settings((*points)[i], fmt::format("points.{}", i)));
  }
  if (spec.grid.empty() && spec.points.empty())
    p.Fail(root, "",
           "nothing to sweep: expected 'grid:' (lists of values) and/or 'points:' (override maps)");

  size_t total = spec.points.size();
  if (!spec.grid.empty()) {
    size_t product = 1;
    for (const GridAxis& a : spec.grid) {
      product *= a.values.size();
      if (product > kMaxPoints) break;
    }
    total += product;
  }
  if (total > kMaxPoints)
    p.Fail(
        grid ? *grid : *points, "",
        fmt::format("the sweep has more than {} points; split it into several sweeps", kMaxPoints));
  return spec;
}

SweepSpec LoadSweep(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw SweepError(fmt::format("cannot open sweep file '{}': {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return ParseSweepText(text.str(), path, std::filesystem::path(path).parent_path().string());
}

std::vector<SweepPoint> ExpandPoints(const SweepSpec& spec) {
  size_t grid_points = 0;
  if (!spec.grid.empty()) {
    grid_points = 1;
    for (const GridAxis& a : spec.grid) grid_points *= a.values.size();
  }
  const size_t total = grid_points + spec.points.size();
  const size_t digits = std::max<size_t>(4, Digits(total == 0 ? 0 : total - 1));
  std::vector<SweepPoint> out;
  out.reserve(total);
  for (size_t i = 0; i < grid_points; ++i) {
    SweepPoint pt;
    pt.index = i;
    pt.settings.resize(spec.grid.size());
    size_t rest = i;  // mixed-radix digits of i, the last axis least significant
    for (size_t a = spec.grid.size(); a-- > 0;) {
      const size_t n = spec.grid[a].values.size();
      pt.settings[a] = spec.grid[a].values[rest % n];
      rest /= n;
    }
    out.push_back(std::move(pt));
  }
  for (const std::vector<Setting>& settings : spec.points) {
    SweepPoint pt;
    pt.index = out.size();
    pt.settings = settings;
    out.push_back(std::move(pt));
  }
  for (SweepPoint& pt : out) pt.name = PointName(pt.index, digits, pt.settings);
  return out;
}

std::vector<std::string> ParameterKeys(const SweepSpec& spec) {
  std::vector<std::string> keys;
  const auto add = [&](const std::string& k) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  };
  for (const GridAxis& a : spec.grid) add(a.key);
  for (const std::vector<Setting>& pt : spec.points)
    for (const Setting& s : pt) add(s.key);
  return keys;
}

std::vector<std::string> OverrideArgs(const SweepSpec& spec, const SweepPoint& point) {
  std::vector<std::string> args;
  for (const Setting& s : spec.set) args.push_back(s.Arg());
  for (const Setting& s : point.settings) args.push_back(s.Arg());
  return args;
}

std::string PointName(size_t index, size_t digits, const std::vector<Setting>& settings) {
  constexpr size_t kMaxPairsLength = 100;
  std::string pairs;
  for (const Setting& s : settings) {
    std::string pair = "_" + s.key + "=";
    for (char c : s.label) {
      if (c == '%') {
        pair += "pct";
      } else if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' ||
                 c == '+' || c == '=' || c == '-') {
        pair += c;
      } else {
        pair += '-';
      }
    }
    pairs += pair;
  }
  if (pairs.size() > kMaxPairsLength) pairs.resize(kMaxPairsLength);
  return fmt::format("p{:0{}}{}", index, digits, pairs);
}

void ValidatePoints(const SweepSpec& spec, const std::vector<SweepPoint>& points) {
  std::ifstream in(spec.base, std::ios::binary);
  if (!in)
    throw SweepError(fmt::format("{}: base: cannot open scenario file '{}': {}",
                                 At(spec.file, spec.base_mark), spec.base, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  const std::string base_dir = std::filesystem::path(spec.base).parent_path().string();
  for (const SweepPoint& pt : points) {
    try {
      ParseScenarioText(text.str(), spec.base, base_dir, OverrideArgs(spec, pt), std::nullopt);
    } catch (const ScenarioError& e) {
      const std::string msg = e.what();
      // The reader names an override it blames as "(from --set key=value)".
      Mark blamed = spec.base_mark;
      const auto blames = [&](const Setting& s) {
        return msg.find("(from --set " + s.Arg() + ")") != std::string::npos;
      };
      // Problems with the path (rather than the value) point at the key.
      const bool path_problem =
          std::any_of(std::begin(kPathProblems), std::end(kPathProblems),
                      [&](const char* p) { return msg.find(p) != std::string::npos; });
      auto own = std::find_if(pt.settings.begin(), pt.settings.end(), blames);
      auto common = std::find_if(spec.set.begin(), spec.set.end(), blames);
      if (own != pt.settings.end()) {
        blamed = path_problem ? own->key_mark : own->mark;
      } else if (common != spec.set.end()) {
        blamed = path_problem ? common->key_mark : common->mark;
      }
      throw SweepError(fmt::format("{}: point {}: {}", At(spec.file, blamed), pt.name, msg));
    }
  }
}

}  // namespace rocesim::sweep
