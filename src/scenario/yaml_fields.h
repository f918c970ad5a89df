// Internal to the scenario reader: YAML fields that remember where they came
// from (file position or --set override), validated maps, and the Reader whose
// typed accessors turn a field into a value or an error naming file, line,
// column and field path. Sections are read in scenario_reader.cpp (topology,
// switch, host, monitors), traffic_section.cpp, cc_section.cpp and faults_section.cpp.
#pragma once

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/scenario.h"
#include "scenario/scenario_reader.h"

namespace rocesim::scenario_detail {

using Keys = std::vector<std::string_view>;

// Upper bound for topology counts: keeps k^3/4 and leaves*hosts_per_leaf far
// from int64 overflow before the total host count is checked against int.
constexpr int64_t kMaxCount = 1 << 20;

// A node put into the tree by --set (its value, or a map created on its path).
struct Override {
  std::string text;  // the override as given, e.g. "switch.alpha=1/8"
  YAML::Node node;
};

struct Field {
  YAML::Node node;
  std::string path;                     // e.g. "switch.ecn.kmin"; "" for the top level
  const std::string* origin = nullptr;  // the --set text this node came from
};

std::string JoinPath(const std::string& parent, std::string_view key);
std::string Describe(const YAML::Node& node);
// The allowed name closest to `word`, or empty if nothing is close.
std::string_view ClosestMatch(std::string_view word, const Keys& allowed);
// "; did you mean 'alpha'?" for a close match, else "; allowed keys are: ...".
std::string Suggest(std::string_view word, const Keys& allowed);
std::string IntExpectation(int64_t min, int64_t max);
std::optional<int64_t> ParseInt(std::string_view s);

struct Entry {
  std::string key;
  YAML::Node key_node;
  Field value;
};

// A validated map: only allowed keys, no duplicates.
struct Map {
  Field self;
  std::vector<Entry> entries;

  const Entry* Find(std::string_view key) const {
    for (const Entry& e : entries) {
      if (e.key == key) return &e;
    }
    return nullptr;
  }
  std::optional<Field> Get(std::string_view key) const {
    const Entry* e = Find(key);
    if (e == nullptr) return std::nullopt;
    return e->value;
  }
};

class Reader {
 public:
  Reader(const std::string& file, const std::string& base_dir,
         const std::vector<Override>& overrides)
      : file_(file), base_dir_(base_dir), overrides_(overrides) {}

  Scenario Read(const YAML::Node& root);
  // Collects every key each map read would accept (AcceptedKeys).
  void RecordAcceptedKeys(std::set<std::string>* keys) { accepted_keys_ = keys; }

 private:
  // ---- locations and errors ----
  std::string Where(const Field& f) const {
    if (f.origin != nullptr) return fmt::format("{} (from --set {})", file_, *f.origin);
    const YAML::Mark mark = f.node.Mark();
    if (mark.line >= 0) return fmt::format("{}:{}:{}", file_, mark.line + 1, mark.column + 1);
    return file_;
  }
  [[noreturn]] void Fail(const Field& f, std::string_view msg) const {
    if (f.path.empty()) throw ScenarioError(fmt::format("{}: {}", Where(f), msg));
    throw ScenarioError(fmt::format("{}: {}: {}", Where(f), f.path, msg));
  }
  // For messages that name the field themselves.
  [[noreturn]] void FailNoPath(const Field& f, std::string_view msg) const {
    throw ScenarioError(fmt::format("{}: {}", Where(f), msg));
  }
  [[noreturn]] void Expected(const Field& f, std::string_view expected) const {
    Fail(f, fmt::format("expected {}, got {}", expected, Describe(f.node)));
  }

  const std::string* OriginOf(const YAML::Node& node, const std::string* parent_origin) const {
    // Latest override first: a later --set may write inside an earlier one.
    for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it) {
      if (node.is(it->node)) return &it->text;
    }
    return parent_origin;
  }

  // ---- structure ----
  Map ReadMap(const Field& f, const Keys& allowed) const;
  Field Require(const Map& m, std::string_view key, std::string_view why = {}) const;
  std::vector<Field> List(const Field& f, std::string_view expected) const;
  // Rejects keys of `m` that belong to another variant (topology or traffic type).
  struct TypedKey {
    std::string_view key;
    std::string_view type;
  };
  void CheckTypedKeys(const Map& m, std::string_view type, const std::vector<TypedKey>& keys) const;
  std::string OneOf(const Field& f, const Keys& choices) const;

  // ---- scalars ----
  std::string Scalar(const Field& f, std::string_view expected) const {
    if (!f.node.IsScalar()) Expected(f, expected);
    return f.node.Scalar();
  }
  int64_t Int(const Field& f, int64_t min, int64_t max, std::string_view expected = {}) const;
  int IntField(const Field& f, int64_t min, int64_t max = std::numeric_limits<int>::max()) const {
    return static_cast<int>(Int(f, min, max));
  }
  uint64_t Uint64(const Field& f) const;
  bool Bool(const Field& f) const;
  // Text (names, tags): UTF-8 only, since it ends up in summary.json and the CSVs.
  std::string String(const Field& f) const;
  Time TimeValue(const Field& f, Time min) const;
  int64_t Rate(const Field& f) const;
  // A traffic entry's start_rate: a rate, or "fair" (kFairStartRate).
  int64_t StartRate(const Field& f) const;
  int64_t Size(const Field& f, int64_t min,
               int64_t max = std::numeric_limits<int64_t>::max()) const;
  double Fraction(const Field& f, double min, bool min_inclusive, double max) const;
  std::vector<int> PriorityList(const Field& f) const;
  int HostId(const Field& f) const;
  // A file name relative to the scenario's directory, made absolute (and
  // written back into the tree, so the scenario as run works from anywhere).
  std::string ResolvePath(const Field& f) const;

  // ---- sections ----
  void ReadTopology(const Field& f, TopologyConfig& t);
  void CheckBuildable(const Field& f, const Map& m, const TopologyConfig& t) const;
  void ReadLink(const Field& f, int64_t& rate, Time& delay) const;
  void ReadSwitch(const Field& f, SwitchConfig& s) const;
  void ReadRcm(const Field& f, bool cioq, RcmConfig& r) const;
  void ReadHost(const Field& f, HostConfig& h) const;
  // Congestion control (cc_section.cpp).
  CcKind ReadCcKind(const Field& f) const;
  void ReadDcqcn(const Field& f, DcqcnParams& p) const;
  void ReadTimely(const Field& f, TimelyParams& p) const;
  void ReadDctcp(const Field& f, DctcpParams& p) const;
  void ReadHpcc(const Field& f, HpccParams& p) const;
  void ReadLdcp(const Field& f, LdcpParams& p) const;
  TrafficSpec ReadTraffic(const Field& f) const;
  // A `type: collective` entry's own keys (collective_section.cpp).
  void ReadCollective(const Map& m, TrafficSpec& t) const;
  // A job's ranks (`ranks` or `servers`, else every host) into t.hosts; the
  // field to blame for a bad rank count.
  Field ReadRanks(const Map& m, TrafficSpec& t) const;
  // A job that would expand into more messages than memory holds is
  // refused before it is built (`what`: "collective", "training job").
  void RefuseTooManyMessages(const Map& m, std::string_view what, double messages) const;
  // A `type: aicb_workload` entry's own keys (training_section.cpp).
  void ReadTraining(const Map& m, TrafficSpec& t) const;
  // A collective's `after` names an earlier collective entry (the last of `traffic`).
  void CheckFollowedJob(const Field& item, const std::vector<TrafficSpec>& traffic) const;
  std::vector<int> ReadSenders(const Field& f) const;
  void ReadMonitors(const Field& f, MonitorConfig& m) const;
  void ReadHpccQlen(const Field& f, OutputConfig::HpccQlen& q) const;
  void ReadPcap(const Field& f, PcapConfig& pc) const;
  // Faults and watchdogs (faults_section.cpp).
  FaultSpec ReadFault(const Field& f) const;
  void ReadWatchdog(const Field& f, WatchdogConfig& w, bool is_switch) const;
  void ReadRxBuffer(const Field& f, RxBufferConfig& b) const;

  const std::string& file_;
  const std::string& base_dir_;
  const std::vector<Override>& overrides_;
  std::set<std::string>* accepted_keys_ = nullptr;
  // Every map entry's and list item's location (Scenario::field_locations):
  // recorded as the reading goes, so by the const readers.
  mutable std::map<std::string, std::string, std::less<>> locations_;
  int hosts_ = 0;            // host count of the topology, once read
  int gpus_per_server_ = 1;  // ... and its GPU servers' size
};

}  // namespace rocesim::scenario_detail
