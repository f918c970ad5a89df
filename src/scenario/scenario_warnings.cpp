#include "scenario/scenario_warnings.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "cc/cc_factory.h"
#include "core/units.h"

namespace rocesim {
namespace {

// The congestion control of every flow the scenario sends, with the traffic
// entries that use it ("traffic[0]").
std::map<CcKind, std::vector<std::string>> CcInUse(const Scenario& sc) {
  std::map<CcKind, std::vector<std::string>> used;
  for (size_t i = 0; i < sc.traffic.size(); ++i) {
    const TrafficSpec& t = sc.traffic[i];
    std::set<CcKind> kinds;
    if (t.kind == TrafficKind::kFlows) {
      for (const FlowSpec& f : t.flows) kinds.insert(f.cc.value_or(sc.host.cc));
    } else {
      kinds.insert(t.cc.value_or(sc.host.cc));
    }
    for (CcKind k : kinds) used[k].push_back(fmt::format("traffic[{}]", i));
  }
  return used;
}

std::string Entries(const std::vector<std::string>& entries) {
  constexpr size_t kShown = 3;
  std::string out = fmt::format(
      "{}", fmt::join(entries.begin(), entries.begin() + std::min(entries.size(), kShown), ", "));
  if (entries.size() > kShown) out += fmt::format(" and {} more", entries.size() - kShown);
  return out;
}

// Congestion control that only learns of congestion from ECN marks.
bool NeedsEcn(CcKind k) {
  return k == CcKind::kDcqcn || k == CcKind::kDctcp || k == CcKind::kLdcp;
}

void EcnWarnings(const Scenario& sc, const std::map<CcKind, std::vector<std::string>>& used,
                 std::vector<std::string>& out) {
  for (const auto& [cc, entries] : used) {
    if (!NeedsEcn(cc)) continue;
    std::string off;
    if (!sc.sw.ecn.enabled) {
      off = "switch.ecn.enabled is false (no switch marks)";
    } else if (!sc.host.ecn_capable && cc != CcKind::kLdcp) {
      // LDCP sets ECN capability per packet itself (cc/ldcp.h).
      off = "host.ecn_capable is false (switches never mark its packets)";
    }
    if (off.empty()) continue;
    out.push_back(fmt::format("{} reacts to ECN marks but {}: it never learns of congestion ({})",
                              CcName(cc), off, Entries(entries)));
  }
}

void LateStartWarnings(const Scenario& sc, std::vector<std::string>& out) {
  const std::string end = FormatTime(sc.duration);
  for (size_t i = 0; i < sc.traffic.size(); ++i) {
    const TrafficSpec& t = sc.traffic[i];
    if (t.kind != TrafficKind::kFlows) {
      if (t.start >= sc.duration)
        out.push_back(
            fmt::format("traffic[{}] starts at {}, at or after duration {}: its flows "
                        "never run",
                        i, FormatTime(t.start), end));
      continue;
    }
    size_t late = 0, first = 0;
    for (size_t f = 0; f < t.flows.size(); ++f) {
      if (t.flows[f].start < sc.duration) continue;
      if (late++ == 0) first = f;
    }
    if (late == 0) continue;
    out.push_back(
        fmt::format("traffic[{}]: {} of {} flows start at or after duration {} (the "
                    "first: flow {} at {}): they never run",
                    i, late, t.flows.size(), end, first, FormatTime(t.flows[first].start)));
  }
}

}  // namespace

std::vector<std::string> ScenarioWarnings(const Scenario& sc) {
  std::vector<std::string> out;
  const auto used = CcInUse(sc);
  EcnWarnings(sc, used, out);
  LateStartWarnings(sc, out);
  if (auto it = used.find(CcKind::kLdcp); it != used.end() && sc.sw.pfc.enabled)
    out.push_back(
        fmt::format("LDCP is a PFC-free protocol (it recovers from drops itself) but "
                    "switch.pfc.enabled is true: pauses hide the losses it reacts to "
                    "({}); set switch.pfc.enabled: false",
                    Entries(it->second)));
  return out;
}

std::vector<std::string> RunWarnings(const Scenario& sc, uint64_t lossy_drops) {
  if (!sc.sw.pfc.enabled || lossy_drops == 0) return {};
  const auto& lossless = sc.sw.pfc.priorities;
  const auto protected_prio = [&](int p) {
    return std::find(lossless.begin(), lossless.end(), p) != lossless.end();
  };
  std::set<int> unprotected;
  std::vector<std::string> entries;
  for (size_t i = 0; i < sc.traffic.size(); ++i) {
    const TrafficSpec& t = sc.traffic[i];
    std::vector<int> priorities;
    if (t.kind == TrafficKind::kFlows) {
      for (const FlowSpec& f : t.flows) priorities.push_back(f.priority);
    } else {
      priorities.push_back(t.priority);
    }
    bool any = false;
    for (int p : priorities) {
      if (protected_prio(p)) continue;
      unprotected.insert(p);
      any = true;
    }
    if (any) entries.push_back(fmt::format("traffic[{}]", i));
  }
  if (entries.empty()) return {};
  return {
      fmt::format("PFC is on (lossless priorities {}) but {} send{} on priorit{} {}, which PFC "
                  "does not protect, and the run dropped {} packets to full buffers or WRED: "
                  "that traffic was not lossless",
                  fmt::join(lossless, ", "), Entries(entries), entries.size() > 1 ? "" : "s",
                  unprotected.size() > 1 ? "ies" : "y", fmt::join(unprotected, ", "), lossy_drops)};
}

}  // namespace rocesim
