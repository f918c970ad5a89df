#include "sim/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "cc/cc_factory.h"
#include "net/link_arrival.h"
#include "net/switch_buffers.h"
#include "ops/deadlock.h"
#include "ops/link_down.h"
#include "ops/mac_entry_loss.h"
#include "ops/nic_pause.h"
#include "ops/nic_pause_storm.h"
#include "ops/slow_receiver.h"
#include "ops/watchdog.h"
#include "sim/partition.h"
#include "sim/run_clock.h"
#include "sim/stop_request.h"
#include "topo/topology.h"
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

Simulation::~Simulation() = default;

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
  f.cc.resize(f.flows.Count());
  const std::vector<CcKind>& cc = labels_->Cc();
  for (const CcKind kind : cc) f.int_enabled = f.int_enabled || NeedsInt(kind);
  for (Flow& fl : f.flows) {
    const CcKind kind = cc[fl.id];
    // Congestion control runs at the sender (a partition: its own hosts').
    if (IsLocalHost(fl.src)) f.cc[fl.id] = MakeCongestionControl(kind, scenario_.host);
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

void Simulation::StartFlow(uint32_t id) {
  Fabric& f = fabric_;
  const Flow& fl = f.flows[id];
  if (f.nvlink.SameServer(fl.src, fl.dst)) {
    f.nvlink.Start(f, id);
  } else {
    f.nics[fl.src].StartFlow(f, id);
  }
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

Time Simulation::DeadlockPeriod() const {
  return std::max<Time>(scenario_.monitors.deadlock.threshold / 4, 1);
}

Time Simulation::DeadlockCheckFrom(Time t) const {
  if (!scenario_.monitors.deadlock.enabled) return kTimeMax;
  // The samples fall at every multiple of the period from the first one.
  const Time period = DeadlockPeriod();
  return std::max<Time>(1, (t + period - 1) / period) * period;
}

DeadlockSample Simulation::RunThroughDeadlockCheck(Time check) {
  RunEvents(check - 1, nullptr);
  // The events of the sample's picosecond, one at a time up to the sample:
  // those after it in the canonical order (core/event.h) wait for the
  // detector's step, as in the serial run.
  Fabric& f = fabric_;
  Event e;
  while (!deadlock_sample_ && f.events.PopUntil(check, &e)) {
    f.now = e.time;
    // As RunEvents, which keeps this by hand: sharing an inlined helper with
    // this loop made partitions' event loop 15% slower (bench/NOTES.md,
    // eighteenth session).
    if (e.kind == EventKind::kLinkArrive)
      f.OnLinkArrive(e.arg, e.target);
    else if (e.kind == EventKind::kPortWake)
      f.OnPortWake(e.target);
    else
      Dispatch(e);
    ++events_;
#ifdef ROCESIM_CHECKS
    CheckInvariantsAfter(e, events_);
#endif
  }
  if (!deadlock_sample_)
    throw std::logic_error(fmt::format("no deadlock sample at {} ps in partition", check));
  DeadlockSample sample = std::move(*deadlock_sample_);
  deadlock_sample_.reset();
  return sample;
}

void Simulation::ResolveDeadlock(const std::vector<DeadlockSample>& samples) {
  ops::ResolveDeadlock(fabric_, samples, [this](uint32_t node) { return IsLocalNode(node); });
}

void Simulation::RecomputeRoutes(PortId port) {
  Fabric& f = fabric_;
  const FabricLayout& l = *layout_;
  std::vector<uint8_t> down(l.ports.size(), 0);
  for (const PortId p : down_links_) down[p] = down[l.ports[p].peer] = 1;
  std::vector<std::vector<std::pair<uint16_t, uint32_t>>> adjacency = l.adjacency;
  for (uint32_t n = 0; n < adjacency.size(); ++n)
    std::erase_if(adjacency[n], [&](const std::pair<uint16_t, uint32_t>& e) {
      return down[l.nodes[n].first_port + e.first] != 0;
    });
  const PortLink& failed = l.ports[port];
  Routing routing;
  try {
    routing.Build(adjacency, l.host_nodes, l.switch_index, EcmpSalt(scenario_));
  } catch (const std::runtime_error&) {
    // A host cut off (its own link down): no route to it either way; the old
    // tables stay and whatever is routed over the dead link is dropped.
    f.ops.Add(f.now, failed.node, failed.local, 0, "routes_unchanged_partitioned");
    return;
  }
  f.routing = std::move(routing);
  f.routes.NewEpoch();
  for (const Flow& fl : f.flows)
    if (fl.start <= f.now && !fl.Finished()) f.routes.Compute(f, fl.id);
  f.ops.Add(f.now, failed.node, failed.local, 0, "routes_recomputed");
}

void Simulation::EnableMonitors(const std::string& dir) {
  EnableCaptures(dir);
  OpenTimeSeries(dir);
  EnableQlenMonitor();
}

void Simulation::EnableQlenMonitor() {
  const OutputConfig::HpccQlen& q = scenario_.output.hpcc_qlen;
  if (!q.enabled || qlen_) return;
  qlen_ = std::make_unique<HpccQlenMonitor>(q, fabric_, local_);
  fabric_.Schedule(q.start, EventKind::kMonitor, kQlenMonitorTarget);
}

void Simulation::OpenTimeSeries(const std::string& dir) {
  if (scenario_.monitors.interval <= 0) return;
  for (int n : scenario_.monitors.nodes)
    if (static_cast<size_t>(n) >= fabric_.nodes.size())
      FailBuild(scenario_, "monitors.nodes",
                fmt::format("node {} does not exist (the topology has nodes 0 to {})", n,
                            fabric_.nodes.size() - 1));
  monitor_ = std::make_unique<Monitor>(scenario_.monitors, dir, fabric_.nodes.size(),
                                       !fabric_.cioq_switches.empty());
  if (!local_.empty()) {  // a partition: its own nodes, and the flows its hosts send
    std::vector<uint8_t> local_flows(fabric_.flows.Count());
    for (const Flow& fl : fabric_.flows) local_flows[fl.id] = local_host_[fl.src];
    monitor_->RestrictTo(local_, std::move(local_flows));
  }
  fabric_.Schedule(scenario_.monitors.start, EventKind::kMonitor, 0);
}

void Simulation::FinishMonitors() {
  if (monitor_) monitor_->Finish(fabric_);
  if (qlen_) qlen_->Finish(fabric_, fabric_.qlen_dumps);
  if (captures_) captures_->Finish();
}

void Simulation::EnableCaptures(const std::string& dir) {
  if (scenario_.monitors.pcap.ports.empty()) return;
  captures_ = std::make_unique<PortCaptures>(scenario_.monitors.pcap, dir, fabric_, local_);
}

namespace {
// Events that every replica of a partitioned run schedules and runs, each
// for its own nodes: flow arrivals, monitor samples, faults, routing
// convergence and deadlock samples.
bool IsReplicated(EventKind k) {
  switch (k) {
    case EventKind::kFlowStart:
    case EventKind::kMonitor:
    case EventKind::kFaultStart:
    case EventKind::kFaultEnd:
    case EventKind::kRouteRecompute:
    case EventKind::kDeadlockCheck:
      return true;
    default:
      return false;
  }
}
// Faults that act through a host's NIC (its pause frames, its receive pipeline).
bool IsHostFault(FaultKind k) {
  return k == FaultKind::kNicPauseStorm || k == FaultKind::kSlowReceiver;
}
}  // namespace

void Simulation::Dispatch(const Event& e) {
  Fabric& f = fabric_;
  // The ops log's entries come from these events only (not from landings or
  // wake-ups): their key orders the log when partitions' logs are merged.
  f.ops.current_event_key = TailOf(e);
  // Every replica of a partitioned run runs these; one counts them.
  if (!coordinator_ && IsReplicated(e.kind)) ++uncounted_;
  switch (e.kind) {
    case EventKind::kLinkArrive:
      f.OnLinkArrive(e.arg, e.target);
      break;
    case EventKind::kPortWake:
      f.OnPortWake(e.target);
      break;
    case EventKind::kPfcRefresh:
      f.OnPfcRefresh(e.target, static_cast<int>(e.arg));
      break;
    case EventKind::kFlowStart: {
      uint32_t i = e.target;
      for (; i < start_order_.size() && start_order_[i].start == f.now; ++i) {
        const uint32_t id = start_order_[i].id;
        // A partition starts its own hosts' flows; one that a flow only
        // crosses learns its route when its first frame enters
        // (FlowRoutes::Entering).
        if (IsLocalHost(f.flows.Ends(id).src)) StartFlow(id);
      }
      if (i < start_order_.size()) f.Schedule(start_order_[i].start, EventKind::kFlowStart, i);
      break;
    }
    case EventKind::kDependentStart:
      // Scheduled only where its node resolves: the flow's source host, the
      // join's host (transport/flow_dependencies.h).
      if (f.deps.IsJoin(e.target)) {
        f.deps.JoinDone(f, e.target);
      } else {
        f.flows[e.target].start = f.now;
        StartFlow(e.target);
      }
      break;
    case EventKind::kNvlinkDone:
      NvlinkDomain::Complete(f, e.target);
      break;
    case EventKind::kQpTimeout:
      f.nics[f.flows[e.target].src].OnTimeout(f, e.target);
      break;
    case EventKind::kMonitor:
      if (e.target == kQlenMonitorTarget) {
        const Time next = qlen_->Sample(f, f.qlen_dumps);
        if (next != kTimeMax) f.Schedule(next, EventKind::kMonitor, kQlenMonitorTarget);
      } else if (monitor_) {
        monitor_->Sample(f);
        const Time next = f.now + scenario_.monitors.interval;
        if (next <= scenario_.monitors.end) f.Schedule(next, EventKind::kMonitor, 0);
      }
      break;
    case EventKind::kAckTimer:
      f.nics[f.flows[e.target].dst].OnAckTimer(f, e.target);
      break;
    case EventKind::kCcTimer:
      f.nics[f.flows[e.target].src].OnCcTimer(f, e.target, static_cast<int>(e.arg));
      break;
    default:
      DispatchOps(e);
      break;
  }
}

// Faults, defences and their monitors (src/ops/): rare events, kept out of
// Dispatch so that the per-packet cases stay as compact as before.
void Simulation::DispatchOps(const Event& e) {
  Fabric& f = fabric_;
  switch (e.kind) {
    case EventKind::kFaultStart: {
      const FaultSpec& fs = scenario_.faults[e.target];
      // Every replica of a partitioned run runs the fault (the link and MAC
      // state it sets is read anywhere); what a host itself does, only the
      // host's partition.
      if (IsHostFault(fs.kind) && !IsLocalHost(static_cast<uint32_t>(fs.host))) break;
      switch (fs.kind) {
        case FaultKind::kNicPauseStorm:
          ops::StartNicPauseStorm(f, static_cast<uint32_t>(fs.host), fs.priority);
          break;
        case FaultKind::kSlowReceiver:
          ops::StartSlowReceiver(f, fs);
          break;
        case FaultKind::kLinkDown:
          ops::LinkDown(f, layout_->fault_ports[e.target]);
          SetLinkDown(layout_->fault_ports[e.target], true);
          f.Schedule(f.now + fs.convergence, EventKind::kRouteRecompute, e.target);
          break;
        case FaultKind::kPacketLoss:
          ops::StartPacketLoss(f, layout_->fault_ports[e.target], e.target, fs.probability,
                               fs.every_nth);
          break;
        case FaultKind::kMacEntryLoss:
          ops::StartMacEntryLoss(f, static_cast<uint32_t>(fs.host));
          break;
      }
      break;
    }
    case EventKind::kFaultEnd: {
      const FaultSpec& fs = scenario_.faults[e.target];
      if (IsHostFault(fs.kind) && !IsLocalHost(static_cast<uint32_t>(fs.host))) break;
      switch (fs.kind) {
        case FaultKind::kNicPauseStorm:
          ops::StopNicPauseStorm(f, static_cast<uint32_t>(fs.host));
          break;
        case FaultKind::kSlowReceiver:
          ops::StopSlowReceiver(f, static_cast<uint32_t>(fs.host));
          break;
        case FaultKind::kLinkDown:
          ops::LinkUp(f, layout_->fault_ports[e.target]);
          SetLinkDown(layout_->fault_ports[e.target], false);
          f.Schedule(f.now + fs.convergence, EventKind::kRouteRecompute, e.target);
          break;
        case FaultKind::kPacketLoss:
          ops::StopPacketLoss(f, layout_->fault_ports[e.target]);
          break;
        case FaultKind::kMacEntryLoss:
          ops::StopMacEntryLoss(f, static_cast<uint32_t>(fs.host));
          break;
      }
      break;
    }
    case EventKind::kStormPause:
      ops::OnNicPauseRenew(f, e.target);
      break;
    case EventKind::kDeadlockCheck:
      if (!local_.empty()) {  // a partition: the graph is the union of every partition's part
        deadlock_sample_ =
            ops::SampleDeadlock(f, [this](uint32_t node) { return IsLocalNode(node); });
      } else {
        ops::CheckDeadlock(f);
      }
      f.Schedule(f.now + DeadlockPeriod(), EventKind::kDeadlockCheck, 0);
      break;
    case EventKind::kRouteRecompute:
      RecomputeRoutes(layout_->fault_ports[e.target]);
      break;
    case EventKind::kRxDrain:
      ops::OnRxDrain(f, e.target);
      break;
    case EventKind::kWatchdogCheck:
      ops::OnWatchdogCheck(f, e.target, static_cast<int>(e.arg));
      break;
    case EventKind::kWatchdogRestore:
      ops::OnWatchdogRestore(f, e.target, static_cast<int>(e.arg));
      break;
    default:
      break;
  }
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

void Simulation::SetLinkDown(PortId port, bool down) {
  // Either end names the link (ops::LinkDown takes both down).
  const PortId link = std::min(port, layout_->ports[port].peer);
  std::erase(down_links_, link);
  if (down) down_links_.push_back(link);
}

Time Simulation::NextEventTime() {
  return fabric_.events.Empty() ? kTimeMax : fabric_.events.Top().time;
}

bool Simulation::Advance(Time until, const ProgressFn& progress) {
  Fabric& f = fabric_;
  const size_t total_flows = f.flows.Count();
  for (;;) {
    if (window_end_ < 0) {  // between windows: done, or open the next one
      if (total_flows > 0 && f.flows_finished == total_flows) return false;
      const Time start = NextEventTime();
      if (start == kTimeMax) return false;
      if (start > until) {
        f.now = std::max(f.now, until);
        return true;
      }
      if (StopRequested()) {  // as a partitioned run: only a window that would run
        interrupted_ = true;
        return false;
      }
      window_end_ = start + (quantum() - 1);
    }
    const Time stop = std::min(window_end_, until);
    RunEvents(stop, progress);
    if (stop < window_end_) {  // `until` falls inside the window
      f.now = std::max(f.now, until);
      return true;
    }
    window_end_ = -1;
  }
}

void Simulation::RunEvents(Time stop, const ProgressFn& progress) {
  Fabric& f = fabric_;
  const bool report = static_cast<bool>(progress);
  uint64_t events = events_;  // a local: the loop's counter stays in a register
  Event e;
  while (f.events.PopUntil(stop, &e)) {
    f.now = e.time;
    // Fetch what the event after the next one reads first (its port, its
    // frame) while this one runs: a hop is a chain of cache misses, and one
    // event ahead is too late (bench/NOTES.md).
    if (const Event* ahead = f.events.PeekAhead(1)) {
      if (ahead->kind == EventKind::kLinkArrive) {
        __builtin_prefetch(&f.ports[ahead->arg]);
        __builtin_prefetch(&f.pool[ahead->target]);
      } else if (ahead->kind == EventKind::kPortWake) {
        const char* port = reinterpret_cast<const char*>(&f.ports[ahead->target]);
        __builtin_prefetch(port);
        __builtin_prefetch(port + 64);
      }
    }
    // The two per-frame kinds (all but ~1% of events) without a call.
    if (e.kind == EventKind::kLinkArrive) {
      f.OnLinkArrive(e.arg, e.target);
    } else if (e.kind == EventKind::kPortWake) {
      f.OnPortWake(e.target);
    } else {
      Dispatch(e);
    }
    ++events;
#ifdef ROCESIM_CHECKS
    CheckInvariantsAfter(e, events);
#endif
    if (report && (events & 0xFFFF) == 0) [[unlikely]] {
      events_ = events;
      progress({.now = f.now,
                .events = events,
                .flows_finished = f.flows_finished,
                .flows_total = f.flows.Count(),
                .bytes_finished = f.bytes_finished,
                .bytes_total = OfferedBytes(),
                .traffic_start = TrafficStart()});
    }
  }
  events_ = events;
}

#ifdef ROCESIM_CHECKS
// A checks build (-DROCESIM_CHECKS=ON): the state invariants, and
// conservation too in a serial run (a partition's frames cross to others
// mid-run), checked while the run runs.
// A check visits every port's queues, every switch's buffer counts (a CIOQ
// switch's ports x ports x priorities VOQs), every NIC and, twice, every
// frame in the network; after a check of V visits the next comes
// V / kVisitsPerEvent events later, so the checks add about kVisitsPerEvent
// visits to each event however large the fabric or deep its queues (a pause
// storm holds thousands of frames), where checking every event would make
// such a run thousands of times slower. The error names the events since the
// last check that held.
void Simulation::CheckInvariantsAfter(const Event& e, uint64_t count) {
  constexpr uint64_t kVisitsPerEvent = 8;
  if (count < next_check_) return;
  const Fabric& f = fabric_;
  if (check_visits_fixed_ == 0) {
    check_visits_fixed_ = f.ports.size() * (2 * kNumPriorities + 1) + f.nics.size() + 1;
    for (const CioqSwitch& s : f.cioq_switches) {
      const uint64_t n = static_cast<uint64_t>(s.num_ports());
      check_visits_fixed_ += 2 * n * n * kNumPriorities;
    }
  }
  uint64_t payload = 0;
  const uint64_t frames = f.FramesInNetwork(&payload);
  std::optional<InvariantBreak> b = CheckFabricState(f);
  if (!b && local_.empty()) {
    b = CheckTotals(scenario_, f.counters, frames, payload);
    // Gaps are legitimate until the end (a drop may come later in a lossy
    // run): in_order_delivery is judged at the end only.
    if (b && b->name == "in_order_delivery") b.reset();
  }
  if (!b) {
    last_check_ = count;
    next_check_ =
        count + std::max<uint64_t>(1, (check_visits_fixed_ + 2 * frames) / kVisitsPerEvent);
    return;
  }
  const uint64_t since = count - last_check_;
  throw InvariantError(
      fmt::format("invariant {} broken {} event #{} (kind {}, target {}, arg {}) at {} ps: {}",
                  b->name, since <= 1 ? "by" : fmt::format("within the {} events up to", since),
                  count, static_cast<int>(e.kind), e.target, e.arg, e.time, b->detail));
}
#endif

Time Simulation::TrafficStart() const {
  return traffic_start_;
}

int64_t Simulation::OfferedBytes() const {
  return offered_bytes_;
}

RunStats Simulation::Run(const ProgressFn& progress) {
  Fabric& f = fabric_;
  RunStats stats;
  RunClock clock;
  Advance(scenario_.duration, progress);
  stats.events = CountedEvents();
  stats.all_flows_done = f.flows_finished == f.flows.Count();
  stats.interrupted = interrupted_;
  stats.end_time = f.now;
  stats.in_network_frames = f.FramesInNetwork(&stats.in_network_payload_bytes);
  stats.invariant_break = CheckFabricState(f);
  if (!stats.invariant_break)
    stats.invariant_break =
        CheckTotals(scenario_, f.counters, stats.in_network_frames, stats.in_network_payload_bytes);
  FinishMonitors();
  clock.Finish(stats);
  return stats;
}

}  // namespace rocesim
