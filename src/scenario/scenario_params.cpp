#include "scenario/scenario_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "scenario/scenario_reader.h"
#include "workload/flow_size_cdf.h"

namespace rocesim {
namespace {

// Scenarios that between them use every topology type, both switch
// architectures, every list a section has, every traffic type and every
// fault type, each with only its required keys (and the list entries that
// show a list's keys).
std::vector<std::string> SampleScenarios() {
  const std::string cdf(BuiltinCdfNames().front());
  return {
      "topology: {type: star}\n"
      "switch: {alpha_by_rate: [{rate: 100Gbps, alpha: 1/8}],\n"
      "         ecn: {by_rate: [{rate: 100Gbps, kmin: 5KB, kmax: 200KB, pmax: 0.01}]}}\n"
      "traffic:\n"
      "  - {type: flows, flows: [{src: 0, dst: 1, size: 1KB}]}\n"
      "  - {type: incast, senders: [1], receiver: 0, size: 1KB}\n"
      "  - {type: poisson, load: 0.5, cdf: " +
          cdf +
          ", span: 1ms}\n"
          "  - {type: hotspot, load: 0.5, cdf: " +
          cdf +
          ", span: 1ms}\n"
          "  - {type: permutation, size: 1KB}\n"
          "  - {type: all_to_all, size: 1KB}\n"
          "  - {type: microburst, src: 0, dst: 1, duration: 1us}\n"
          "  - {type: collective, op: allreduce, size: 1MB}\n"
          "  - {type: collective, op: allreduce, size: 1MB, after: collective}\n"
          "faults:\n"
          "  - {type: nic_pause_storm, host: 0, at: 0}\n"
          "  - {type: slow_receiver, host: 0, period: 10us, stall: 1us, at: 0}\n"
          "  - {type: link_down, a: 0, b: 1, at: 0}\n"
          "  - {type: packet_loss, node: 0, port: 0, probability: 0.01, at: 0}\n"
          "  - {type: packet_loss, node: 0, port: 0, every_nth: 10, at: 0}\n"
          "  - {type: mac_entry_loss, host: 0, at: 0}\n"
          "monitors: {pcap: {ports: [{node: 0, port: 0}]}}\n",
      "topology: {type: dumbbell}\n",
      "topology: {type: leaf_spine}\n",
      "topology: {type: fat_tree}\n",
      "topology: {type: rail, servers: 2, gpus_per_server: 2}\n",
      "topology: {type: star}\nswitch: {architecture: cioq}\n",
  };
}

}  // namespace

std::vector<ResolvedSetting> ScenarioParams() {
  std::vector<ResolvedSetting> out;
  std::set<std::string> seen;
  const auto add = [&](const Scenario& sc) {
    std::vector<ResolvedSetting> settings;
    ResolvedScenarioYaml(sc, &settings);
    for (ResolvedSetting& s : settings)
      if (seen.insert(s.key).second) out.push_back(std::move(s));
  };
  for (const std::string& text : SampleScenarios())
    add(ParseScenarioText(text, "<params>", "", {}, std::nullopt));
  // A topology file and the flow and dependency files: their keys only (the
  // reader would need the files).
  Scenario files = ParseScenarioText("topology: {type: star}\n", "<params>", "", {}, std::nullopt);
  files.topology.kind = TopologyKind::kFile;
  files.topology.file = "FILE";
  for (const char* type : {"flow_file", "dependency_file"}) {
    TrafficSpec t;
    t.file_type = type;
    t.file = "FILE";
    files.traffic.push_back(t);
  }
  add(files);
  // Defaults that depend on the entry or on another key, where the samples
  // above had to give a value.
  const std::map<std::string, std::string> depends = {
      {"topology.file", "(required)"},
      {"traffic[].file", "(required)"},
      {"topology.servers_per_rail_group", "servers (one rail group)"},
      {"traffic[].tag", "the type (incast, poisson, ...; file for flow_file)"},
      {"traffic[].after", "none (collective: the job this one follows)"},
      {"faults[].period", "0 (no stalls; give with stall)"},
      {"faults[].stall", "0 (no stalls; give with period)"}};
  for (ResolvedSetting& s : out)
    if (auto it = depends.find(s.key); it != depends.end()) s.value = it->second;
  // Group the keys of later samples with their section (stable: each
  // section keeps the resolved walk's order).
  std::map<std::string, size_t> section_rank;
  const auto section = [](const std::string& key) {
    return key.substr(0, key.find_first_of(".["));
  };
  for (const ResolvedSetting& s : out) section_rank.emplace(section(s.key), section_rank.size());
  std::stable_sort(out.begin(), out.end(), [&](const ResolvedSetting& a, const ResolvedSetting& b) {
    return section_rank[section(a.key)] < section_rank[section(b.key)];
  });
  return out;
}

std::string FormatScenarioParams(const std::vector<ResolvedSetting>& params) {
  size_t key_width = 3, value_width = 7;
  for (const ResolvedSetting& p : params) {
    key_width = std::max(key_width, p.key.size());
    value_width = std::max(value_width, p.value.size());
  }
  std::string out = fmt::format("{:<{}}  {:<{}}  {}\n", "key", key_width, "default", value_width,
                                "unit / values");
  for (const ResolvedSetting& p : params)
    out += fmt::format("{:<{}}  {:<{}}  {}\n", p.key, key_width, p.value, value_width, p.unit);
  return out;
}

}  // namespace rocesim
