#include "sim/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "cc/cc_factory.h"
#include "net/link_arrival.h"
#include "ops/deadlock.h"
#include "ops/link_down.h"
#include "ops/mac_entry_loss.h"
#include "ops/nic_pause.h"
#include "ops/nic_pause_storm.h"
#include "ops/slow_receiver.h"
#include "ops/watchdog.h"
#include "sim/partition.h"
#include "sim/run_clock.h"
#include "topo/topology.h"
#include "workload/generators.h"

namespace rocesim {

namespace {
// PFC headroom of a lossless (port, priority) of a switch, either
// architecture: the bytes that keep arriving after XOFF — a round trip of the
// cable at line rate, plus a frame in flight at each end and the pause frame
// itself — unless the scenario fixes it. max_frame includes the IFG.
int64_t PfcHeadroomBytes(const Port& p, const PfcConfig& pfc, int max_frame) {
  if (pfc.headroom_bytes >= 0) return pfc.headroom_bytes;
  return static_cast<int64_t>(2 * static_cast<__int128>(p.delay) * p.rate_bps / (8 * kSecond)) +
         3 * max_frame;
}

// A CIOQ switch's queues (seed 002 §4.1) must each hold a full frame, and a
// lossless input queue must keep at least one below its PFC headroom, or it
// would pause its upstream for good.
void CheckCioqQueues(const Fabric& f, uint32_t n, const SwitchConfig& sw,
                     const std::vector<int64_t>& headroom, int frame) {
  const CioqConfig& c = sw.cioq;
  if (c.output_queue_bytes < frame)
    throw BuildError(fmt::format(
        "switch.cioq.output_queue_bytes: {} bytes cannot hold one full frame ({} bytes: host.mtu "
        "+ host.header_bytes)",
        c.output_queue_bytes, frame));
  if (c.input_queue_bytes < frame)
    throw BuildError(fmt::format(
        "switch.cioq.input_queue_bytes: {} bytes cannot hold one full frame ({} bytes: host.mtu "
        "+ host.header_bytes)",
        c.input_queue_bytes, frame));
  if (!sw.pfc.enabled || sw.pfc.priorities.empty()) return;
  const Node& node = f.nodes[n];
  for (uint16_t i = 0; i < node.num_ports; ++i) {
    if (c.input_queue_bytes - headroom[i] >= frame) continue;
    const Port& p = f.ports[node.first_port + i];
    throw BuildError(fmt::format(
        "switch.cioq.input_queue_bytes: {} bytes leave less than one frame ({} bytes) below the "
        "PFC headroom of {} bytes of port {} of switch node {} ({} b/s, {} ps delay); a lossless "
        "input queue needs at least {} bytes",
        c.input_queue_bytes, frame, headroom[i], i, n, p.rate_bps, p.delay, headroom[i] + frame));
  }
}
}  // namespace

Simulation::Simulation(const Scenario& scenario) : scenario_(scenario) {
  fabric_.scenario = &scenario_;
  Build();
  BuildFlows();
}

Simulation::~Simulation() = default;

void Simulation::Build() {
  const Topology topo = BuildTopology(scenario_.topology);
  const SwitchConfig& sw = scenario_.sw;
  const HostConfig& host = scenario_.host;
  Fabric& f = fabric_;

  // Ports: each node's ports are contiguous, numbered in link order.
  std::vector<uint32_t> degree(topo.num_nodes, 0);
  for (const TopoLink& l : topo.links) {
    degree[l.a]++;
    degree[l.b]++;
  }
  f.nodes.resize(topo.num_nodes);
  PortId next = 0;
  std::vector<int32_t> switch_index(topo.num_nodes, -1);
  uint32_t switches = 0;
  const bool cioq = sw.architecture == SwitchArchitecture::kCioq;
  const NodeKind switch_kind = cioq ? NodeKind::kCioq : NodeKind::kSharedBuffer;
  for (uint32_t n = 0; n < topo.num_nodes; ++n) {
    if (degree[n] > 0xFFFF) throw BuildError(fmt::format("node {} has too many ports", n));
    const bool is_switch = topo.is_switch[n];
    f.nodes[n] = Node{is_switch, is_switch ? switch_kind : NodeKind::kHost, 0, next,
                      static_cast<uint16_t>(degree[n])};
    if (topo.is_switch[n]) {
      switch_index[n] = static_cast<int32_t>(switches);
      f.nodes[n].index = switches++;
    }
    next += degree[n];
  }
  for (uint32_t h = 0; h < topo.host_nodes.size(); ++h) {
    const uint32_t n = topo.host_nodes[h];
    f.nodes[n].index = h;
    if (degree[n] != 1)
      throw BuildError(fmt::format(
          "topology: host node {} has {} links; rocesim models single-homed hosts", n, degree[n]));
  }
  // A kLinkArrive event names its port in 24 bits (Fabric::ScheduleArrival).
  if (next >= (1u << 24))
    throw BuildError(
        fmt::format("topology: {} ports; rocesim supports at most {}", next, 1u << 24));
  f.ports.resize(next);
  std::vector<uint16_t> used(topo.num_nodes, 0);
  std::vector<std::vector<std::pair<uint16_t, uint32_t>>> adjacency(topo.num_nodes);
  for (const TopoLink& l : topo.links) {
    const PortId pa = f.nodes[l.a].first_port + used[l.a];
    const PortId pb = f.nodes[l.b].first_port + used[l.b];
    for (auto [self, peer, node] : {std::tuple{pa, pb, l.a}, std::tuple{pb, pa, l.b}}) {
      Port& p = f.ports[self];
      p.node = node;
      p.peer = peer;
      p.local = used[node]++;
      p.rate_bps = l.rate_bps;
      p.delay = l.delay;
      p.ifg_bytes =
          static_cast<uint16_t>(scenario_.topology.ifg_bytes);  // <= 4096 (scenario_reader)
      p.loss_probability = l.error_rate;
      if (l.error_rate > 0) p.link_ops |= Port::kLinkErrors;
      // A wire keeps the second frame's arrival in 32 bits (net/wire.h): it
      // must land within 2^31 ps of the head, a delay plus one frame (of at
      // most 1 MB, far above any MTU) later.
      if (l.delay + SerializationTime(1 << 20, l.rate_bps) >= Port::kLongDelay)
        p.link_ops |= Port::kLinkLongDelay;
      const Time ps_per_byte = ExactPsPerByte(l.rate_bps);
      p.ps_per_byte = ps_per_byte <= UINT32_MAX ? static_cast<uint32_t>(ps_per_byte) : 0;
      adjacency[node].emplace_back(p.local, node == l.a ? l.b : l.a);
    }
  }
  for (Port& p : f.ports) {
    const Node& receiver = f.nodes[f.ports[p.peer].node];
    p.rx = static_cast<uint32_t>(receiver.kind) << Port::kRxKindShift | receiver.index;
    const Node& owner = f.nodes[p.node];
    p.tx = static_cast<uint32_t>(owner.kind) << Port::kRxKindShift | owner.index;
  }
  quantum_ = SyncQuantum(f);
  for (PortId i = 0; i < f.ports.size(); ++i)
    if (f.ports[i].loss_probability > 0)
      f.LinkRng(i) = Rng(scenario_.seed, 0x11CE000000000000ULL + i);
  f.routing.Build(adjacency, topo.host_nodes, switch_index, sw.ecmp_seed ^ scenario_.seed);
  if (!scenario_.faults.empty()) {
    adjacency_ = adjacency;
    host_nodes_ = topo.host_nodes;
    switch_index_ = switch_index;
  }

  const int max_frame = host.mtu_bytes + host.header_bytes + scenario_.topology.ifg_bytes;
  const RedParams red{sw.ecn.kmin_bytes, sw.ecn.kmax_bytes, sw.ecn.pmax};
  if (cioq) {
    f.cioq_switches.resize(switches);
  } else {
    f.switches.resize(switches);
  }
  for (uint32_t n = 0; n < topo.num_nodes; ++n) {
    if (!topo.is_switch[n]) continue;
    const Node& node = f.nodes[n];
    std::vector<int64_t> headroom(node.num_ports);
    for (uint16_t i = 0; i < node.num_ports; ++i)
      headroom[i] = PfcHeadroomBytes(f.ports[node.first_port + i], sw.pfc, max_frame);
    std::vector<RedParams> port_red(node.num_ports, red);
    for (uint16_t i = 0; i < node.num_ports; ++i)
      for (const EcnRateThresholds& t : sw.ecn.by_rate)
        if (t.rate_bps == f.ports[node.first_port + i].rate_bps)
          port_red[i] = RedParams{t.kmin_bytes, t.kmax_bytes, t.pmax};
    const int dwrr_unit = host.mtu_bytes + host.header_bytes;
    if (cioq) {
      CheckCioqQueues(f, n, sw, headroom, dwrr_unit);
      f.cioq_switches[node.index].Init(n, node.first_port, sw, headroom, port_red, dwrr_unit,
                                       scenario_.seed);
      continue;
    }
    Switch& s = f.switches[node.index];
    s.Init(n, node.first_port, sw, headroom, port_red, dwrr_unit, scenario_.seed, node.index,
           f.routing.Salt(node.index));
    if (s.mmu().SharedPoolBytes() < 0)
      throw BuildError(fmt::format(
          "switch.buffer: {} bytes is too small for switch node {}: its reserved and PFC headroom "
          "carve-outs need {} bytes",
          sw.buffer_bytes, n, sw.buffer_bytes - s.mmu().SharedPoolBytes()));
  }
  f.nics.resize(topo.host_nodes.size());
  for (uint32_t h = 0; h < topo.host_nodes.size(); ++h)
    f.nics[h].Init(h, f.nodes[topo.host_nodes[h]].first_port, host);

  // Faults (src/ops/) as events; the switch watchdog watches pause episodes.
  f.switch_watchdog = sw.watchdog.enabled && sw.pfc.enabled;
  if (f.switch_watchdog) f.wd_paused_since.resize(f.ports.size());
  f.port_drops.resize(f.ports.size());
  ResolveFaults();
  if (scenario_.monitors.deadlock.enabled)
    f.Schedule(DeadlockPeriod(), EventKind::kDeadlockCheck, 0);
  for (uint32_t i = 0; i < scenario_.faults.size(); ++i) {
    const FaultSpec& fs = scenario_.faults[i];
    f.Schedule(fs.at, EventKind::kFaultStart, i);
    if (fs.until != kTimeMax) f.Schedule(fs.until, EventKind::kFaultEnd, i);
  }
}

void Simulation::BuildFlows() {
  Fabric& f = fabric_;
  const HostConfig& host = scenario_.host;
  auto add = [&](int src, int dst, int64_t size, Time start, int prio, std::optional<CcKind> cc,
                 const std::string& tag) {
    flow_cc_.push_back(cc.value_or(host.cc));
    flow_tags_.push_back(tag);
    Flow fl;
    fl.id = static_cast<uint32_t>(f.flows.size());
    fl.src = static_cast<uint32_t>(src);
    fl.dst = static_cast<uint32_t>(dst);
    fl.size_bytes = size;
    fl.start = start;
    fl.priority = static_cast<uint8_t>(prio);
    // Each QP gets its own UDP source port, as RoCEv2 NICs do for ECMP entropy.
    fl.sport = static_cast<uint16_t>(49152 + fl.id % 16384);
    fl.data_key = Routing::FlowKey(fl.src, fl.dst, fl.sport);
    fl.reply_key = Routing::FlowKey(fl.dst, fl.src, fl.sport);
    const int64_t mtu = scenario_.host.mtu_bytes;
    fl.packets = static_cast<uint32_t>((size + mtu - 1) / mtu);
    fl.last_payload = static_cast<uint32_t>(size - int64_t{fl.packets - 1} * mtu);
    fl.ideal_fct = ComputeIdealFct(fl);
    f.flows.push_back(fl);
  };
  // Generators expand here, where every host's link rate is known
  // (workload/generators.h); each entry draws from its own seeded stream.
  const std::vector<int64_t> host_rates = HostLinkRates(f);
  for (size_t i = 0; i < scenario_.traffic.size(); ++i) {
    for (const FlowSpec& s :
         ExpandTraffic(scenario_.traffic[i], i, scenario_.seed, host_rates, host.mtu_bytes))
      add(s.src, s.dst, s.size_bytes, s.start, s.priority, s.cc, s.tag);
  }
  f.cc.resize(f.flows.size());
  for (Flow& fl : f.flows) {
    const CcKind kind = flow_cc_[fl.id];
    f.cc[fl.id] = MakeCongestionControl(kind, host);
    fl.sends_cnps = UsesCnps(kind, host);
    fl.cc.base_rtt = BaseRtt(fl);
    if (NeedsInt(kind)) f.int_enabled = true;
  }
  // Arrivals are a cursor over flows sorted by start time: one pending event,
  // however many flows the workload has.
  f.routes.Resize(f.flows.size());
  start_order_.resize(f.flows.size());
  for (uint32_t i = 0; i < start_order_.size(); ++i) start_order_[i] = i;
  std::stable_sort(start_order_.begin(), start_order_.end(),
                   [&](uint32_t a, uint32_t b) { return f.flows[a].start < f.flows[b].start; });
  if (!start_order_.empty()) f.Schedule(f.flows[start_order_[0]].start, EventKind::kFlowStart, 0);
}

std::vector<Hop> Simulation::PathOf(uint32_t src, uint32_t dst, uint16_t sport) const {
  const Fabric& f = fabric_;
  std::vector<Hop> hops;
  PortId port = f.nics[src].port();
  for (;;) {
    const Port& p = f.ports[port];
    hops.push_back(Hop{p.rate_bps, p.delay});
    const Node& next = f.nodes[f.ports[p.peer].node];
    if (!next.is_switch) break;
    port = next.first_port + f.routing.SelectLocal(next.index, src, dst, sport);
  }
  return hops;
}

Time Simulation::ComputeIdealFct(const Flow& fl) const {
  const HostConfig& h = scenario_.host;
  IdealFctInput in;
  in.forward = PathOf(fl.src, fl.dst, fl.sport);
  in.reverse = PathOf(fl.dst, fl.src, fl.sport);
  in.packets = fl.packets;
  in.full_frame = h.mtu_bytes + h.header_bytes;
  in.last_frame = fl.last_payload + h.header_bytes;
  in.ack_frame = h.header_bytes + 4;
  in.ifg_bytes = scenario_.topology.ifg_bytes;
  return IdealFct(in);
}

Time Simulation::BaseRtt(const Flow& fl) const {
  // The RTT of one full packet on the idle path: the ideal FCT of a 1-MTU flow.
  Flow probe = fl;
  probe.packets = 1;
  probe.last_payload = static_cast<uint32_t>(scenario_.host.mtu_bytes);
  return ComputeIdealFct(probe);
}

Time Simulation::DeadlockPeriod() const {
  return std::max<Time>(scenario_.monitors.deadlock.threshold / 4, 1);
}

void Simulation::ResolveFaults() {
  Fabric& f = fabric_;
  fault_port_.assign(scenario_.faults.size(), 0);
  const auto num_nodes = static_cast<int>(f.nodes.size());
  for (size_t i = 0; i < scenario_.faults.size(); ++i) {
    const FaultSpec& fs = scenario_.faults[i];
    if (fs.kind == FaultKind::kMacEntryLoss) {
      // The MAC entry that goes is the host's ToR's: the switch it is cabled to.
      const PortId peer = f.ports[f.nics[static_cast<size_t>(fs.host)].port()].peer;
      if (!f.nodes[f.ports[peer].node].is_switch)
        throw BuildError(fmt::format(
            "faults[{}]: mac_entry_loss: host {} is not attached to a switch", i, fs.host));
      // Flooding (src/net/switch_flood.cpp) is modelled in the shared-buffer switch only.
      if (f.nodes[f.ports[peer].node].kind != NodeKind::kSharedBuffer)
        throw BuildError(fmt::format(
            "faults[{}]: mac_entry_loss needs switch.architecture shared_buffer (the CIOQ "
            "switch does not model MAC tables or flooding)",
            i));
      continue;
    }
    if (fs.kind != FaultKind::kLinkDown && fs.kind != FaultKind::kPacketLoss) continue;
    for (int n : {fs.node_a, fs.node_b})
      if (n >= num_nodes)
        throw BuildError(
            fmt::format("faults[{}]: node {} does not exist (the topology has nodes "
                        "0 to {})",
                        i, n, num_nodes - 1));
    const Node& a = f.nodes[fs.node_a];
    if (fs.port >= 0) {
      if (fs.port >= a.num_ports)
        throw BuildError(fmt::format("faults[{}]: node {} has ports 0 to {}, not {}", i, fs.node_a,
                                     a.num_ports - 1, fs.port));
      fault_port_[i] = a.first_port + static_cast<PortId>(fs.port);
      continue;
    }
    bool found = false;
    for (uint16_t l = 0; l < a.num_ports && !found; ++l) {
      const PortId p = a.first_port + l;
      if (f.ports[f.ports[p].peer].node == static_cast<uint32_t>(fs.node_b)) {
        fault_port_[i] = p;
        found = true;
      }
    }
    if (!found)
      throw BuildError(
          fmt::format("faults[{}]: no link joins nodes {} and {}", i, fs.node_a, fs.node_b));
  }
}

std::vector<PortId> Simulation::UncuttablePorts() const {
  std::vector<PortId> out;
  for (size_t i = 0; i < scenario_.faults.size(); ++i)
    if (scenario_.faults[i].kind == FaultKind::kLinkDown) out.push_back(fault_port_[i]);
  return out;
}

void Simulation::RecomputeRoutes(PortId port) {
  Fabric& f = fabric_;
  std::vector<std::vector<std::pair<uint16_t, uint32_t>>> adjacency = adjacency_;
  for (uint32_t n = 0; n < adjacency.size(); ++n)
    std::erase_if(adjacency[n], [&](const std::pair<uint16_t, uint32_t>& e) {
      return f.ports[f.nodes[n].first_port + e.first].link_down;
    });
  Routing routing;
  try {
    routing.Build(adjacency, host_nodes_, switch_index_, scenario_.sw.ecmp_seed ^ scenario_.seed);
  } catch (const std::runtime_error&) {
    // A host cut off (its own link down): no route to it either way; the old
    // tables stay and whatever is routed over the dead link is dropped.
    f.ops.Add(f.now, f.ports[port].node, f.ports[port].local, 0, "routes_unchanged_partitioned");
    return;
  }
  f.routing = std::move(routing);
  f.routes.NewEpoch();
  for (const Flow& fl : f.flows)
    if (fl.start <= f.now && !fl.Finished()) f.routes.Compute(f, fl.id);
  f.ops.Add(f.now, f.ports[port].node, f.ports[port].local, 0, "routes_recomputed");
}

void Simulation::EnableMonitors(const std::string& dir) {
  if (scenario_.monitors.interval <= 0) return;
  for (int n : scenario_.monitors.nodes)
    if (static_cast<size_t>(n) >= fabric_.nodes.size())
      throw BuildError(
          fmt::format("monitors.nodes: node {} does not exist (the topology has nodes "
                      "0 to {})",
                      n, fabric_.nodes.size() - 1));
  monitor_ = std::make_unique<Monitor>(scenario_.monitors, dir, fabric_.nodes.size(),
                                       !fabric_.cioq_switches.empty());
  if (!local_.empty()) {  // a partition: its own nodes, and the flows its hosts send
    std::vector<uint8_t> local_flows(fabric_.flows.size());
    for (const Flow& fl : fabric_.flows) local_flows[fl.id] = local_host_[fl.src];
    monitor_->RestrictTo(local_, std::move(local_flows));
  }
  fabric_.Schedule(scenario_.monitors.start, EventKind::kMonitor, 0);
}

void Simulation::FinishMonitors() {
  if (monitor_) monitor_->Finish(fabric_);
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
      for (; i < start_order_.size() && f.flows[start_order_[i]].start == f.now; ++i) {
        const uint32_t id = start_order_[i];
        // A partition starts its own hosts' flows; the others learn the
        // flow's route, which their switches forward its frames by.
        if (local_host_.empty() || local_host_[f.flows[id].src]) {
          f.nics[f.flows[id].src].StartFlow(f, id);
        } else {
          f.routes.Compute(f, id);
        }
      }
      if (i < start_order_.size())
        f.Schedule(f.flows[start_order_[i]].start, EventKind::kFlowStart, i);
      break;
    }
    case EventKind::kQpTimeout:
      f.nics[f.flows[e.target].src].OnTimeout(f, e.target);
      break;
    case EventKind::kMonitor:
      if (monitor_) {
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
          ops::LinkDown(f, fault_port_[e.target]);
          f.Schedule(f.now + fs.convergence, EventKind::kRouteRecompute, e.target);
          break;
        case FaultKind::kPacketLoss:
          ops::StartPacketLoss(f, fault_port_[e.target], e.target, fs.probability, fs.every_nth);
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
          ops::LinkUp(f, fault_port_[e.target]);
          f.Schedule(f.now + fs.convergence, EventKind::kRouteRecompute, e.target);
          break;
        case FaultKind::kPacketLoss:
          ops::StopPacketLoss(f, fault_port_[e.target]);
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
      if (deadlock_exchange_) {  // a partition: the graph is the union of every partition's part
        auto local = [this](uint32_t node) { return IsLocalNode(node); };
        ops::ResolveDeadlock(f, deadlock_exchange_(ops::SampleDeadlock(f, local)), local);
      } else {
        ops::CheckDeadlock(f);
      }
      f.Schedule(f.now + DeadlockPeriod(), EventKind::kDeadlockCheck, 0);
      break;
    case EventKind::kRouteRecompute:
      RecomputeRoutes(fault_port_[e.target]);
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

void Simulation::SetPartition(std::vector<uint8_t> local, uint32_t partition,
                              const std::vector<uint32_t>& node_partition, bool coordinator) {
  Fabric& f = fabric_;
  local_ = std::move(local);
  coordinator_ = coordinator;
  local_host_.assign(f.nics.size(), 0);
  for (uint32_t h = 0; h < f.nics.size(); ++h)
    local_host_[h] = local_[f.ports[f.nics[h].port()].node];
  f.outbox.resize(2 * (*std::max_element(node_partition.begin(), node_partition.end()) + 1));
  f.port_partition.resize(f.ports.size());
  for (PortId i = 0; i < f.ports.size(); ++i) {
    Port& p = f.ports[i];
    const uint32_t far = node_partition[f.ports[p.peer].node];
    // The sending side of a cut link hands its frames over (Fabric::Launch).
    if (local_[p.node] && far != partition) p.link_ops |= Port::kLinkCut;
    f.port_partition[i] = far;
  }
}

Time Simulation::NextEventTime() {
  return fabric_.events.Empty() ? kTimeMax : fabric_.events.Top().time;
}

bool Simulation::Advance(Time until, const ProgressFn& progress) {
  Fabric& f = fabric_;
  const size_t total_flows = f.flows.size();
  for (;;) {
    if (window_end_ < 0) {  // between windows: done, or open the next one
      if (total_flows > 0 && f.flows_finished == total_flows) return false;
      const Time start = NextEventTime();
      if (start == kTimeMax) return false;
      if (start > until) {
        f.now = std::max(f.now, until);
        return true;
      }
      window_end_ = start + (quantum_ - 1);
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
    if (report && (events & 0xFFFF) == 0) [[unlikely]] {
      events_ = events;
      progress(f.now, events);
    }
  }
  events_ = events;
}

RunStats Simulation::Run(const ProgressFn& progress) {
  Fabric& f = fabric_;
  RunStats stats;
  RunClock clock;
  Advance(scenario_.duration, progress);
  stats.events = CountedEvents();
  stats.all_flows_done = f.flows_finished == f.flows.size();
  stats.end_time = f.now;
  stats.in_network_frames = f.FramesInNetwork(&stats.in_network_payload_bytes);
  FinishMonitors();
  clock.Finish(stats);
  return stats;
}

}  // namespace rocesim
