// How a Simulation is built from a validated Scenario (sim/simulation.h):
// its replica of the fabric (the ports, switches and NICs it holds), the
// flows with their ideal times and congestion control, the arrival cursor,
// the fault events, and, for a partition, the cut links it hands frames
// over. Running it is sim/simulation.cpp's.
#include <fmt/format.h>

#include <algorithm>

#include "cc/cc_factory.h"
#include "net/switch_buffers.h"
#include "sim/partition.h"
#include "sim/simulation.h"
#include "transport/flow_graph_builder.h"
#include "workload/generators.h"

namespace rocesim {

Simulation::Simulation(const Scenario& scenario, std::shared_ptr<const FabricLayout> layout)
    : scenario_(scenario), layout_(std::move(layout)) {
  if (!layout_) layout_ = LayoutFabric(scenario_);
  fabric_.scenario = &scenario_;
  Build();
  BuildFlows();
}

Simulation::Simulation(const Scenario& scenario, std::shared_ptr<const FabricLayout> layout,
                       const PartitionPlace& place)
    : scenario_(scenario), layout_(std::move(layout)) {
  fabric_.scenario = &scenario_;
  const FabricLayout& l = *layout_;
  coordinator_ = place.coordinator;
  shared_routes_ = place.routes;
  local_.resize(l.nodes.size());
  for (size_t n = 0; n < local_.size(); ++n) local_[n] = place.cut->node_part[n] == place.partition;
  local_host_.resize(l.host_nodes.size());
  for (uint32_t h = 0; h < local_host_.size(); ++h) local_host_[h] = local_[l.host_nodes[h]];
  fabric_.flows = FlowTable(local_host_);
  Build();
  // The replicas share what they would build alike (sim/shared_flow_build.h):
  // the first to claim it builds it; if that fails, the others learn why.
  const bool builds = place.shared == nullptr || place.shared->Claim();
  try {
    BuildFlows(place.traffic, place.shared, builds);
  } catch (...) {
    if (builds && place.shared != nullptr) place.shared->Fail(std::current_exception());
    throw;
  }
  MarkCutPorts(place);
}

void Simulation::Build() {
  const FabricLayout& l = *layout_;
  const SwitchConfig& sw = scenario_.sw;
  const HostConfig& host = scenario_.host;
  Fabric& f = fabric_;
  f.layout = layout_;
  f.nodes = l.nodes;      // a view: the layout outlives the fabric
  f.routing = l.routing;  // shares the layout's tables until a link_down recomputes them
  f.pfc_trace_enabled = scenario_.output.hpcc_compat;

  // The ports this replica holds: its nodes' ports, and the far end of each
  // of their links (a frame crossing a cut link lands from that port's wire).
  // A serial run holds them all: its arrays go on huge pages (HeldArray::Reset).
  const auto num_ports = l.ports.size();
  const bool whole = local_.empty();
  f.ports.Reset(num_ports, whole);
  f.port_drops.Reset(num_ports);
  f.switch_watchdog = sw.watchdog.enabled && sw.pfc.enabled;
  if (f.switch_watchdog) f.wd_stall_since.Reset(num_ports, whole);
  auto hold = [&](PortId i) {
    if (f.ports.Held(i)) return;
    const PortLink& link = l.ports[i];
    Port& p = f.ports.Hold(i);
    if (f.switch_watchdog) f.wd_stall_since.Hold(i);
    p.node = link.node;
    p.peer = link.peer;
    p.local = link.local;
    p.rate_bps = link.rate_bps;
    p.delay = link.delay;
    p.ifg_bytes = static_cast<uint16_t>(scenario_.topology.ifg_bytes);  // <= 4096 (scenario_reader)
    p.loss_probability = link.error_rate;
    if (link.error_rate > 0) {
      p.link_ops |= Port::kLinkErrors;
      f.LinkRng(i) = Rng(scenario_.seed, 0x11CE000000000000ULL + i);
    }
    // A wire keeps each frame's successor's arrival in 32 bits (net/wire.h):
    // it must land within 2^31 ps of its predecessor, a delay plus one frame
    // (of at most 1 MB, far above any MTU) later.
    if (link.delay + SerializationTime(1 << 20, link.rate_bps) >= Port::kLongDelay)
      p.wire.KeepFullArrivals();
    const Time ps_per_byte = ExactPsPerByte(link.rate_bps);
    p.ps_per_byte = ps_per_byte <= UINT32_MAX ? static_cast<uint32_t>(ps_per_byte) : 0;
    const Node& receiver = l.nodes[l.ports[link.peer].node];
    p.rx = static_cast<uint32_t>(receiver.kind) << Port::kRxKindShift | receiver.index;
    const Node& owner = l.nodes[link.node];
    p.tx = static_cast<uint32_t>(owner.kind) << Port::kRxKindShift | owner.index;
  };
  for (PortId i = 0; i < num_ports; ++i)
    if (IsLocalNode(l.ports[i].node)) {
      hold(i);
      hold(l.ports[i].peer);
    }

  const int max_frame = MaxFrameBytes(scenario_);  // buffers: CheckSwitchBuffers (layout)
  const RedParams red{sw.ecn.kmin_bytes, sw.ecn.kmax_bytes, sw.ecn.pmax};
  const bool cioq = sw.architecture == SwitchArchitecture::kCioq;
  if (cioq) {
    f.cioq_switches.resize(l.num_switches);
  } else {
    f.switches.resize(l.num_switches);
  }
  for (uint32_t n = 0; n < l.nodes.size(); ++n) {
    if (!l.nodes[n].is_switch || !IsLocalNode(n)) continue;
    const Node& node = f.nodes[n];
    const std::vector<int64_t> headroom = SwitchHeadroom(l, n, sw.pfc, max_frame);
    std::vector<RedParams> port_red(node.num_ports, red);
    for (uint16_t i = 0; i < node.num_ports; ++i)
      for (const EcnRateThresholds& t : sw.ecn.by_rate)
        if (t.rate_bps == f.ports[node.first_port + i].rate_bps)
          port_red[i] = RedParams{t.kmin_bytes, t.kmax_bytes, t.pmax};
    const int dwrr_unit = host.mtu_bytes + host.header_bytes;
    if (cioq) {
      f.cioq_switches[node.index].Init(n, node.first_port, sw, headroom, port_red, dwrr_unit,
                                       scenario_.seed);
      continue;
    }
    Switch& s = f.switches[node.index];
    std::vector<int64_t> rates(node.num_ports);
    for (uint16_t i = 0; i < node.num_ports; ++i) rates[i] = f.ports[node.first_port + i].rate_bps;
    s.Init(n, node.first_port, sw, headroom, port_red, rates, dwrr_unit, scenario_.seed, node.index,
           f.routing.Salt(node.index));
  }
  // NICs: those of hosts whose port this replica holds (its own, and a
  // host across a cut link from one of its switches).
  f.nics.Reset(l.host_nodes.size(), whole);
  for (uint32_t h = 0; h < l.host_nodes.size(); ++h)
    if (f.ports.Held(l.HostPort(h))) f.nics.Hold(h).Init(h, l.HostPort(h), host);

  // Faults (src/ops/) as events.
  if (scenario_.monitors.deadlock.enabled)
    f.Schedule(DeadlockPeriod(), EventKind::kDeadlockCheck, 0);
  for (uint32_t i = 0; i < scenario_.faults.size(); ++i) {
    const FaultSpec& fs = scenario_.faults[i];
    f.Schedule(fs.at, EventKind::kFaultStart, i);
    if (fs.until != kTimeMax) f.Schedule(fs.until, EventKind::kFaultEnd, i);
  }
}

Time Simulation::FillFlow(const FlowSpec& s, bool ideal, FlowLabels* labels, Flow& fl) {
  Fabric& f = fabric_;
  if (labels != nullptr) labels->Add(s.cc.value_or(scenario_.host.cc), s.tag);
  fl.id = f.flows.Count();
  fl.src = static_cast<uint32_t>(s.src);
  fl.dst = static_cast<uint32_t>(s.dst);
  const int64_t size = s.size_bytes;
  fl.size_bytes = size;
  // A flow that waits for others starts when they are done (kTimeMax
  // until then); one that does not, at its start plus its delay.
  // (start + delay beyond the end of simulated time: never.)
  const bool waits = !s.after.empty() || s.after_sent != UINT32_MAX;
  fl.start = waits || s.delay >= kTimeMax - s.start ? kTimeMax : s.start + s.delay;
  fl.priority = static_cast<uint8_t>(s.priority);
  fl.start_rate_bps = s.start_rate_bps;
  fl.max_rate_bps = s.max_rate_bps;
  fl.sport = s.sport != 0 ? s.sport : QpSourcePort(fl.id);
  fl.hpcc_dport = s.hpcc_dport;
  fl.data_key = Routing::FlowKey(fl.src, fl.dst, fl.sport);
  fl.reply_key = Routing::FlowKey(fl.dst, fl.src, fl.sport);
  const int64_t mtu = scenario_.host.mtu_bytes;
  // Every reader caps a size at kMaxFlowBytes; a tiny MTU can still make
  // more packets than a QP's 32-bit sequence numbers count.
  const int64_t packets = (size + mtu - 1) / mtu;
  if (packets > int64_t{UINT32_MAX})
    FailBuild(scenario_, "host.mtu",
              fmt::format("flow {} ({} -> {}): {} bytes are {} packets of the {}-byte MTU, "
                          "more than the {} a QP numbers",
                          fl.id, s.src, s.dst, size, packets, mtu, UINT32_MAX));
  fl.packets = static_cast<uint32_t>(packets);
  fl.last_payload = static_cast<uint32_t>(size - int64_t{fl.packets - 1} * mtu);
  offered_bytes_ += size;
  if (f.nvlink.SameServer(fl.src, fl.dst)) {
    fl.ideal_fct = f.nvlink.IdealTime(size);
    fl.cc.base_rtt = f.nvlink.IdealTime(mtu);
    return fl.ideal_fct;
  }
  // A flow this replica does not hold keeps nothing but its ends.
  if (!ideal && !f.flows.WouldHold(fl.src, fl.dst)) return 0;
  // One walk of each direction of the path serves the ideal FCT, the
  // delivery time and the base RTT (the ideal FCT of one full packet).
  IdealFctInput in = IdealInput(fl);
  const IdealTimes t = IdealFlowTimes(in);
  fl.ideal_fct = t.fct;
  in.packets = 1;
  in.last_frame = in.full_frame;
  fl.cc.base_rtt = IdealFlowTimes(in).fct;
  return t.delivered;
}

void Simulation::BuildFlows(const std::vector<ExpandedTraffic>* expanded, SharedFlowBuild* shared,
                            bool builds) {
  Fabric& f = fabric_;
  const TopologyConfig& topo = scenario_.topology;
  f.nvlink.Init(static_cast<uint32_t>(layout_->host_nodes.size()), topo.gpus_per_server,
                topo.nvlink_rate_bps, topo.nvlink_latency);
  // Each flow's start (kTimeMax: it waits for others), whether or not this
  // replica holds the flow: the arrival cursor is built from them.
  std::vector<Time> flow_start;
  // Recorded by the replica that builds; the others read its copy.
  std::shared_ptr<FlowLabels> labels =
      shared != nullptr && !builds ? nullptr : std::make_shared<FlowLabels>();
  FlowGraphBuilder graph;  // filled only by the replica that builds (`builds`)
  // Generators expand here, where every host's link rate is known
  // (workload/generators.h); each entry draws from its own seeded stream.
  const std::vector<int64_t> host_rates = HostLinkRates(*layout_);
  if (shared != nullptr && !builds) f.flows.LeaveEndsToOthers();  // the builder's are shared
  for (size_t i = 0; i < scenario_.traffic.size(); ++i) {
    const TrafficSpec& spec = scenario_.traffic[i];
    ExpandedTraffic own;
    if (expanded == nullptr)
      own = ExpandTrafficGraph(spec, i, scenario_.seed, host_rates, scenario_.host.mtu_bytes);
    const ExpandedTraffic& x = expanded != nullptr ? (*expanded)[i] : own;
    const uint32_t base = f.flows.Count();
    const auto local_flows = static_cast<uint32_t>(x.flows.size());
    f.flows.Reserve(local_flows);
    flow_start.reserve(base + local_flows);
    if (builds) graph.BeginEntry(base, local_flows);
    EntryTotals& totals = entry_totals_.emplace_back();
    // A collective's messages on the idle fabric: one instance's ideal time
    // (the builder's: the others take it from the shared build).
    const bool ideal = builds && !x.collectives.empty();
    std::vector<IdealMessage> msg;
    if (ideal) msg.reserve(local_flows);
    for (uint32_t k = 0; k < local_flows; ++k) {
      const FlowSpec& s = x.flows[k];
      Flow fl;
      const Time delivered = FillFlow(s, ideal, labels.get(), fl);
      if (ideal) msg.push_back(IdealMessageOf(fl, delivered));
      flow_start.push_back(fl.start);
      f.flows.Add(fl);
      totals.flows++;
      totals.bytes += s.size_bytes;
      if (builds) graph.AddFlow(k, s);
    }
    if (builds) {
      graph.AddJoins(x.joins);
      if (!spec.collective.after_tag.empty()) FollowJob(graph, spec, x.collectives.front());
    }
    if (!x.collectives.empty()) {
      // Every iteration has the same shape: one ideal time serves them all.
      const CollectiveInstance& first = x.collectives.front();
      const Time t =
          !ideal ? 0
                 : IdealCollectiveTime(x.flows, x.joins, msg, first.first_flow, first.end_flow,
                                       static_cast<uint32_t>(host_rates.size()));
      collectives_.push_back(CollectiveEntry{i, base, x.collectives, x.flow_step, t});
    }
  }
  if (!builds) {
    const SharedFlowBuild::Product& built = shared->Take();
    f.deps.Share(built.deps);
    f.flows.TakeEnds(built.ends);
    labels_ = built.labels;
    for (size_t c = 0; c < collectives_.size(); ++c) collectives_[c].ideal = built.ideals[c];
  } else if (!graph.Empty()) {
    try {
      graph.Build(f.flows, f.deps);
    } catch (const std::invalid_argument& e) {
      FailBuild(scenario_, "traffic", e.what());
    }
  }
  if (labels) labels_ = std::move(labels);
  if (builds && shared != nullptr) {
    SharedFlowBuild::Product built{f.deps.graph(), {}, f.flows.SharedEnds(), labels_};
    for (const CollectiveEntry& c : collectives_) built.ideals.push_back(c.ideal);
    shared->Give(std::move(built));
  }
  // A flow that waits for others starts when they are done: kTimeMax until
  // then (those of a job following another learn it from the graph).
  for (Flow& fl : f.flows)
    if (f.deps.Waits(fl.id)) fl.start = kTimeMax;
  SetUpCongestionControl();
  ScheduleArrivals(flow_start);
}

void Simulation::FollowJob(FlowGraphBuilder& graph, const TrafficSpec& spec,
                           const CollectiveInstance& first) const {
  const CollectiveEntry* earlier = nullptr;
  for (const CollectiveEntry& e : collectives_)
    if (scenario_.traffic[e.traffic_index].tag == spec.collective.after_tag) earlier = &e;
  if (earlier == nullptr) return;  // the reader names only earlier collectives
  graph.FollowJob(fabric_.flows, static_cast<uint32_t>(layout_->host_nodes.size()), spec.hosts,
                  spec.collective.after_compute, earlier->first_flow, earlier->instances.back(),
                  first);
}

void Simulation::SetUpCongestionControl() {
  Fabric& f = fabric_;
  f.cc.resize(f.flows.HeldCount());
  const std::vector<CcKind>& cc = labels_->Cc();
  for (const CcKind kind : cc) f.int_enabled = f.int_enabled || NeedsInt(kind);
  for (Flow& fl : f.flows) {
    const CcKind kind = cc[fl.id];
    // Congestion control runs at the sender (a partition: its own hosts').
    if (IsLocalHost(fl.src))
      f.cc[f.flows.PlaceOf(fl)] = MakeCongestionControl(kind, scenario_.host);
    fl.sends_cnps = UsesCnps(kind, scenario_.host);
    if (NeedsInt(kind)) fl.int_bytes = static_cast<uint16_t>(scenario_.host.hpcc.int_bytes);
  }
}

void Simulation::ScheduleArrivals(const std::vector<Time>& flow_start) {
  Fabric& f = fabric_;
  // Arrivals are a cursor over the flows that wait for nothing, sorted by
  // start time: one pending event, however many flows the workload has.
  // The others start from their dependencies (kDependentStart).
  f.routes.Resize(f.flows.Count(), !local_host_.empty());
  start_order_.clear();
  traffic_start_ = kTimeMax;
  for (uint32_t i = 0; i < flow_start.size(); ++i) {
    if (f.deps.Waits(i) || flow_start[i] == kTimeMax) continue;
    traffic_start_ = std::min(traffic_start_, flow_start[i]);
    start_order_.push_back({flow_start[i], i});
  }
  std::stable_sort(start_order_.begin(), start_order_.end(),
                   [](const Arrival& a, const Arrival& b) { return a.start < b.start; });
  if (!start_order_.empty()) f.Schedule(start_order_[0].start, EventKind::kFlowStart, 0);
}

IdealMessage Simulation::IdealMessageOf(const Flow& fl, Time delivered) const {
  IdealMessage m;
  m.src = fl.src;
  m.dst = fl.dst;
  const TopologyConfig& topo = scenario_.topology;
  if (fabric_.nvlink.SameServer(fl.src, fl.dst)) {
    m.nvlink = true;
    m.occupancy = fabric_.nvlink.TransferTime(fl.size_bytes);
    m.delivered = m.done = fabric_.nvlink.IdealTime(fl.size_bytes);
    return m;
  }
  const HostConfig& h = scenario_.host;
  const int64_t rate = layout_->ports[layout_->HostPort(fl.src)].rate_bps;
  const int64_t full = h.mtu_bytes + h.header_bytes + topo.ifg_bytes;
  const Time data = SerializationTime(full, rate) * (fl.packets - 1) +
                    SerializationTime(fl.last_payload + h.header_bytes + topo.ifg_bytes, rate);
  // The ACKs the receiver returns over the same links' other direction
  // (stats/collective_ideal.h).
  const int64_t acks = (fl.packets + h.ack_every - 1) / h.ack_every;
  const Time ack_time = SerializationTime(h.header_bytes + 4 + topo.ifg_bytes, rate) * acks;
  m.occupancy = data + ack_time;
  m.delivered = delivered + ack_time;
  m.done = fl.ideal_fct + ack_time;
  return m;
}

std::vector<Hop> Simulation::PathOf(uint32_t src, uint32_t dst, uint64_t key) const {
  const FabricLayout& l = *layout_;
  const auto hop = [&](PortId port) { return Hop{l.ports[port].rate_bps, l.ports[port].delay}; };
  std::vector<Hop> hops{hop(l.HostPort(src))};
  WalkEcmpPath(l, l.routing, src, dst, key, UINT32_MAX,
               [&](uint32_t /*node*/, PortId out) { hops.push_back(hop(out)); });
  return hops;
}

IdealFctInput Simulation::IdealInput(const Flow& fl) const {
  const HostConfig& h = scenario_.host;
  IdealFctInput in;
  in.forward = PathOf(fl.src, fl.dst, fl.data_key);
  in.reverse = PathOf(fl.dst, fl.src, fl.reply_key);
  in.packets = fl.packets;
  in.full_frame = h.mtu_bytes + h.header_bytes;
  in.last_frame = fl.last_payload + h.header_bytes;
  in.ack_frame = h.header_bytes + 4;
  in.ifg_bytes = scenario_.topology.ifg_bytes;
  return in;
}

void Simulation::MarkCutPorts(const PartitionPlace& place) {
  Fabric& f = fabric_;
  f.outbox.resize(2 * place.cut->parts);
  f.port_partition = place.cut->far_part;
  for (PortId i = 0; i < f.ports.size(); ++i) {
    // The sending side of a cut link hands its frames over (Fabric::Launch).
    if (local_[layout_->ports[i].node] && f.port_partition[i] != place.partition)
      f.ports[i].link_ops |= Port::kLinkCut;
  }
}

}  // namespace rocesim
