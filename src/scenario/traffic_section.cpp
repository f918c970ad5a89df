// Scenario reader: the `traffic` list — explicit flows, incasts, HPCC flow
// files and the generators (poisson, hotspot, permutation, all_to_all,
// microburst), each validated here and expanded into flows by
// src/workload/generators.cpp when the simulation is built.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/units.h"
#include "scenario/yaml_fields.h"
#include "workload/dependency_file.h"
#include "workload/flow_size_cdf.h"
#include "workload/hpcc_flow_file.h"

namespace rocesim::scenario_detail {

std::vector<int> Reader::ReadSenders(const Field& f) const {
  constexpr std::string_view kExpected = R"(a list of host ids or a range like "1-16")";
  std::vector<int> out;
  // One element: a host id or an inclusive range "a-b".
  const auto add = [&](const Field& item) {
    if (!item.node.IsScalar()) Expected(item, kExpected);
    const std::string s = item.node.Scalar();
    const size_t dash = s.find('-');
    if (dash == std::string::npos || dash == 0) {
      out.push_back(HostId(item));
      return;
    }
    const std::optional<int64_t> lo = ParseInt(s.substr(0, dash));
    const std::optional<int64_t> hi = ParseInt(s.substr(dash + 1));
    if (!lo || !hi || *lo < 0 || *hi < *lo) Expected(item, kExpected);
    if (*hi >= hosts_) {
      Fail(item,
           fmt::format("expected host ids from 0 to {} (the topology has {} hosts), got \"{}\"",
                       hosts_ - 1, hosts_, s));
    }
    for (int64_t h = *lo; h <= *hi; ++h) out.push_back(static_cast<int>(h));
  };
  if (f.node.IsSequence()) {
    for (const Field& item : List(f, kExpected)) add(item);
  } else {
    add(f);
  }
  if (out.empty()) Fail(f, fmt::format("expected at least one sender, got {}", Describe(f.node)));
  return out;
}

// Traffic entries: explicit flows, HPCC flow files, and the generators of
// workload/generators.h (which cites each pattern's source). Generators are
// only validated here; they expand into flows when the fabric is built and
// every host's link rate is known.
TrafficSpec Reader::ReadTraffic(const Field& f) const {
  const Map m =
      ReadMap(f, {"type",   "flows",      "senders",    "receiver",     "size",
                  "start",  "priority",   "cc",         "tag",          "file",
                  "period", "count",      "hosts",      "load",         "cdf",
                  "span",   "groups",     "group_size", "hot_fraction", "hot_hosts_fraction",
                  "src",    "dst",        "duration",   "start_rate",   "max_rate",
                  "op",     "algorithm",  "ranks",      "servers",      "channels",
                  "chunk",  "iterations", "compute",    "after",        "after_compute"});
  const std::string type =
      OneOf(Require(m, "type",
                    " (one of flows, incast, flow_file, poisson, hotspot, "
                    "permutation, all_to_all, microburst, collective, "
                    "dependency_file, aicb_workload)"),
            {"flows", "incast", "flow_file", "poisson", "hotspot", "permutation", "all_to_all",
             "microburst", "collective", "dependency_file", "aicb_workload"});
  {
    // The types each type-specific key applies to.
    using Types = std::vector<std::string_view>;
    const Types generators = {"incast",     "poisson",    "hotspot",    "permutation",
                              "all_to_all", "microburst", "collective", "aicb_workload"};
    const Types poissonish = {"poisson", "hotspot"};
    const Types host_sets = {"poisson", "hotspot", "permutation", "all_to_all"};
    const Types fixed_size = {"incast", "permutation", "all_to_all", "collective"};
    const Types tagged = {"incast",      "flow_file",       "poisson",
                          "permutation", "all_to_all",      "microburst",
                          "collective",  "dependency_file", "aicb_workload"};
    Types with_cc = generators;
    with_cc.push_back("flow_file");
    with_cc.push_back("dependency_file");
    Types with_priority = generators;
    with_priority.push_back("dependency_file");
    const Types collective = {"collective"};
    const Types jobs = {"collective", "aicb_workload"};
    const std::vector<std::pair<std::string_view, Types>> keys = {
        {"flows", {"flows"}},
        {"file", {"flow_file", "dependency_file", "aicb_workload"}},
        {"op", collective},
        {"algorithm", jobs},
        {"ranks", jobs},
        {"servers", jobs},
        {"channels", jobs},
        {"chunk", jobs},
        {"iterations", jobs},
        {"compute", collective},
        {"after", collective},
        {"after_compute", collective},
        {"senders", {"incast"}},
        {"receiver", {"incast"}},
        {"period", {"incast"}},
        {"count", {"incast"}},
        {"size", fixed_size},
        {"start", generators},
        {"priority", with_priority},
        {"cc", with_cc},
        {"tag", tagged},
        {"hosts", host_sets},
        {"load", poissonish},
        {"cdf", poissonish},
        {"span", poissonish},
        {"groups", {"poisson"}},
        {"group_size", {"poisson"}},
        {"hot_fraction", {"hotspot"}},
        {"hot_hosts_fraction", {"hotspot"}},
        {"src", {"microburst"}},
        {"dst", {"microburst"}},
        {"duration", {"microburst"}},
    };
    for (const auto& [key, types] : keys) {
      const Entry* e = m.Find(key);
      if (e == nullptr || std::find(types.begin(), types.end(), type) != types.end()) continue;
      std::string list(types.back());
      if (types.size() > 1) {
        list =
            fmt::format("{} and {}", fmt::join(types.begin(), types.end() - 1, ", "), types.back());
      }
      FailNoPath(
          {e->key_node, "", e->value.origin},
          fmt::format(
              "{} applies to type{} {}, not {}{}", e->value.path, types.size() > 1 ? "s" : "", list,
              type,
              type == "flows" && (key == "cc" || key == "tag") ? " (set it on each flow)" : ""));
    }
  }
  TrafficSpec t;
  // Every type: its flows' start rate and rate cap.
  if (auto v = m.Get("start_rate")) t.start_rate_bps = StartRate(*v);
  if (auto v = m.Get("max_rate")) t.max_rate_bps = Rate(*v);
  const auto common = [&](std::string_view default_tag) {
    t.tag = default_tag;
    if (auto v = m.Get("start")) t.start = TimeValue(*v, 0);
    if (auto v = m.Get("priority")) t.priority = IntField(*v, 0, kNumPriorities - 1);
    if (auto v = m.Get("cc")) t.cc = ReadCcKind(*v);
    if (auto v = m.Get("tag")) t.tag = String(*v);
  };
  // `hosts`: participating hosts, distinct, at least two; empty = all hosts.
  const auto participants = [&]() {
    if (auto v = m.Get("hosts")) {
      if (v->node.IsSequence() && v->node.size() == 0) {
        Fail(*v, "expected at least two hosts, got an empty list");
      }
      t.hosts = ReadSenders(*v);
      std::vector<bool> seen(static_cast<size_t>(hosts_), false);
      for (int h : t.hosts) {
        if (seen[h]) Fail(*v, fmt::format("host {} is listed twice", h));
        seen[h] = true;
      }
      if (t.hosts.size() < 2) {
        Fail(*v, fmt::format("expected at least two hosts, got {}", Describe(v->node)));
      }
      return static_cast<int>(t.hosts.size());
    }
    if (hosts_ < 2)
      Fail(m.self, fmt::format("needs at least two hosts; the topology has {}", hosts_));
    return hosts_;
  };
  // `load`, `cdf` and `span` of the Poisson generators.
  const auto poisson = [&]() {
    t.load =
        Fraction(Require(m, "load", " (a fraction of the host link rate, e.g. 30%)"), 0, false, 1);
    const Field cdf = Require(m, "cdf",
                              fmt::format(" (a flow-size CDF: one of {}, or a file)",
                                          fmt::join(BuiltinCdfNames(), ", ")));
    t.cdf_name = String(cdf);
    std::string path;
    const Keys& builtin = BuiltinCdfNames();
    if (std::find(builtin.begin(), builtin.end(), t.cdf_name) != builtin.end()) {
      path = BuiltinCdfPath(t.cdf_name);
      t.cdf_source = t.cdf_name;
    } else if (t.cdf_name.find_first_of("/.") != std::string::npos) {
      path = ResolvePath(cdf);
      t.cdf_source = path;
    } else {
      const std::string_view best = ClosestMatch(t.cdf_name, builtin);
      Fail(cdf, fmt::format("unknown CDF \"{}\"; built-in CDFs are {} (a file name needs a '/' "
                            "or '.', e.g. ./{}.txt){}",
                            t.cdf_name, fmt::join(builtin, ", "), t.cdf_name,
                            best.empty() ? "" : fmt::format("; did you mean '{}'?", best)));
    }
    try {
      t.cdf = ReadCdfFile(path);
    } catch (const CdfError& e) {
      Fail(cdf, e.what());
    }
    if (FlowSizeCdf(t.cdf).Mean() < 1) {
      Fail(cdf, fmt::format("the CDF in '{}' has a mean flow size below 1 byte", path));
    }
    t.span = TimeValue(Require(m, "span", " (how long arrivals last, e.g. 10ms)"), 1);
  };

  if (type == "flows") {
    t.kind = TrafficKind::kFlows;
    const Field list = Require(m, "flows", " (a list of {src, dst, size})");
    for (const Field& item : List(list, "a list of flows like [{src: 0, dst: 1, size: 1MB}]")) {
      const Map fm = ReadMap(
          item, {"src", "dst", "size", "start", "priority", "tag", "cc", "start_rate", "max_rate"});
      FlowSpec flow;
      flow.src = HostId(Require(fm, "src"));
      const Field dst = Require(fm, "dst");
      flow.dst = HostId(dst);
      if (flow.dst == flow.src) {
        Fail(dst, fmt::format("expected a host other than src ({}), got \"{}\"", flow.src,
                              dst.node.Scalar()));
      }
      flow.size_bytes = Size(Require(fm, "size"), 1, kMaxFlowBytes);
      if (auto v = fm.Get("start")) flow.start = TimeValue(*v, 0);
      if (auto v = fm.Get("priority")) flow.priority = IntField(*v, 0, kNumPriorities - 1);
      if (auto v = fm.Get("tag")) flow.tag = String(*v);
      if (auto v = fm.Get("cc")) flow.cc = ReadCcKind(*v);
      flow.start_rate_bps = t.start_rate_bps;
      flow.max_rate_bps = t.max_rate_bps;
      if (auto v = fm.Get("start_rate")) flow.start_rate_bps = StartRate(*v);
      if (auto v = fm.Get("max_rate")) flow.max_rate_bps = Rate(*v);
      t.flows.push_back(std::move(flow));
    }
  } else if (type == "flow_file") {
    // The HPCC simulator's flow list, read now so its errors surface with the scenario's.
    t.kind = TrafficKind::kFlows;
    const Field file = Require(m, "file", " (an HPCC-format flow list)");
    const std::string path = ResolvePath(file);
    t.file_type = type;
    t.file = path;
    try {
      t.flows = ReadHpccFlowFile(path, hosts_);
    } catch (const FlowFileError& e) {
      Fail(file, e.what());
    }
    t.tag = "file";
    if (auto v = m.Get("tag")) t.tag = String(*v);
    if (auto v = m.Get("cc")) t.cc = ReadCcKind(*v);
    for (FlowSpec& spec : t.flows) {
      spec.tag = t.tag;
      spec.cc = t.cc;
      spec.start_rate_bps = t.start_rate_bps;
      spec.max_rate_bps = t.max_rate_bps;
    }
  } else if (type == "dependency_file") {
    // Flows that wait for flows (workload/dependency_file.h), read now so
    // that its errors surface with the scenario's.
    t.kind = TrafficKind::kFlows;
    const Field file = Require(m, "file", " (a CSV or JSON dependency file)");
    const std::string path = ResolvePath(file);
    t.file_type = type;
    t.file = path;
    t.tag = "dependency";
    if (auto v = m.Get("tag")) t.tag = String(*v);
    if (auto v = m.Get("cc")) t.cc = ReadCcKind(*v);
    if (auto v = m.Get("priority")) t.priority = IntField(*v, 0, kNumPriorities - 1);
    try {
      t.flows = ReadDependencyFile(path, hosts_, t.priority, t.tag);
    } catch (const DependencyFileError& e) {
      Fail(file, e.what());
    }
    for (FlowSpec& spec : t.flows) {
      spec.cc = t.cc;
      spec.start_rate_bps = t.start_rate_bps;
      spec.max_rate_bps = t.max_rate_bps;
    }
  } else if (type == "collective") {
    t.kind = TrafficKind::kCollective;
    common("collective");
    ReadCollective(m, t);
  } else if (type == "aicb_workload") {
    t.kind = TrafficKind::kTraining;
    common("training");
    ReadTraining(m, t);
  } else if (type == "incast") {
    t.kind = TrafficKind::kIncast;
    const Field receiver = Require(m, "receiver");
    t.receiver = HostId(receiver);
    const Field senders = Require(m, "senders");
    t.senders = ReadSenders(senders);
    for (int s : t.senders) {
      if (s == t.receiver) {
        Fail(senders, fmt::format("the receiver ({}) cannot also be a sender", t.receiver));
      }
    }
    t.size_bytes = Size(Require(m, "size"), 1, kMaxFlowBytes);
    common("incast");
    // Periodic incasts: `count` rounds, one every `period` from `start`.
    const std::optional<Field> period = m.Get("period");
    const std::optional<Field> count = m.Get("count");
    if (period) t.period = TimeValue(*period, 1);
    if (count) t.count = IntField(*count, 1, 1 << 24);
    if (period && !count) {
      Fail(m.self, "missing required key 'count' (how many incasts, one every period)");
    }
    if (count && t.count > 1 && !period) {
      Fail(m.self, "missing required key 'period' (the time between incasts when count > 1)");
    }
    if (t.count > 1 && t.period > (kTimeMax - t.start) / (t.count - 1)) {
      Fail(*period, "start + (count - 1) * period overflows the simulated time range");
    }
  } else if (type == "poisson") {
    t.kind = TrafficKind::kPoisson;
    const int n = participants();
    poisson();
    common("poisson");
    // Destinations within groups of consecutive participating hosts (seed 002 §4.3).
    const std::optional<Field> groups = m.Get("groups");
    const std::optional<Field> group_size = m.Get("group_size");
    if (groups && group_size) {
      FailNoPath({m.Find("group_size")->key_node, "", group_size->origin},
                 fmt::format("{}: give either groups or group_size, not both", group_size->path));
    }
    if (groups) {
      const int g = IntField(*groups, 1, n / 2);
      if (n % g != 0) {
        Fail(*groups, fmt::format("expected a number of groups that divides the {} participating "
                                  "hosts, got \"{}\"",
                                  n, groups->node.Scalar()));
      }
      t.group_size = n / g;
    }
    if (group_size) {
      t.group_size = IntField(*group_size, 2, n);
      if (n % t.group_size != 0) {
        Fail(*group_size, fmt::format("expected a group size that divides the {} participating "
                                      "hosts, got \"{}\"",
                                      n, group_size->node.Scalar()));
      }
    }
  } else if (type == "hotspot") {
    t.kind = TrafficKind::kHotspot;
    participants();
    poisson();
    common("");
    if (auto v = m.Get("hot_fraction")) t.hot_fraction = Fraction(*v, 0, true, 1);
    if (auto v = m.Get("hot_hosts_fraction")) t.hot_hosts_fraction = Fraction(*v, 0, false, 1);
  } else if (type == "permutation" || type == "all_to_all") {
    t.kind = type == "permutation" ? TrafficKind::kPermutation : TrafficKind::kAllToAll;
    participants();
    t.size_bytes = Size(Require(m, "size", " (bytes each flow sends)"), 1);
    common(type);
  } else {
    t.kind = TrafficKind::kMicroburst;
    t.src = HostId(Require(m, "src"));
    const Field dst = Require(m, "dst");
    t.dst = HostId(dst);
    if (t.dst == t.src) {
      Fail(dst, fmt::format("expected a host other than src ({}), got \"{}\"", t.src,
                            dst.node.Scalar()));
    }
    t.duration = TimeValue(Require(m, "duration", " (how long the burst lasts, e.g. 20us)"), 1);
    common("microburst");
  }
  return t;
}

}  // namespace rocesim::scenario_detail
