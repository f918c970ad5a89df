// Scenario reader (see scenario_reader.h). The YAML is loaded into a yaml-cpp tree,
// --set overrides are spliced into that tree (so yaml_as_run is simply the tree
// re-emitted), and then a schema walk converts and validates every field. Each value
// is carried as a Field (node + dotted path + the override it came from, if any), so
// every error can point at the exact place the user has to fix.
#include "scenario/scenario_reader.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include "core/units.h"
#include "scenario/yaml_fields.h"
#include "topo/hpcc_topology_file.h"
#include "topo/topology_size.h"

namespace rocesim {
namespace scenario_detail {

// In int64 so that the reader can reject counts whose product overflows int.
int64_t TotalHosts(const TopologyConfig& t) {
  switch (t.kind) {
    case TopologyKind::kStar:
      return t.hosts;
    case TopologyKind::kDumbbell:
      return int64_t{t.hosts_left} + t.hosts_right;
    case TopologyKind::kLeafSpine:
      return int64_t{t.leaves} * t.hosts_per_leaf;
    case TopologyKind::kFatTree:
      return int64_t{t.k} * t.k * t.k / 4;
    case TopologyKind::kFile:
      return t.file_hosts;
    case TopologyKind::kRail:
      return int64_t{t.servers} * t.gpus_per_server;
  }
  return 0;
}

// ---------------------------------------------------------------------------

std::string Reader::ResolvePath(const Field& f) const {
  const std::string name = String(f);
  if (name.empty()) Expected(f, "a file name");
  std::filesystem::path p(name);
  if (p.is_relative() && !base_dir_.empty()) p = std::filesystem::path(base_dir_) / p;
  p = std::filesystem::absolute(p).lexically_normal();
  // Written back into the tree so yaml_as_run works from any directory.
  YAML::Node node = f.node;
  node = p.string();
  return p.string();
}

void Reader::ReadLink(const Field& f, int64_t& rate, Time& delay) const {
  const Map m = ReadMap(f, {"rate", "delay"});
  if (auto v = m.Get("rate")) rate = Rate(*v);
  if (auto v = m.Get("delay")) delay = TimeValue(*v, 0);
}

void Reader::ReadTopology(const Field& f, TopologyConfig& t) {
  // One line per key is what clang-format makes of this list.
  // clang-format off
  const Map m = ReadMap(
      f, {"type", "hosts", "hosts_left", "hosts_right", "leaves", "spines", "hosts_per_leaf",
          "links_per_spine", "k", "servers", "servers_per_rail_group", "file", "gpus_per_server",
          "nvlink", "host_link", "fabric_link", "core_link", "sync_window", "ifg_bytes",
          "error_rate"});
  // clang-format on
  const Field type_field =
      Require(m, "type", " (one of star, dumbbell, leaf_spine, fat_tree, rail, file)");
  const std::string type =
      OneOf(type_field, {"star", "dumbbell", "leaf_spine", "fat_tree", "rail", "file"});
  // spines and links_per_spine apply to both switch tiers that have spines.
  const bool spined = type == "leaf_spine" || type == "rail";
  const std::string_view spine_types = spined ? std::string_view(type) : "leaf_spine or rail";
  CheckTypedKeys(m, type,
                 {{"hosts", "star"},
                  {"hosts_left", "dumbbell"},
                  {"hosts_right", "dumbbell"},
                  {"leaves", "leaf_spine"},
                  {"spines", spine_types},
                  {"hosts_per_leaf", "leaf_spine"},
                  {"links_per_spine", spine_types},
                  {"k", "fat_tree"},
                  {"servers", "rail"},
                  {"servers_per_rail_group", "rail"},
                  {"file", "file"}});

  const auto count = [&](std::string_view key, int& out) {
    if (auto v = m.Get(key)) out = IntField(*v, 1, kMaxCount);
  };
  // Any type may group its hosts into GPU servers; rail needs it for its rails.
  std::optional<Field> gpus_field = m.Get("gpus_per_server");
  if (type == "rail")
    gpus_field = Require(m, "gpus_per_server",
                         " (the number of rails: GPU i of every server has its own NIC on rail i)");
  if (gpus_field) t.gpus_per_server = IntField(*gpus_field, 1, kMaxCount);
  if (type == "star") {
    t.kind = TopologyKind::kStar;
    count("hosts", t.hosts);
  } else if (type == "dumbbell") {
    t.kind = TopologyKind::kDumbbell;
    count("hosts_left", t.hosts_left);
    count("hosts_right", t.hosts_right);
  } else if (type == "leaf_spine") {
    t.kind = TopologyKind::kLeafSpine;
    count("leaves", t.leaves);
    count("spines", t.spines);
    count("hosts_per_leaf", t.hosts_per_leaf);
    count("links_per_spine", t.links_per_spine);
  } else if (type == "fat_tree") {
    t.kind = TopologyKind::kFatTree;
    if (auto v = m.Get("k")) {
      t.k = IntField(*v, 2, kMaxCount);
      if (t.k % 2 != 0) Expected(*v, "an even integer >= 2");
    }
  } else if (type == "rail") {
    t.kind = TopologyKind::kRail;
    t.servers = IntField(Require(m, "servers", " (the number of GPU servers)"), 1, kMaxCount);
    count("spines", t.spines);
    count("links_per_spine", t.links_per_spine);
    t.servers_per_rail_group = t.servers;  // one rail group unless told otherwise
    if (auto v = m.Get("servers_per_rail_group")) {
      t.servers_per_rail_group = IntField(*v, 1, kMaxCount);
      if (t.servers % t.servers_per_rail_group != 0)
        Fail(*v, fmt::format("expected a divisor of servers ({}), got {}: rail groups are "
                             "equal blocks of consecutive servers",
                             t.servers, t.servers_per_rail_group));
    }
  } else {
    t.kind = TopologyKind::kFile;
    const Field file_field = Require(m, "file", " (the HPCC topology file for type file)");
    t.file = ResolvePath(file_field);
    try {
      t.file_hosts = ReadHpccTopologyFile(t.file).HostCount();
    } catch (const TopologyFileError& e) {
      Fail(file_field, e.what());
    }
    if (t.file_hosts <= 0) Fail(file_field, fmt::format("topology file '{}' has no hosts", t.file));
  }
  const int64_t hosts = TotalHosts(t);
  if (hosts > std::numeric_limits<int>::max()) {
    Fail(f, fmt::format("the topology has too many hosts ({})", hosts));
  }
  hosts_ = static_cast<int>(hosts);
  CheckBuildable(f, m, t);
  if (gpus_field && hosts % t.gpus_per_server != 0)
    Fail(*gpus_field,
         fmt::format("expected a divisor of the topology's {} hosts, got {}: servers are groups "
                     "of gpus_per_server consecutive host ids",
                     hosts, t.gpus_per_server));
  if (auto v = m.Get("nvlink")) {
    const Map nv = ReadMap(*v, {"rate", "latency"});
    if (auto r = nv.Get("rate")) t.nvlink_rate_bps = Rate(*r);
    if (auto l = nv.Get("latency")) t.nvlink_latency = TimeValue(*l, 0);
  }

  if (auto v = m.Get("host_link")) ReadLink(*v, t.host_rate_bps, t.host_delay);
  if (auto v = m.Get("fabric_link")) ReadLink(*v, t.fabric_rate_bps, t.fabric_delay);
  if (auto v = m.Get("core_link")) ReadLink(*v, t.core_rate_bps, t.core_delay);
  if (auto v = m.Get("sync_window")) {
    if (!v->node.IsScalar()) Expected(*v, R"("auto" or a time like "1us")");
    const std::string& text = v->node.Scalar();
    if (text != "auto") {
      // A word that is not a time gets the choice, not the time's syntax.
      if (std::none_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        Expected(*v, R"("auto" or a time like "1us")");
      t.sync_window = TimeValue(*v, 1);
    }
  }
  if (auto v = m.Get("ifg_bytes")) t.ifg_bytes = IntField(*v, 0, 1 << 12);
  if (auto v = m.Get("error_rate")) {
    if (t.kind == TopologyKind::kFile)
      Fail(*v, "a topology file gives each link its own error rate (its fifth column)");
    t.error_rate = Fraction(*v, 0, true, 1);
  }
}

// Refuses, before anything is built, a fabric with a switch of more ports
// than a node can number or one whose estimated size exceeds the machine's
// memory, naming the field that made it so.
void Reader::CheckBuildable(const Field& f, const Map& m, const TopologyConfig& t) const {
  if (t.kind == TopologyKind::kFile) return;  // the build names the file's node
  const TopologySize size = SizeOfTopology(t);
  const auto field = [&](std::string_view key) { return m.Get(key).value_or(f); };
  for (const SwitchRole& role : size.roles) {
    if (role.ports > kMaxPortsPerNode)
      Fail(field(role.key), fmt::format("each {} would have {} ports; a node has at most {}",
                                        role.name, role.ports, kMaxPortsPerNode));
  }
  const int64_t bytes = EstimatedFabricBytes(size);
  const int64_t memory = PhysicalMemoryBytes();
  if (memory > 0 && bytes > memory) {
    const std::string_view key = size.roles.empty() ? "type" : size.roles.front().key;
    Fail(field(key),
         fmt::format("the fabric ({} hosts, {} switches, {} ports) needs at least {:.1f} GB to "
                     "build, more than this machine's {:.1f} GB of memory",
                     size.hosts, size.switches, size.ports, static_cast<double>(bytes) / 1e9,
                     static_cast<double>(memory) / 1e9));
  }
  if (size.widest_ecmp > kMaxEcmpWays)
    Fail(field(size.ecmp_key),
         fmt::format("a switch would have {} equal-cost ports towards one destination; ECMP "
                     "spreads over at most {}",
                     size.widest_ecmp, kMaxEcmpWays));
}

// switch.rcm (seed 002 §3): only a CIOQ switch has the input and output
// queues RCM watches and the crossbar RCC schedules at.
void Reader::ReadRcm(const Field& f, bool cioq, RcmConfig& r) const {
  if (f.node.IsNull()) return;
  const Map m = ReadMap(
      f, {"enabled", "q_eq", "w_q", "sample_base", "regional_weight", "cam_depth", "cam_sample",
          "cam_min_hits", "remote_expiry", "notify_max_ids", "sar", "sar_idle"});
  if (auto v = m.Get("enabled")) r.enabled = Bool(*v);
  if (r.enabled && !cioq)
    Fail(m.Get("enabled").value_or(f),
         "applies to architecture cioq only (set switch.architecture: cioq): RCM watches the "
         "input and output queues of a CIOQ switch and schedules at its crossbar");
  RcmParams& p = r.params;
  if (auto v = m.Get("q_eq")) p.detector.q_eq_bytes = Size(*v, 1);
  if (auto v = m.Get("w_q")) p.detector.w_q = Int(*v, 0, 1 << 10);
  if (auto v = m.Get("sample_base")) p.detector.sample_base_bytes = Size(*v, 1);
  if (auto v = m.Get("regional_weight")) p.port.w = Fraction(*v, 0, true, 1);
  if (auto v = m.Get("cam_depth")) p.cam.depth = IntField(*v, 1, kRcmCamMaxDepth);
  if (auto v = m.Get("cam_sample")) p.cam.sample_bytes = Size(*v, 1);
  if (auto v = m.Get("cam_min_hits")) p.cam.min_hits = IntField(*v, 1, kRcmCamMaxDepth);
  if (auto v = m.Get("remote_expiry")) p.port.remote_expiry = TimeValue(*v, 1);
  if (auto v = m.Get("notify_max_ids")) p.cam.notify_max_ids = IntField(*v, 0, kRcmMaxNotifyIds);
  if (auto v = m.Get("sar")) r.sar = Bool(*v);
  if (auto v = m.Get("sar_idle")) r.sar_idle = TimeValue(*v, 0);
}

void Reader::ReadSwitch(const Field& f, SwitchConfig& s) const {
  const Map m = ReadMap(f, {"architecture", "cioq", "rcm", "buffer", "alpha", "alpha_by_rate",
                            "reserved", "pfc", "ecn", "dscp_map", "strict_priorities",
                            "dwrr_weights", "ecmp_seed", "watchdog", "unknown_unicast"});
  if (auto v = m.Get("architecture"))
    s.architecture = OneOf(*v, {"shared_buffer", "cioq"}) == "cioq"
                         ? SwitchArchitecture::kCioq
                         : SwitchArchitecture::kSharedBuffer;
  const bool cioq = s.architecture == SwitchArchitecture::kCioq;
  // Settings of the other architecture would be silently ignored: reject them.
  if (cioq) {
    for (std::string_view key : {"buffer", "alpha", "alpha_by_rate", "reserved"})
      if (auto v = m.Get(key))
        Fail(*v,
             "applies to architecture shared_buffer only; a cioq switch bounds each queue with "
             "switch.cioq.input_queue_bytes and switch.cioq.output_queue_bytes");
  }
  if (auto cioq_field = m.Get("cioq")) {
    // An empty block says nothing (e.g. --set switch.cioq=null to compare
    // architectures on one file).
    if (!cioq && !cioq_field->node.IsNull())
      Fail(*cioq_field, "applies to architecture cioq only (set switch.architecture: cioq)");
    const Map c = ReadMap(*cioq_field, {"input_queue_bytes", "output_queue_bytes"});
    if (auto v = c.Get("input_queue_bytes")) s.cioq.input_queue_bytes = Size(*v, 1);
    if (auto v = c.Get("output_queue_bytes")) s.cioq.output_queue_bytes = Size(*v, 1);
  }
  if (auto rcm_field = m.Get("rcm")) ReadRcm(*rcm_field, cioq, s.rcm);
  if (auto v = m.Get("buffer")) s.buffer_bytes = Size(*v, 1);
  if (auto v = m.Get("alpha")) {
    s.alpha = Fraction(*v, 0, false, std::numeric_limits<double>::max());
  }
  if (auto v = m.Get("alpha_by_rate")) {
    for (const Field& item : List(*v, "a list of {rate, alpha}")) {
      const Map r = ReadMap(item, {"rate", "alpha"});
      SwitchConfig::AlphaByRate a;
      a.rate_bps = Rate(Require(r, "rate"));
      a.alpha = Fraction(Require(r, "alpha"), 0, false, std::numeric_limits<double>::max());
      for (const SwitchConfig::AlphaByRate& other : s.alpha_by_rate)
        if (other.rate_bps == a.rate_bps) Fail(item, "this rate is listed twice");
      s.alpha_by_rate.push_back(a);
    }
  }
  if (auto v = m.Get("reserved")) s.reserved_bytes = Size(*v, 0);

  if (auto pfc_field = m.Get("pfc")) {
    const Map pfc =
        ReadMap(*pfc_field, {"enabled", "priorities", "quanta", "xon_offset", "headroom"});
    if (auto v = pfc.Get("enabled")) s.pfc.enabled = Bool(*v);
    if (auto v = pfc.Get("priorities")) s.pfc.priorities = PriorityList(*v);
    if (auto v = pfc.Get("quanta")) s.pfc.quanta = IntField(*v, 1, 0xFFFF);
    if (auto v = pfc.Get("xon_offset")) s.pfc.xon_offset_bytes = Size(*v, 0);
    if (auto v = pfc.Get("headroom")) {
      if (v->node.IsScalar() && v->node.Scalar() == "auto") {
        s.pfc.headroom_bytes = -1;
      } else if (!v->node.IsScalar()) {
        Expected(*v, R"("auto" or a size like "100KB")");
      } else {
        s.pfc.headroom_bytes = Size(*v, 0);
      }
    }
  }

  if (auto ecn_field = m.Get("ecn")) {
    const Map ecn = ReadMap(*ecn_field, {"enabled", "mark_on", "kmin", "kmax", "pmax", "wred_drop",
                                         "buf_max", "by_rate"});
    if (auto v = ecn.Get("enabled")) s.ecn.enabled = Bool(*v);
    if (auto v = ecn.Get("mark_on"))
      s.ecn.mark_on = OneOf(*v, {"dequeue", "enqueue"}) == "enqueue" ? EcnMarkPoint::kEnqueue
                                                                     : EcnMarkPoint::kDequeue;
    if (auto v = ecn.Get("kmin")) s.ecn.kmin_bytes = Size(*v, 0);
    if (auto v = ecn.Get("kmax")) s.ecn.kmax_bytes = Size(*v, 0);
    if (auto v = ecn.Get("pmax")) s.ecn.pmax = Fraction(*v, 0, true, 1);
    if (auto v = ecn.Get("wred_drop")) s.ecn.wred_drop_bytes = Size(*v, 0);
    if (auto v = ecn.Get("buf_max")) {
      if (cioq)
        Fail(*v,
             "applies to architecture shared_buffer only; a cioq output queue is capped by "
             "switch.cioq.output_queue_bytes");
      s.ecn.buf_max_bytes = Size(*v, 0);
    }
    if (auto v = ecn.Get("by_rate")) {
      // Per-link-speed thresholds, as the HPCC simulator's KMIN/KMAX/PMAX maps.
      for (const Field& item : List(*v, "a list of {rate, kmin, kmax, pmax}")) {
        const Map r = ReadMap(item, {"rate", "kmin", "kmax", "pmax"});
        EcnRateThresholds t;
        t.rate_bps = Rate(Require(r, "rate"));
        t.kmin_bytes = Size(Require(r, "kmin"), 0);
        const Field kmax = Require(r, "kmax");
        t.kmax_bytes = Size(kmax, 0);
        t.pmax = Fraction(Require(r, "pmax"), 0, true, 1);
        if (t.kmin_bytes > t.kmax_bytes) Fail(kmax, "expected kmax >= kmin");
        for (const EcnRateThresholds& other : s.ecn.by_rate)
          if (other.rate_bps == t.rate_bps) Fail(item, "this rate is listed twice");
        s.ecn.by_rate.push_back(t);
      }
    }
    if (s.ecn.kmin_bytes > s.ecn.kmax_bytes) {
      const std::optional<Field> at = ecn.Get("kmin") ? ecn.Get("kmin") : ecn.Get("kmax");
      Fail(*at, fmt::format("expected kmin <= kmax, got kmin = {} bytes and kmax = {} bytes",
                            s.ecn.kmin_bytes, s.ecn.kmax_bytes));
    }
  }

  // Class-selector default first, so a partial map overrides just its entries.
  for (int d = 0; d < 64; ++d) s.dscp_to_priority[d] = static_cast<uint8_t>(d / 8);
  if (auto map_field = m.Get("dscp_map")) {
    if (!map_field->node.IsNull() && !map_field->node.IsMap()) {
      Expected(*map_field, "a map of DSCP (0-63) to priority (0-7) like {26: 3}");
    }
    std::vector<bool> seen(64, false);
    for (auto it = map_field->node.begin(); it != map_field->node.end(); ++it) {
      const Field value{it->second, "", OriginOf(it->second, map_field->origin)};
      const Field key{it->first, map_field->path, value.origin};
      const int dscp = IntField(key, 0, 63);
      if (seen[dscp]) Fail(key, fmt::format("DSCP {} appears twice", dscp));
      seen[dscp] = true;
      const Field prio{value.node, JoinPath(map_field->path, it->first.Scalar()), value.origin};
      s.dscp_to_priority[dscp] = static_cast<uint8_t>(IntField(prio, 0, kNumPriorities - 1));
    }
  }

  if (auto v = m.Get("strict_priorities")) s.strict_priorities = PriorityList(*v);
  if (auto v = m.Get("dwrr_weights")) {
    constexpr std::string_view kExpected = "a list of exactly 8 integers >= 1 (one per priority)";
    const std::vector<Field> items = List(*v, kExpected);
    if (items.size() != kNumPriorities) {
      Fail(*v, fmt::format("expected {}, got {} entries", kExpected, items.size()));
    }
    for (int p = 0; p < kNumPriorities; ++p) s.dwrr_weights[p] = IntField(items[p], 1);
  }
  if (auto v = m.Get("ecmp_seed")) s.ecmp_seed = Uint64(*v);
  if (auto v = m.Get("watchdog")) ReadWatchdog(*v, s.watchdog, true);
  // SIGCOMM'16 §4.2: flood (commodity default) or drop lossless unknown unicast.
  if (auto v = m.Get("unknown_unicast"))
    s.unknown_unicast =
        OneOf(*v, {"flood", "drop"}) == "flood" ? UnknownUnicast::kFlood : UnknownUnicast::kDrop;
}

void Reader::ReadHost(const Field& f, HostConfig& h) const {
  const Map m =
      ReadMap(f, {"mtu", "header_bytes", "ack_every", "ack_delay", "rto", "cnp_interval",
                  "control_priority", "dscp_of_priority", "ecn_capable", "cc", "dcqcn", "timely",
                  "dctcp", "hpcc", "ldcp", "watchdog", "rx_buffer", "loss_recovery", "window"});
  if (auto v = m.Get("mtu"))
    h.mtu_bytes = static_cast<int>(Size(*v, 1, std::numeric_limits<int>::max()));
  if (auto v = m.Get("header_bytes")) h.header_bytes = IntField(*v, 1);
  if (auto v = m.Get("ack_every")) h.ack_every = IntField(*v, 1);
  if (auto v = m.Get("ack_delay")) h.ack_delay = TimeValue(*v, 1);
  if (auto v = m.Get("rto")) h.rto = TimeValue(*v, 1);
  if (auto v = m.Get("cnp_interval")) h.cnp_interval = TimeValue(*v, 0);
  if (auto v = m.Get("control_priority")) {
    h.control_priority = IntField(*v, 0, kNumPriorities - 1);
  }
  if (auto v = m.Get("dscp_of_priority")) {
    constexpr std::string_view kExpected =
        "a list of exactly 8 DSCP values 0-63 (one per priority)";
    const std::vector<Field> items = List(*v, kExpected);
    if (items.size() != kNumPriorities) {
      Fail(*v, fmt::format("expected {}, got {} entries", kExpected, items.size()));
    }
    for (int p = 0; p < kNumPriorities; ++p) {
      h.dscp_of_priority[p] = static_cast<uint8_t>(IntField(items[p], 0, 63));
    }
  }
  if (auto v = m.Get("ecn_capable")) h.ecn_capable = Bool(*v);
  if (auto v = m.Get("window"))
    h.window = OneOf(*v, {"none", "bdp"}) == "bdp" ? WindowCap::kBdp : WindowCap::kNone;
  if (auto v = m.Get("cc")) h.cc = ReadCcKind(*v);
  if (auto v = m.Get("dcqcn")) ReadDcqcn(*v, h.dcqcn);
  if (auto v = m.Get("timely")) ReadTimely(*v, h.timely);
  if (auto v = m.Get("dctcp")) ReadDctcp(*v, h.dctcp);
  if (auto v = m.Get("hpcc")) ReadHpcc(*v, h.hpcc);
  if (auto v = m.Get("ldcp")) ReadLdcp(*v, h.ldcp);
  if (auto v = m.Get("watchdog")) ReadWatchdog(*v, h.watchdog, false);
  if (auto v = m.Get("rx_buffer")) ReadRxBuffer(*v, h.rx_buffer);
  if (auto v = m.Get("loss_recovery"))
    h.loss_recovery = OneOf(*v, {"go_back_n", "go_back_0"}) == "go_back_n" ? LossRecovery::kGoBackN
                                                                           : LossRecovery::kGoBack0;
}

void Reader::CheckFollowedJob(const Field& item, const std::vector<TrafficSpec>& traffic) const {
  const TrafficSpec& t = traffic.back();
  if (t.kind != TrafficKind::kCollective || t.collective.after_tag.empty()) return;
  std::vector<std::string> jobs;
  for (size_t i = 0; i + 1 < traffic.size(); ++i)
    if (traffic[i].kind == TrafficKind::kCollective) jobs.push_back(traffic[i].tag);
  if (std::find(jobs.begin(), jobs.end(), t.collective.after_tag) != jobs.end()) return;
  const Field after{item.node["after"], JoinPath(item.path, "after"),
                    OriginOf(item.node["after"], item.origin)};
  Fail(after, fmt::format("\"{}\" is not the tag of an earlier collective entry ({})",
                          t.collective.after_tag,
                          jobs.empty() ? std::string("there is none")
                                       : fmt::format("earlier jobs: {}", fmt::join(jobs, ", "))));
}

void Reader::ReadPcap(const Field& f, PcapConfig& pc) const {
  const Map m = ReadMap(f, {"ports", "start", "end", "snaplen"});
  for (const Field& item : List(Require(m, "ports", " (the ports to capture)"),
                                "a list of ports like [{node: 16, port: 0}]")) {
    const Map pm = ReadMap(item, {"node", "port"});
    PcapPort port;
    port.node = IntField(Require(pm, "node"), 0);
    port.port = IntField(Require(pm, "port", " (the node's local port index)"), 0);
    port.where = fmt::format("{}: {}", Where(item), item.path);
    for (const PcapPort& earlier : pc.ports)
      if (earlier.node == port.node && earlier.port == port.port)
        Fail(item, fmt::format("port {} of node {} is listed twice", port.port, port.node));
    pc.ports.push_back(std::move(port));
  }
  if (auto v = m.Get("start")) pc.start = TimeValue(*v, 0);
  if (auto v = m.Get("end")) {
    pc.end = TimeValue(*v, 0);
    if (pc.end < pc.start)
      Fail(*v, fmt::format("expected a time not before monitors.pcap.start, got \"{}\"",
                           v->node.Scalar()));
  }
  if (auto v = m.Get("snaplen"))
    pc.snaplen = static_cast<uint32_t>(IntField(*v, 64, kMaxPcapSnaplen));
}

void Reader::ReadMonitors(const Field& f, MonitorConfig& mc) const {
  const Map m = ReadMap(f, {"interval", "start", "end", "nodes", "deadlock", "pcap"});
  if (auto v = m.Get("pcap")) ReadPcap(*v, mc.pcap);
  if (auto v = m.Get("deadlock")) {
    const Map d = ReadMap(*v, {"enabled", "threshold", "break"});
    if (auto e = d.Get("enabled")) mc.deadlock.enabled = Bool(*e);
    if (auto e = d.Get("threshold")) mc.deadlock.threshold = TimeValue(*e, 1);
    if (auto e = d.Get("break")) mc.deadlock.break_cycle = Bool(*e);
  }
  if (auto v = m.Get("interval")) {
    mc.interval = TimeValue(*v, 0);
    // A sample walks every port and queue: far below a frame time the run
    // does little but sample (1 ps would never finish).
    if (mc.interval > 0 && mc.interval < kMinMonitorInterval)
      Fail(*v, fmt::format("expected 0 (off) or at least 100ns (a sample reads every port and "
                           "queue; a 4 KB frame takes 80 ns at 400 Gb/s), got \"{}\"",
                           v->node.Scalar()));
  }
  if (auto v = m.Get("nodes"))
    for (const Field& item : List(*v, "a list of node ids like [16, 17]"))
      mc.nodes.push_back(IntField(item, 0));
  if (auto v = m.Get("start")) mc.start = TimeValue(*v, 0);
  if (auto v = m.Get("end")) {
    mc.end = TimeValue(*v, 0);
    if (mc.end < mc.start) {
      Fail(*v,
           fmt::format("expected a time not before monitors.start, got \"{}\"", v->node.Scalar()));
    }
  }
}

// output.hpcc_qlen: the HPCC simulator's queue-length monitor (qlen.txt).
void Reader::ReadHpccQlen(const Field& f, OutputConfig::HpccQlen& q) const {
  const Map m = ReadMap(f, {"start", "end", "interval", "dump_interval"});
  q.enabled = true;
  if (auto v = m.Get("start")) q.start = TimeValue(*v, 0);
  if (auto v = m.Get("end")) {
    q.end = TimeValue(*v, 0);
    if (q.end < q.start)
      Fail(*v, fmt::format("expected a time not before output.hpcc_qlen.start, got \"{}\"",
                           v->node.Scalar()));
  }
  if (auto v = m.Get("interval")) {
    // Every sample reads every switch port: 10 ns is already ten times
    // denser than that simulator's 100 ns.
    q.interval = TimeValue(*v, 1);
    if (q.interval < 10 * kNanosecond)
      Fail(*v, fmt::format("expected at least 10ns (each sample reads every switch port), got "
                           "\"{}\"",
                           v->node.Scalar()));
  }
  if (auto v = m.Get("dump_interval")) {
    q.dump_interval = TimeValue(*v, 1);
    if (q.dump_interval < q.interval)
      Fail(*v, fmt::format("expected at least output.hpcc_qlen.interval ({} ns), got \"{}\"",
                           q.interval / kNanosecond, v->node.Scalar()));
  }
}

Scenario Reader::Read(const YAML::Node& root) {
  Scenario sc;
  const Field top{root, "", nullptr};
  const Map m = ReadMap(top, {"name", "seed", "duration", "topology", "switch", "host", "traffic",
                              "monitors", "faults", "output"});
  if (auto v = m.Get("name")) sc.name = String(*v);
  if (auto v = m.Get("seed")) sc.seed = Uint64(*v);
  if (auto v = m.Get("duration")) sc.duration = TimeValue(*v, 1);
  // Topology first: traffic validation needs the host count.
  ReadTopology(Require(m, "topology"), sc.topology);
  gpus_per_server_ = sc.topology.gpus_per_server;
  if (auto v = m.Get("switch"))
    ReadSwitch(*v, sc.sw);
  else
    ReadSwitch({YAML::Node(), "switch", nullptr}, sc.sw);  // fills the DSCP default
  if (auto v = m.Get("host")) ReadHost(*v, sc.host);
  if (auto v = m.Get("traffic")) {
    for (const Field& item : List(*v, "a list of traffic entries")) {
      sc.traffic.push_back(ReadTraffic(item));
      CheckFollowedJob(item, sc.traffic);
    }
  }
  if (auto v = m.Get("monitors")) ReadMonitors(*v, sc.monitors);
  if (auto v = m.Get("faults"))
    for (const Field& item : List(*v, "a list of faults")) sc.faults.push_back(ReadFault(item));
  if (auto v = m.Get("output")) {
    const Map out = ReadMap(*v, {"dir", "hpcc_compat", "hpcc_qlen"});
    if (auto d = out.Get("dir")) sc.output.dir = String(*d);
    if (auto h = out.Get("hpcc_compat")) sc.output.hpcc_compat = Bool(*h);
    if (auto q = out.Get("hpcc_qlen")) ReadHpccQlen(*q, sc.output.hpcc_qlen);
  }
  sc.field_locations = std::move(locations_);
  return sc;
}

// ---------------------------------------------------------------------------

[[noreturn]] void BadOverride(const std::string& text, std::string_view msg) {
  throw ScenarioError(fmt::format("invalid --set '{}': {}", text, msg));
}

// Splices each "a.b.c=value" into the tree; returns the nodes it inserted so that
// errors about them can name the override instead of a file position.
std::vector<Override> ApplyOverrides(YAML::Node& root, const std::vector<std::string>& sets) {
  std::vector<Override> applied;
  for (const std::string& text : sets) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos) BadOverride(text, "expected key.path=value");
    const std::string path = text.substr(0, eq);
    std::vector<std::string> parts;
    for (size_t start = 0;;) {
      const size_t dot = path.find('.', start);
      parts.push_back(path.substr(start, dot == std::string::npos ? dot : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    for (const std::string& part : parts) {
      if (part.empty()) BadOverride(text, "empty key in the path; expected key.path=value");
    }
    YAML::Node value;
    try {
      value = YAML::Load(text.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      BadOverride(text, fmt::format("the value is not valid YAML: {}", e.msg));
    }
    applied.push_back({text, value});
    const size_t value_index = applied.size() - 1;

    YAML::Node cur = root;  // reset(), never operator=: that would rewrite the tree
    std::string walked;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& part = parts[i];
      const bool last = i + 1 == parts.size();
      if (cur.IsSequence()) {
        const std::optional<int64_t> index = ParseInt(part);
        if (!index || *index < 0) {
          BadOverride(text, fmt::format("{} is a list; '{}' is not an index", walked, part));
        }
        if (static_cast<size_t>(*index) >= cur.size()) {
          BadOverride(text, fmt::format("index {} is out of range: {} has {} entries", *index,
                                        walked, cur.size()));
        }
        const size_t idx = static_cast<size_t>(*index);
        if (last) {
          cur[idx] = applied[value_index].node;
        } else {
          YAML::Node next = cur[idx];
          cur.reset(next);
        }
      } else if (cur.IsMap() || cur.IsNull()) {
        if (last) {
          cur[part] = applied[value_index].node;
        } else {
          YAML::Node next = cur[part];
          if (!next.IsDefined() || next.IsNull()) {
            next = YAML::Node(YAML::NodeType::Map);
            applied.push_back({text, next});
          }
          cur.reset(next);
        }
      } else {
        BadOverride(text, fmt::format("{} is a single value, not a map or list", walked));
      }
      walked = JoinPath(walked, part);
    }
  }
  return applied;
}

}  // namespace scenario_detail

using scenario_detail::ApplyOverrides;
using scenario_detail::Describe;
using scenario_detail::Override;
using scenario_detail::Reader;
using scenario_detail::TotalHosts;

int ExpectedHostCount(const TopologyConfig& t) {
  return static_cast<int>(TotalHosts(t));
}

Scenario ParseScenarioText(const std::string& yaml_text, const std::string& display_name,
                           const std::string& base_dir,
                           const std::vector<std::string>& set_overrides,
                           std::optional<uint64_t> seed_override) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(fmt::format("{}:{}:{}: invalid YAML: {}", display_name, e.mark.line + 1,
                                    e.mark.column + 1, e.msg));
  } catch (const YAML::Exception& e) {
    throw ScenarioError(fmt::format("{}: invalid YAML: {}", display_name, e.msg));
  }
  if (!root.IsMap() && !root.IsNull()) {
    const YAML::Mark mark = root.Mark();
    throw ScenarioError(fmt::format("{}:{}:{}: expected a map of settings at the top level, got {}",
                                    display_name, mark.line + 1, mark.column + 1, Describe(root)));
  }
  if (root.IsNull()) root.reset(YAML::Node(YAML::NodeType::Map));

  const std::vector<Override> overrides = ApplyOverrides(root, set_overrides);
  if (seed_override) root["seed"] = *seed_override;

  Scenario sc;
  try {
    sc = Reader(display_name, base_dir, overrides).Read(root);
  } catch (const YAML::Exception& e) {
    // Not expected (the walk checks node types first); kept so a yaml-cpp surprise
    // still reads as a scenario problem rather than an internal error.
    throw ScenarioError(fmt::format("{}: {}", display_name, e.what()));
  }
  sc.source_file = display_name;
  YAML::Emitter out;
  out << root;
  sc.yaml_as_run = std::string(out.c_str()) + "\n";
  return sc;
}

std::set<std::string> AcceptedKeys(const std::string& yaml_text) {
  YAML::Node root = YAML::Load(yaml_text);
  std::set<std::string> keys;
  const std::vector<Override> none;
  const std::string name = "<keys>", base;
  Reader reader(name, base, none);
  reader.RecordAcceptedKeys(&keys);
  reader.Read(root);
  return keys;
}

Scenario LoadScenario(const std::string& path, const std::vector<std::string>& set_overrides,
                      std::optional<uint64_t> seed_override) {
  // An ifstream opens a directory and reads nothing: say what it is instead
  // of reporting an empty scenario.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ScenarioError(
        fmt::format("'{}' is a directory, not a scenario file (expected a .yaml file)", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ScenarioError(
        fmt::format("cannot open scenario file '{}': {}", path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  return ParseScenarioText(text.str(), path, base_dir, set_overrides, seed_override);
}

}  // namespace rocesim
