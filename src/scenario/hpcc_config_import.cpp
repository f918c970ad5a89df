#include "scenario/hpcc_config_import.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "core/text_fields.h"
#include "topo/hpcc_topology_file.h"

namespace rocesim {

namespace {

namespace fs = std::filesystem;

struct Entry {
  std::vector<std::string> values;
  int line = 0;
};

std::map<std::string, Entry> ReadConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw HpccImportError(
        fmt::format("cannot open HPCC config '{}': {}", path, std::strerror(errno)));
  std::map<std::string, Entry> keys;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream words(line);
    std::string key, v;
    if (!(words >> key) || key[0] == '#') continue;
    Entry e{{}, n};
    while (words >> v) e.values.push_back(v);
    if (e.values.empty())
      throw HpccImportError(fmt::format("{}:{}: {} has no value", path, n, key));
    keys[key] = e;
  }
  return keys;
}

class Importer {
 public:
  Importer(std::string path, std::map<std::string, Entry> keys)
      : path_(std::move(path)), keys_(std::move(keys)) {}

  bool Has(const std::string& k) const { return keys_.count(k) > 0; }
  const std::string& Str(const std::string& k) {
    used_[k] = true;
    return keys_.at(k).values.front();
  }
  double Num(const std::string& k) {
    const std::string& s = Str(k);
    try {
      size_t pos = 0;
      const double v = std::stod(s, &pos);
      if (pos == s.size()) return v;
    } catch (const std::exception&) {
    }
    Fail(k, fmt::format("expected a number, got \"{}\"", s));
  }
  // HPCC rates are written like "20Mb/s"; rocesim reads the same spelling.
  std::string Rate(const std::string& k) { return Str(k); }
  [[noreturn]] void Fail(const std::string& k, const std::string& msg) const {
    throw HpccImportError(fmt::format("{}:{}: {}: {}", path_, keys_.at(k).line, k, msg));
  }
  const std::vector<std::string>& Values(const std::string& k) {
    used_[k] = true;
    return keys_.at(k).values;
  }
  std::vector<std::string> Unused() const {
    std::vector<std::string> out;
    for (const auto& [k, e] : keys_)
      if (!used_.count(k)) out.push_back(k);
    return out;
  }
  void MarkUsed(const std::string& k) { used_[k] = true; }

 private:
  std::string path_;
  std::map<std::string, Entry> keys_;
  std::map<std::string, bool> used_;
};

// A path from the config (relative to the config's directory) rewritten
// relative to the scenario's directory.
std::string Relocate(const std::string& file, const std::string& config_path,
                     const std::string& output_path) {
  fs::path p(file);
  if (p.is_relative()) p = fs::absolute(fs::path(config_path).parent_path() / p);
  const fs::path out_dir = fs::absolute(fs::path(output_path)).parent_path();
  return p.lexically_normal().lexically_relative(out_dir).string();
}

// The HPCC simulator's dynamic PFC threshold: alpha 1/8 (a shift of 3) on a
// port as fast as the NICs, doubled each time the port's rate doubles, up to
// 1. Returns "alpha_by_rate" lines for the switch ports faster than the NICs
// of `topology` (empty if there are none or the file cannot be read: the
// run reports the file then).
std::string AlphaByRateLines(const std::string& topology) {
  HpccTopology t;
  try {
    t = ReadHpccTopologyFile(topology);
  } catch (const TopologyFileError&) {
    return "";
  }
  int64_t nic = 0;
  std::set<int64_t> switch_rates;
  for (const HpccTopology::Link& l : t.links) {
    const bool a_host = !t.is_switch[static_cast<size_t>(l.a)];
    const bool b_host = !t.is_switch[static_cast<size_t>(l.b)];
    if ((a_host || b_host) && nic == 0) nic = l.rate_bps;
    if (!a_host || !b_host) switch_rates.insert(l.rate_bps);
  }
  std::string out;
  for (const int64_t rate : switch_rates) {
    if (nic == 0 || rate <= nic) continue;
    int shift = 3;
    for (int64_t r = rate; r > nic && shift > 0; r /= 2) --shift;
    out += fmt::format("    - {{rate: {}bps, alpha: 1/{}}}\n", rate, 1 << shift);
  }
  return out.empty() ? "" : "  alpha_by_rate:   # doubled per doubling of the port rate\n" + out;
}

}  // namespace

std::string ImportHpccConfig(const std::string& config_path, const std::string& output_path) {
  Importer c(config_path, ReadConfig(config_path));
  std::string y;
  auto line = [&](const std::string& s) { y += s + "\n"; };

  for (const char* required : {"TOPOLOGY_FILE", "FLOW_FILE", "CC_MODE"})
    if (!c.Has(required))
      throw HpccImportError(fmt::format("{}: missing {}", config_path, required));
  if (c.Has("ERROR_RATE_PER_LINK") && c.Num("ERROR_RATE_PER_LINK") != 0)
    c.Fail("ERROR_RATE_PER_LINK",
           "rocesim takes link error rates from the topology file (the fifth column of each "
           "link); set them there and this to 0");
  if (c.Has("L2_BACK_TO_ZERO") && c.Num("L2_BACK_TO_ZERO") != 0)
    c.Fail("L2_BACK_TO_ZERO", "go-back-0 recovery is not modelled yet (rocesim uses go-back-N)");

  const int cc_mode = static_cast<int>(c.Num("CC_MODE"));
  std::string cc;
  switch (cc_mode) {
    case 1:
      cc = "dcqcn";
      break;
    case 3:
      cc = "hpcc";
      break;
    case 7:
      cc = "timely";
      break;
    case 8:
      cc = "dctcp";
      break;
    default:
      c.Fail("CC_MODE",
             fmt::format("mode {} is not supported (1 DCQCN, 3 HPCC, 7 TIMELY, 8 DCTCP)", cc_mode));
  }
  const std::string name = fs::path(output_path).stem().string();
  line(fmt::format("name: {}", name.empty() ? "imported" : name));
  line("seed: 1");
  if (c.Has("SIMULATOR_STOP_TIME"))
    line(fmt::format("duration: {}s", c.Str("SIMULATOR_STOP_TIME")));
  line("");
  line("topology:");
  line("  type: file");
  line(fmt::format("  file: {}", Relocate(c.Str("TOPOLOGY_FILE"), config_path, output_path)));
  line("  ifg_bytes: 0   # the HPCC simulator does not model preamble / IFG");
  line("");
  line("switch:");
  if (c.Has("BUFFER_SIZE")) line(fmt::format("  buffer: {}MB", c.Str("BUFFER_SIZE")));
  // The HPCC simulator's dynamic PFC threshold shifts by 3 (alpha = 1/8) at
  // the NICs' rate, one less per doubling of a faster port's rate.
  if (c.Has("USE_DYNAMIC_PFC_THRESHOLD")) c.MarkUsed("USE_DYNAMIC_PFC_THRESHOLD");
  line("  alpha: 1/8");
  {
    fs::path topo(c.Str("TOPOLOGY_FILE"));
    if (topo.is_relative()) topo = fs::path(config_path).parent_path() / topo;
    y += AlphaByRateLines(topo.string());
  }
  line("  pfc: {enabled: true, priorities: [3]}");
  const bool ecn = !c.Has("ENABLE_QCN") || c.Num("ENABLE_QCN") != 0;
  line(fmt::format("  ecn:\n    enabled: {}", ecn ? "true" : "false"));
  if (c.Has("KMIN_MAP") && c.Has("KMAX_MAP") && c.Has("PMAX_MAP")) {
    // "KMAX_MAP n rate1 k1 rate2 k2 ...": rate in bit/s, K in KB.
    auto pairs = [&](const std::string& k) {
      const auto& v = c.Values(k);
      std::map<std::string, std::string> m;
      int64_t n = 0;
      if (v.empty() || !ParseInt64(v[0], n) || n < 0 ||
          v.size() != 1 + 2 * static_cast<uint64_t>(n))
        c.Fail(k, "expected `n rate1 value1 ... raten valuen`");
      for (size_t i = 1; i + 1 < v.size(); i += 2) m[v[i]] = v[i + 1];
      return m;
    };
    const auto kmin = pairs("KMIN_MAP"), kmax = pairs("KMAX_MAP"), pmax = pairs("PMAX_MAP");
    line("    by_rate:");
    for (const auto& [rate, k] : kmax) {
      if (!kmin.count(rate) || !pmax.count(rate))
        c.Fail("KMAX_MAP", fmt::format("rate {} is missing from KMIN_MAP or PMAX_MAP", rate));
      line(fmt::format("      - {{rate: {}bps, kmin: {}KB, kmax: {}KB, pmax: {}}}", rate,
                       kmin.at(rate), k, pmax.at(rate)));
    }
  }
  line("");
  line("host:");
  if (c.Has("PACKET_PAYLOAD_SIZE")) line(fmt::format("  mtu: {}B", c.Str("PACKET_PAYLOAD_SIZE")));
  if (c.Has("L2_ACK_INTERVAL")) line(fmt::format("  ack_every: {}", c.Str("L2_ACK_INTERVAL")));
  line(fmt::format("  cc: {}", cc));
  const std::string min_rate = c.Has("MIN_RATE") ? c.Rate("MIN_RATE") : "";
  if (cc == "dcqcn") {
    line("  dcqcn:");
    line("    preset: hpcc-sim");
    if (c.Has("ALPHA_RESUME_INTERVAL"))
      line(fmt::format("    alpha_interval: {}us", c.Str("ALPHA_RESUME_INTERVAL")));
    if (c.Has("RATE_DECREASE_INTERVAL"))
      line(fmt::format("    decrease_interval: {}us", c.Str("RATE_DECREASE_INTERVAL")));
    if (c.Has("RP_TIMER")) line(fmt::format("    increase_timer: {}us", c.Str("RP_TIMER")));
    if (c.Has("EWMA_GAIN")) line(fmt::format("    g: {}", c.Str("EWMA_GAIN")));
    if (c.Has("FAST_RECOVERY_TIMES"))
      line(fmt::format("    fast_recovery_stages: {}", c.Str("FAST_RECOVERY_TIMES")));
    if (c.Has("RATE_AI")) line(fmt::format("    rate_ai: {}", c.Rate("RATE_AI")));
    if (c.Has("RATE_HAI")) line(fmt::format("    rate_hai: {}", c.Rate("RATE_HAI")));
    if (!min_rate.empty()) line(fmt::format("    min_rate: {}", min_rate));
    if (c.Has("CLAMP_TARGET_RATE"))
      line(fmt::format("    clamp_target_rate: {}",
                       c.Num("CLAMP_TARGET_RATE") != 0 ? "true" : "false"));
  } else if (cc == "hpcc") {
    line("  hpcc:");
    if (c.Has("U_TARGET")) line(fmt::format("    eta: {}", c.Str("U_TARGET")));
    if (c.Has("MI_THRESH")) line(fmt::format("    max_stage: {}", c.Str("MI_THRESH")));
    if (c.Has("RATE_AI")) line(fmt::format("    rate_ai: {}", c.Rate("RATE_AI")));
    if (!min_rate.empty()) line(fmt::format("    min_rate: {}", min_rate));
    line(
        "    int_bytes: 42   # the simulator's INT header in every data packet: 5 hops x 8 B + 2 "
        "B");
  } else if (cc == "dctcp") {
    line("  dctcp:");
    line("    mode: rate   # the HPCC simulator's DCTCP is rate based");
    if (c.Has("EWMA_GAIN")) line(fmt::format("    g: {}", c.Str("EWMA_GAIN")));
    if (c.Has("DCTCP_RATE_AI")) line(fmt::format("    rate_ai: {}", c.Rate("DCTCP_RATE_AI")));
    if (!min_rate.empty()) line(fmt::format("    min_rate: {}", min_rate));
  } else if (cc == "timely") {
    line("  timely:");
    line("    preset: per_packet");
    if (!min_rate.empty()) line(fmt::format("    min_rate: {}", min_rate));
  }
  line("");
  line("traffic:");
  line("  - type: flow_file");
  line(fmt::format("    file: {}", Relocate(c.Str("FLOW_FILE"), config_path, output_path)));
  // The simulator's FCT and PFC outputs: rocesim writes the same formats, under
  // fixed names in the results directory (stats/hpcc_compat_writer.h).
  std::string compat;
  for (const auto& [key, file] :
       {std::pair{"FCT_OUTPUT_FILE", "fct.txt"}, {"PFC_OUTPUT_FILE", "pfc.txt"}})
    if (c.Has(key)) {
      compat += fmt::format("  # {} {} -> {} in the results directory\n", key, c.Str(key), file);
    }
  std::string qlen;
  if (c.Has("QLEN_MON_FILE")) {
    // Its window in ns (that simulator's defaults: 2 s to 2.1 s); samples
    // every 100 ns and a dump every 100 ms, as there.
    const auto ns = [&](const char* key, double fallback) {
      const double v = c.Has(key) ? c.Num(key) : fallback;
      if (v < 0) c.Fail(key, "expected a time in ns, not negative");
      return static_cast<uint64_t>(v);
    };
    const uint64_t start = ns("QLEN_MON_START", 2e9), end = ns("QLEN_MON_END", 2.1e9);
    qlen = fmt::format(
        "  hpcc_qlen: {{start: {}ns, end: {}ns}}   # QLEN_MON_FILE {} -> qlen.txt in the results "
        "directory\n",
        start, end, c.Str("QLEN_MON_FILE"));
  }
  if (!compat.empty() || !qlen.empty()) {
    line("");
    line("output:");
    if (!compat.empty()) {
      line("  hpcc_compat: true   # the HPCC simulator's output formats:");
      y += compat;
    }
    y += qlen;
  }
  const auto unused = c.Unused();
  if (!unused.empty()) {
    std::string header =
        "# Not imported (HPCC simulator outputs or features without a rocesim "
        "meaning):\n#   ";
    size_t width = 4;
    for (const std::string& k : unused) {
      if (width + k.size() > 90) {
        header += "\n#   ";
        width = 4;
      }
      header += k + " ";
      width += k.size() + 1;
    }
    y = header + "\n" + y;
  }
  return fmt::format("# Imported from the HPCC simulator config {} by `rocesim import-hpcc`.\n",
                     config_path) +
         y;
}

}  // namespace rocesim
