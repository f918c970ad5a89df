// The resolved scenario (resolved_scenario.h): a walk over the Scenario
// struct that writes each setting under the key the reader takes it from,
// in the reader's units. A setting whose "not set" value the reader refuses
// (a rate of 0, an `until` of never) is left out, and the reader's default
// then gives the same value back.
#include "scenario/resolved_scenario.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "cc/cc_factory.h"
#include "core/units.h"
#include "scenario/scenario_reader.h"
#include "workload/collectives.h"
#include "workload/generators.h"

namespace rocesim {
namespace {

constexpr const char* kTimeUnit = "time (ps, ns, us, ms, s)";
constexpr const char* kRateUnit = "rate (bps, Kbps, Mbps, Gbps, Tbps)";
constexpr const char* kSizeUnit = "size (B, KB, MB, GB, KiB, MiB, GiB)";
constexpr const char* kFractionUnit = "fraction (0.25, 1/4, 25%)";
constexpr const char* kIntUnit = "integer";
constexpr const char* kBoolUnit = "true | false";
constexpr const char* kTextUnit = "text";
constexpr const char* kRequired = "(required)";

// One YAML map being written, with its dotted path for the settings list.
class Out {
 public:
  Out(YAML::Node node, std::string path, std::vector<ResolvedSetting>* settings)
      : node_(node), path_(std::move(path)), settings_(settings) {}

  Out Map(std::string_view key) {
    node_[std::string(key)] = YAML::Node(YAML::NodeType::Map);
    return Out(node_[std::string(key)], Join(key), settings_);
  }
  // A list of maps: Item() appends one entry.
  class List {
   public:
    List(YAML::Node node, std::string path, std::vector<ResolvedSetting>* settings)
        : node_(node), path_(std::move(path)), settings_(settings) {}
    Out Item() {
      node_.SetStyle(YAML::EmitterStyle::Block);
      node_.push_back(YAML::Node(YAML::NodeType::Map));
      return Out(node_[node_.size() - 1], path_ + "[]", settings_);
    }

   private:
    YAML::Node node_;
    std::string path_;
    std::vector<ResolvedSetting>* settings_;
  };
  List MapList(std::string_view key, std::string_view unit) {
    YAML::Node list(YAML::NodeType::Sequence);
    list.SetStyle(YAML::EmitterStyle::Flow);  // "[]" while empty; Item() makes it a block
    node_[std::string(key)] = list;
    Record(key, "[]", unit, true);
    return List(node_[std::string(key)], Join(key), settings_);
  }

  void Put(std::string_view key, const std::string& value, std::string_view unit) {
    node_[std::string(key)] = value;
    Record(key, value, unit, true);
  }
  // Not written: `value` says what leaving it out means.
  void Omit(std::string_view key, std::string_view value, std::string_view unit) {
    Record(key, std::string(value), unit, false);
  }
  void Time(std::string_view key, rocesim::Time t) { Put(key, FormatTime(t), kTimeUnit); }
  // A time the reader wants > 0, where 0 means `zero`.
  void TimeOr(std::string_view key, rocesim::Time t, std::string_view zero) {
    if (t == 0)
      Omit(key, zero, kTimeUnit);
    else
      Time(key, t);
  }
  // A rate (the reader wants > 0), where 0 means `zero`.
  void Rate(std::string_view key, int64_t bps, std::string_view zero = {}) {
    if (bps == 0)
      Omit(key, zero, kRateUnit);
    else
      Put(key, FormatRate(bps), kRateUnit);
  }
  void Size(std::string_view key, int64_t bytes) { Put(key, FormatSize(bytes), kSizeUnit); }
  void Int(std::string_view key, int64_t v) { Put(key, std::to_string(v), kIntUnit); }
  void Uint(std::string_view key, uint64_t v) { Put(key, std::to_string(v), kIntUnit); }
  void Bool(std::string_view key, bool v) { Put(key, v ? "true" : "false", kBoolUnit); }
  void Fraction(std::string_view key, double v) { Put(key, FormatFraction(v), kFractionUnit); }
  void Text(std::string_view key, const std::string& v) { Put(key, v, kTextUnit); }
  void Enum(std::string_view key, std::string_view v, std::initializer_list<const char*> choices) {
    Put(key, std::string(v), fmt::format("one of {}", fmt::join(choices, " | ")));
  }
  template <typename Ints>
  void IntList(std::string_view key, const Ints& values, std::string_view unit) {
    YAML::Node list(YAML::NodeType::Sequence);
    list.SetStyle(YAML::EmitterStyle::Flow);
    for (auto v : values) list.push_back(static_cast<int64_t>(v));
    node_[std::string(key)] = list;
    Record(key, fmt::format("[{}]", fmt::join(values, ", ")), unit, true);
  }
  // DSCP -> priority, all 64 in one flow-style map (the reader starts from
  // dscp / 8 and overrides the entries given).
  void DscpMap(std::string_view key, const std::array<uint8_t, 64>& priority) {
    YAML::Node map(YAML::NodeType::Map);
    map.SetStyle(YAML::EmitterStyle::Flow);
    bool class_selector = true;
    for (int d = 0; d < 64; ++d) {
      map[d] = static_cast<int>(priority[d]);
      class_selector = class_selector && priority[d] == d / 8;
    }
    node_[std::string(key)] = map;
    Record(key, class_selector ? "dscp / 8 (class selector)" : "64 entries",
           "map of DSCP 0-63 to priority 0-7", true);
  }
  // A key every entry of its kind must give: `rocesim params` shows it as
  // required rather than with the value this walk wrote.
  void MarkRequired(std::string_view key) {
    if (settings_ == nullptr) return;
    const std::string path = Join(key);
    for (auto it = settings_->rbegin(); it != settings_->rend(); ++it) {
      if (it->key != path) continue;
      it->value = kRequired;
      return;
    }
  }

 private:
  std::string Join(std::string_view key) const {
    return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  }
  void Record(std::string_view key, std::string value, std::string_view unit, bool written) {
    if (settings_ != nullptr)
      settings_->push_back({Join(key), std::move(value), std::string(unit), written});
  }

  YAML::Node node_;
  std::string path_;
  std::vector<ResolvedSetting>* settings_;
};

std::string_view TopologyType(TopologyKind k) {
  switch (k) {
    case TopologyKind::kStar:
      return "star";
    case TopologyKind::kDumbbell:
      return "dumbbell";
    case TopologyKind::kLeafSpine:
      return "leaf_spine";
    case TopologyKind::kFatTree:
      return "fat_tree";
    case TopologyKind::kFile:
      return "file";
    case TopologyKind::kRail:
      return "rail";
  }
  return "?";
}

void WriteLink(Out out, int64_t rate, Time delay) {
  out.Rate("rate", rate);
  out.Time("delay", delay);
}

void WriteTopology(Out o, const TopologyConfig& t) {
  o.Enum("type", TopologyType(t.kind),
         {"star", "dumbbell", "leaf_spine", "fat_tree", "rail", "file"});
  o.MarkRequired("type");
  switch (t.kind) {
    case TopologyKind::kStar:
      o.Int("hosts", t.hosts);
      break;
    case TopologyKind::kDumbbell:
      o.Int("hosts_left", t.hosts_left);
      o.Int("hosts_right", t.hosts_right);
      break;
    case TopologyKind::kLeafSpine:
      o.Int("leaves", t.leaves);
      o.Int("spines", t.spines);
      o.Int("hosts_per_leaf", t.hosts_per_leaf);
      o.Int("links_per_spine", t.links_per_spine);
      break;
    case TopologyKind::kFatTree:
      o.Int("k", t.k);
      break;
    case TopologyKind::kRail:
      o.Int("servers", t.servers);
      o.MarkRequired("servers");
      o.Int("servers_per_rail_group",
            t.servers_per_rail_group > 0 ? t.servers_per_rail_group : t.servers);
      o.Int("spines", t.spines);
      o.Int("links_per_spine", t.links_per_spine);
      break;
    case TopologyKind::kFile:
      o.Text("file", t.file);
      o.MarkRequired("file");
      break;
  }
  o.Int("gpus_per_server", t.gpus_per_server);
  Out nv = o.Map("nvlink");
  nv.Rate("rate", t.nvlink_rate_bps);
  nv.Time("latency", t.nvlink_latency);
  WriteLink(o.Map("host_link"), t.host_rate_bps, t.host_delay);
  WriteLink(o.Map("fabric_link"), t.fabric_rate_bps, t.fabric_delay);
  WriteLink(o.Map("core_link"), t.core_rate_bps, t.core_delay);
  if (t.sync_window == 0)
    o.Put("sync_window", "auto", "time, or auto (the shortest link between switches)");
  else
    o.Time("sync_window", t.sync_window);
  o.Int("ifg_bytes", t.ifg_bytes);
  // A topology file gives each link its own.
  if (t.kind != TopologyKind::kFile) o.Fraction("error_rate", t.error_rate);
}

void WriteWatchdog(Out o, const WatchdogConfig& w, bool is_switch) {
  o.Bool("enabled", w.enabled);
  o.Time("detect", w.detect);
  o.Time("restore", w.restore);
  o.Time("poll", w.poll);
  if (is_switch)
    o.Enum("action", w.action == WatchdogConfig::Action::kDrop ? "drop" : "forward",
           {"drop", "forward"});
}

void WriteRcm(Out o, const RcmConfig& r) {
  const RcmParams& p = r.params;
  o.Bool("enabled", r.enabled);
  o.Size("q_eq", p.detector.q_eq_bytes);
  o.Int("w_q", p.detector.w_q);
  o.Size("sample_base", p.detector.sample_base_bytes);
  o.Fraction("regional_weight", p.port.w);
  o.Int("cam_depth", p.cam.depth);
  o.Size("cam_sample", p.cam.sample_bytes);
  o.Int("cam_min_hits", p.cam.min_hits);
  o.Time("remote_expiry", p.port.remote_expiry);
  o.Int("notify_max_ids", p.cam.notify_max_ids);
  o.Bool("sar", r.sar);
  o.Time("sar_idle", r.sar_idle);
}

void WriteSwitch(Out o, const SwitchConfig& s) {
  const bool cioq = s.architecture == SwitchArchitecture::kCioq;
  o.Enum("architecture", cioq ? "cioq" : "shared_buffer", {"shared_buffer", "cioq"});
  if (cioq) {
    Out c = o.Map("cioq");
    c.Size("input_queue_bytes", s.cioq.input_queue_bytes);
    c.Size("output_queue_bytes", s.cioq.output_queue_bytes);
  }
  WriteRcm(o.Map("rcm"), s.rcm);
  if (!cioq) {
    o.Size("buffer", s.buffer_bytes);
    o.Fraction("alpha", s.alpha);
    Out::List by_rate = o.MapList("alpha_by_rate", "list of {rate, alpha}");
    for (const SwitchConfig::AlphaByRate& a : s.alpha_by_rate) {
      Out item = by_rate.Item();
      item.Rate("rate", a.rate_bps);
      item.Fraction("alpha", a.alpha);
      for (const char* key : {"rate", "alpha"}) item.MarkRequired(key);
    }
    o.Size("reserved", s.reserved_bytes);
  }
  Out pfc = o.Map("pfc");
  pfc.Bool("enabled", s.pfc.enabled);
  pfc.IntList("priorities", s.pfc.priorities, "list of priorities 0-7");
  pfc.Int("quanta", s.pfc.quanta);
  pfc.Size("xon_offset", s.pfc.xon_offset_bytes);
  if (s.pfc.headroom_bytes < 0)
    pfc.Put("headroom", "auto", "size, or auto (two link delays of line rate + 3 frames)");
  else
    pfc.Put("headroom", FormatSize(s.pfc.headroom_bytes),
            "size, or auto (two link delays of line rate + 3 frames)");
  Out ecn = o.Map("ecn");
  ecn.Bool("enabled", s.ecn.enabled);
  ecn.Enum("mark_on", s.ecn.mark_on == EcnMarkPoint::kEnqueue ? "enqueue" : "dequeue",
           {"dequeue", "enqueue"});
  ecn.Size("kmin", s.ecn.kmin_bytes);
  ecn.Size("kmax", s.ecn.kmax_bytes);
  ecn.Fraction("pmax", s.ecn.pmax);
  ecn.Size("wred_drop", s.ecn.wred_drop_bytes);
  if (!cioq) ecn.Size("buf_max", s.ecn.buf_max_bytes);
  Out::List thresholds = ecn.MapList("by_rate", "list of {rate, kmin, kmax, pmax}");
  for (const EcnRateThresholds& t : s.ecn.by_rate) {
    Out item = thresholds.Item();
    item.Rate("rate", t.rate_bps);
    item.Size("kmin", t.kmin_bytes);
    item.Size("kmax", t.kmax_bytes);
    item.Fraction("pmax", t.pmax);
    for (const char* key : {"rate", "kmin", "kmax", "pmax"}) item.MarkRequired(key);
  }
  o.DscpMap("dscp_map", s.dscp_to_priority);
  o.IntList("strict_priorities", s.strict_priorities, "list of priorities 0-7");
  o.IntList("dwrr_weights", s.dwrr_weights, "list of 8 integers >= 1");
  o.Uint("ecmp_seed", s.ecmp_seed);
  WriteWatchdog(o.Map("watchdog"), s.watchdog, true);
  o.Enum("unknown_unicast", s.unknown_unicast == UnknownUnicast::kFlood ? "flood" : "drop",
         {"flood", "drop"});
}

void WriteDcqcn(Out o, const DcqcnParams& p) {
  o.Omit("preset", "paper", "one of paper | hpcc-sim (resolved: the values below)");
  o.Fraction("g", p.g);
  o.Time("alpha_interval", p.alpha_interval);
  o.Time("decrease_interval", p.decrease_interval);
  o.Time("increase_timer", p.increase_timer);
  o.Size("byte_counter", p.byte_counter);
  o.Int("fast_recovery_stages", p.fast_recovery_stages);
  o.Rate("rate_ai", p.rate_ai_bps, "0");
  o.Rate("rate_hai", p.rate_hai_bps, "0");
  o.Rate("min_rate", p.min_rate_bps, "0 (none)");
  o.Bool("clamp_target_rate", p.clamp_target_rate);
  o.Enum("signal", p.mode == DcqcnMode::kCnp ? "cnp" : "ack_ecn", {"cnp", "ack_ecn"});
  o.Enum("style", p.style == DcqcnStyle::kPaper ? "paper" : "hpcc-sim", {"paper", "hpcc-sim"});
}

void WriteTimely(Out o, const TimelyParams& p) {
  using T = TimelyParams;
  o.Omit("preset", "segment", "one of segment | per_packet | patched (resolved: the values below)");
  o.Size("segment", p.segment_bytes);
  o.Enum("rtt_serialization",
         p.serialization == T::Serialization::kSegment  ? "segment"
         : p.serialization == T::Serialization::kPacket ? "packet"
                                                        : "none",
         {"segment", "packet", "none"});
  o.Fraction("ewma_alpha", p.ewma_alpha);
  o.Time("t_low", p.t_low);
  o.Time("t_high", p.t_high);
  o.Int("hai_thresh", p.hai_thresh);
  o.Int("hai_multiplier", p.hai_multiplier);
  o.Fraction("beta", p.beta);
  o.Fraction("max_decrease", p.max_decrease);
  o.Rate("additive_increment", p.additive_increment_bps, "0 (auto: line rate / 1000)");
  o.Rate("min_rate", p.min_rate_bps, "0 (auto)");
  o.Rate("max_rate", p.max_rate_bps, "0 (auto: line rate)");
  o.TimeOr("min_rtt", p.min_rtt, "0 (auto: the path's base RTT)");
  o.Bool("patched", p.patched);
  o.Fraction("patched_beta", p.patched_beta);
  o.TimeOr("patched_rtt_ref", p.patched_rtt_ref, "0 (auto)");
  o.Enum("variant", p.variant == T::Variant::kPaper ? "paper" : "seed", {"seed", "paper"});
  o.Enum("update",
         p.update == T::Update::kAck       ? "ack"
         : p.update == T::Update::kSegment ? "segment"
         : p.update == T::Update::kRtt     ? "rtt"
                                           : "auto",
         {"auto", "ack", "segment", "rtt"});
  o.Enum("pacing",
         p.pacing == T::Pacing::kPacket    ? "packet"
         : p.pacing == T::Pacing::kSegment ? "segment"
                                           : "auto",
         {"auto", "packet", "segment"});
}

void WriteDctcp(Out o, const DctcpParams& p) {
  o.Enum("mode", p.mode == DctcpMode::kWindow ? "window" : "rate", {"window", "rate"});
  o.Fraction("g", p.g);
  o.Fraction("initial_alpha", p.initial_alpha);
  o.Int("min_window_packets", p.min_window_packets);
  o.Size("max_window", p.max_window_bytes);
  o.Bool("pace", p.pace);
  o.Rate("min_rate", p.min_rate_bps, "0 (none)");
  o.Rate("rate_ai", p.rate_ai_bps, "0");
  o.Bool("rate_window", p.rate_window);
}

void WriteHpcc(Out o, const HpccParams& p) {
  o.Fraction("eta", p.eta);
  o.Int("max_stage", p.max_stage);
  o.Rate("rate_ai", p.rate_ai_bps, "0 (auto: 4e-4 x line rate)");
  o.Rate("min_rate", p.min_rate_bps, "0 (none)");
  o.Int("int_bytes", p.int_bytes);
}

void WriteLdcp(Out o, const LdcpParams& p) {
  o.Enum("variant", p.variant == LdcpVariant::kWindow ? "window" : "event_api",
         {"window", "event_api"});
  o.Fraction("alpha", p.alpha);
  o.Fraction("beta", p.beta);
  o.Fraction("gamma", p.gamma);
  o.Fraction("eta", p.eta);
  o.Size("initial_window", p.initial_window_bytes);
  o.Bool("fast_start", p.fast_start);
  o.Size("max_window", p.max_window_bytes);
  o.Time("probe_interval", p.probe_interval);
}

constexpr std::initializer_list<const char*> kCcChoices = {"none",  "dcqcn", "timely",
                                                           "dctcp", "hpcc",  "ldcp"};

void WriteHost(Out o, const HostConfig& h) {
  o.Size("mtu", h.mtu_bytes);
  o.Int("header_bytes", h.header_bytes);
  o.Int("ack_every", h.ack_every);
  o.Time("ack_delay", h.ack_delay);
  o.Time("rto", h.rto);
  o.Time("cnp_interval", h.cnp_interval);
  o.Int("control_priority", h.control_priority);
  o.IntList("dscp_of_priority", h.dscp_of_priority, "list of 8 DSCP values 0-63");
  o.Bool("ecn_capable", h.ecn_capable);
  o.Enum("window", h.window == WindowCap::kBdp ? "bdp" : "none", {"none", "bdp"});
  o.Enum("cc", CcName(h.cc), kCcChoices);
  WriteDcqcn(o.Map("dcqcn"), h.dcqcn);
  WriteTimely(o.Map("timely"), h.timely);
  WriteDctcp(o.Map("dctcp"), h.dctcp);
  WriteHpcc(o.Map("hpcc"), h.hpcc);
  WriteLdcp(o.Map("ldcp"), h.ldcp);
  WriteWatchdog(o.Map("watchdog"), h.watchdog, false);
  Out rx = o.Map("rx_buffer");
  rx.Size("size", h.rx_buffer.size_bytes);
  rx.Size("xoff", h.rx_buffer.xoff_bytes);
  rx.Size("xon", h.rx_buffer.xon_bytes);
  o.Enum("loss_recovery", h.loss_recovery == LossRecovery::kGoBackN ? "go_back_n" : "go_back_0",
         {"go_back_n", "go_back_0"});
}

void WriteStartRate(Out& o, int64_t start_rate, int64_t max_rate) {
  if (start_rate == kFairStartRate)
    o.Put("start_rate", "fair", "rate, or fair");
  else if (start_rate == 0)
    o.Omit("start_rate", "0 (the algorithm's own start)", "rate, or fair");
  else
    o.Put("start_rate", FormatRate(start_rate), "rate, or fair");
  o.Rate("max_rate", max_rate, "0 (none)");
}

// A traffic entry's or flow's own congestion control, if it overrides host.cc.
void WriteCcOverride(Out& o, const std::optional<CcKind>& cc) {
  if (cc)
    o.Enum("cc", CcName(*cc), kCcChoices);
  else
    o.Omit("cc", "host.cc", fmt::format("one of {}", fmt::join(kCcChoices, " | ")));
}

void WriteFlow(Out o, const FlowSpec& f) {
  o.Int("src", f.src);
  o.Int("dst", f.dst);
  o.Size("size", f.size_bytes);
  o.MarkRequired("src");
  o.MarkRequired("dst");
  o.MarkRequired("size");
  o.Time("start", f.start);
  o.Int("priority", f.priority);
  if (!f.tag.empty())
    o.Text("tag", f.tag);
  else
    o.Omit("tag", "none", kTextUnit);
  WriteCcOverride(o, f.cc);
  WriteStartRate(o, f.start_rate_bps, f.max_rate_bps);
}

std::string_view TrafficType(const TrafficSpec& t) {
  // A file entry's own type (a view of t's own string), else the kind's.
  if (t.kind == TrafficKind::kFlows && !t.file_type.empty()) return t.file_type;
  return TrafficKindName(t.kind);
}

void WriteTraffic(Out o, const TrafficSpec& t, int host_count) {
  const std::string_view type = TrafficType(t);
  o.Enum("type", type,
         {"flows", "incast", "flow_file", "poisson", "hotspot", "permutation", "all_to_all",
          "microburst", "collective", "dependency_file", "aicb_workload"});
  o.MarkRequired("type");
  if (t.kind == TrafficKind::kFlows) {
    if (t.file_type.empty()) {
      Out::List flows = o.MapList("flows", "list of {src, dst, size, ...}");
      for (const FlowSpec& f : t.flows) WriteFlow(flows.Item(), f);
      return;
    }
    o.Text("file", t.file);
    o.MarkRequired("file");
    o.Text("tag", t.tag);
    WriteCcOverride(o, t.cc);
    if (type == "dependency_file") o.Int("priority", t.priority);
    WriteStartRate(o, t.start_rate_bps, t.max_rate_bps);
    return;
  }
  o.Time("start", t.start);
  o.Int("priority", t.priority);
  WriteCcOverride(o, t.cc);
  if (t.kind != TrafficKind::kHotspot) o.Text("tag", t.tag);
  WriteStartRate(o, t.start_rate_bps, t.max_rate_bps);
  // Participants: left out when they are every host in order (the reader's
  // default when the key is absent).
  const auto hosts = [&](std::string_view key) {
    bool all = static_cast<int>(t.hosts.size()) == host_count || t.hosts.empty();
    for (size_t i = 0; all && i < t.hosts.size(); ++i) all = t.hosts[i] == static_cast<int>(i);
    if (all)
      o.Omit(key, "all hosts", "list of host ids or ranges like \"1-16\"");
    else
      o.IntList(key, t.hosts, "list of host ids or ranges like \"1-16\"");
  };
  const auto poisson = [&] {
    hosts("hosts");
    o.Fraction("load", t.load);
    o.Text("cdf", t.cdf_source);
    o.Time("span", t.span);
    for (const char* key : {"load", "cdf", "span"}) o.MarkRequired(key);
  };
  switch (t.kind) {
    case TrafficKind::kIncast:
      o.IntList("senders", t.senders, "list of host ids or ranges like \"1-16\"");
      o.Int("receiver", t.receiver);
      o.Size("size", t.size_bytes);
      for (const char* key : {"senders", "receiver", "size"}) o.MarkRequired(key);
      o.Int("count", t.count);
      o.TimeOr("period", t.period, "0 (one incast)");
      break;
    case TrafficKind::kPoisson:
      poisson();
      if (t.group_size > 0)
        o.Int("group_size", t.group_size);
      else
        o.Omit("group_size", "0 (one group of all)", kIntUnit);
      o.Omit("groups", "1 (or group_size: hosts / groups)", kIntUnit);
      break;
    case TrafficKind::kHotspot:
      poisson();
      o.Fraction("hot_fraction", t.hot_fraction);
      o.Fraction("hot_hosts_fraction", t.hot_hosts_fraction);
      break;
    case TrafficKind::kPermutation:
    case TrafficKind::kAllToAll:
      hosts("hosts");
      o.Size("size", t.size_bytes);
      o.MarkRequired("size");
      break;
    case TrafficKind::kMicroburst:
      o.Int("src", t.src);
      o.Int("dst", t.dst);
      o.Time("duration", t.duration);
      for (const char* key : {"src", "dst", "duration"}) o.MarkRequired(key);
      break;
    case TrafficKind::kCollective: {
      const CollectiveSpec& c = t.collective;
      o.Put("op", std::string(CollectiveOpName(c.op)),
            "one of allreduce | allgather | reducescatter | alltoall | broadcast");
      o.MarkRequired("op");
      o.Put("algorithm", std::string(CollectiveAlgorithmName(c.algorithm)),
            "one of ring | tree | halving_doubling | direct | hierarchical");
      hosts("ranks");
      o.Omit("servers", "(or ranks: every GPU of these servers)",
             "list of server ids or ranges like \"0-3\"");
      o.Int("channels", c.channels);
      if (c.chunk_bytes > 0)
        o.Size("chunk", c.chunk_bytes);
      else
        o.Omit("chunk", "0 (one message per step)", kSizeUnit);
      o.Int("iterations", c.iterations);
      o.Time("compute", c.compute);
      if (!c.after_tag.empty()) {
        o.Text("after", c.after_tag);
        o.Time("after_compute", c.after_compute);
      }
      o.Size("size", t.size_bytes);
      o.MarkRequired("size");
      break;
    }
    case TrafficKind::kTraining: {
      const CollectiveSpec& c = t.collective;
      o.Text("file", t.file);
      o.MarkRequired("file");
      o.Put("algorithm", std::string(CollectiveAlgorithmName(c.algorithm)),
            "one of ring | tree | halving_doubling (the AllReduces')");
      hosts("ranks");
      o.Int("channels", c.channels);
      if (c.chunk_bytes > 0)
        o.Size("chunk", c.chunk_bytes);
      else
        o.Omit("chunk", "0 (one message per step)", kSizeUnit);
      o.Int("iterations", c.iterations);
      break;
    }
    case TrafficKind::kFlows:
      break;
  }
}

std::string_view FaultType(FaultKind k) {
  switch (k) {
    case FaultKind::kNicPauseStorm:
      return "nic_pause_storm";
    case FaultKind::kSlowReceiver:
      return "slow_receiver";
    case FaultKind::kLinkDown:
      return "link_down";
    case FaultKind::kPacketLoss:
      return "packet_loss";
    case FaultKind::kMacEntryLoss:
      return "mac_entry_loss";
  }
  return "?";
}

void WriteFault(Out o, const FaultSpec& f) {
  o.Enum("type", FaultType(f.kind),
         {"nic_pause_storm", "slow_receiver", "link_down", "packet_loss", "mac_entry_loss"});
  o.MarkRequired("type");
  const bool on_link = f.kind == FaultKind::kLinkDown || f.kind == FaultKind::kPacketLoss;
  if (on_link) {
    // Either end of the link by its nodes, or one node's port.
    if (f.node_b >= 0) {
      o.Int("a", f.node_a);
      o.Int("b", f.node_b);
      o.MarkRequired("a");
      o.MarkRequired("b");
    } else {
      o.Int("node", f.node_a);
      o.Int("port", f.port);
      o.MarkRequired("node");
      o.MarkRequired("port");
    }
    if (f.kind == FaultKind::kLinkDown) o.Time("convergence", f.convergence);
    if (f.kind == FaultKind::kPacketLoss) {
      if (f.every_nth > 0) {
        o.Int("every_nth", f.every_nth);
        o.MarkRequired("every_nth");
      } else {
        o.Fraction("probability", f.probability);
        o.MarkRequired("probability");
      }
    }
  } else {
    o.Int("host", f.host);
    o.MarkRequired("host");
  }
  if (f.kind == FaultKind::kNicPauseStorm) o.Int("priority", f.priority);
  if (f.kind == FaultKind::kSlowReceiver) {
    o.Rate("rate", f.rate_bps, "0 (line rate)");
    if (f.period > 0) {
      o.Time("period", f.period);
      o.Time("stall", f.stall);
    } else {
      o.Omit("period", "0 (no stalls)", kTimeUnit);
      o.Omit("stall", "0 (no stalls)", kTimeUnit);
    }
  }
  o.Time("at", f.at);
  o.MarkRequired("at");
  if (f.until == kTimeMax)
    o.Omit("until", "never (the end of the run)", kTimeUnit);
  else
    o.Time("until", f.until);
}

void WriteMonitors(Out o, const MonitorConfig& m) {
  o.Time("interval", m.interval);
  o.Time("start", m.start);
  if (m.end == kTimeMax)
    o.Omit("end", "never (the end of the run)", kTimeUnit);
  else
    o.Time("end", m.end);
  o.IntList("nodes", m.nodes, "list of node ids (nodes.csv); empty = all");
  Out d = o.Map("deadlock");
  d.Bool("enabled", m.deadlock.enabled);
  d.Time("threshold", m.deadlock.threshold);
  d.Bool("break", m.deadlock.break_cycle);
  Out pc = o.Map("pcap");
  Out::List ports = pc.MapList("ports", "list of {node, port}; empty = no capture");
  for (const PcapPort& port : m.pcap.ports) {
    Out item = ports.Item();
    item.Int("node", port.node);
    item.Int("port", port.port);
    item.MarkRequired("node");
    item.MarkRequired("port");
  }
  pc.Time("start", m.pcap.start);
  if (m.pcap.end == kTimeMax)
    pc.Omit("end", "never (the end of the run)", kTimeUnit);
  else
    pc.Time("end", m.pcap.end);
  pc.Int("snaplen", m.pcap.snaplen);
}

}  // namespace

std::string ResolvedScenarioYaml(const Scenario& sc, std::vector<ResolvedSetting>* settings) {
  YAML::Node root(YAML::NodeType::Map);
  Out o(root, "", settings);
  o.Text("name", sc.name);
  o.Uint("seed", sc.seed);
  o.Time("duration", sc.duration);
  WriteTopology(o.Map("topology"), sc.topology);
  WriteSwitch(o.Map("switch"), sc.sw);
  WriteHost(o.Map("host"), sc.host);
  Out::List traffic = o.MapList("traffic", "list of traffic entries");
  for (const TrafficSpec& t : sc.traffic)
    WriteTraffic(traffic.Item(), t, ExpectedHostCount(sc.topology));
  WriteMonitors(o.Map("monitors"), sc.monitors);
  Out::List faults = o.MapList("faults", "list of faults");
  for (const FaultSpec& f : sc.faults) WriteFault(faults.Item(), f);
  Out output = o.Map("output");
  if (!sc.output.dir.empty())
    output.Text("dir", sc.output.dir);
  else
    output.Omit("dir", "results/NAME", kTextUnit);
  output.Bool("hpcc_compat", sc.output.hpcc_compat);
  if (sc.output.hpcc_qlen.enabled) {
    const OutputConfig::HpccQlen& q = sc.output.hpcc_qlen;
    Out qlen = output.Map("hpcc_qlen");
    qlen.Time("start", q.start);
    if (q.end == kTimeMax)
      qlen.Omit("end", "never (the end of the run)", kTimeUnit);
    else
      qlen.Time("end", q.end);
    qlen.Time("interval", q.interval);
    qlen.Time("dump_interval", q.dump_interval);
  } else {
    output.Omit("hpcc_qlen", "off (a map {start, end, interval, dump_interval} writes qlen.txt)",
                kTextUnit);
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

}  // namespace rocesim
