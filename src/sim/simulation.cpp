// Running a Simulation (sim/simulation.h): the event loop and its windows,
// each event's dispatch to its model, the faults and watchdogs, the
// deadlock detector's samples, route recomputation and the monitors.
// Building one is sim/simulation_build.cpp's.
#include "sim/simulation.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "net/link_arrival.h"
#include "ops/deadlock.h"
#include "ops/link_down.h"
#include "ops/mac_entry_loss.h"
#include "ops/nic_pause.h"
#include "ops/nic_pause_storm.h"
#include "ops/slow_receiver.h"
#include "ops/watchdog.h"
#include "sim/run_clock.h"
#include "sim/stop_request.h"
#include "stats/invariants.h"
#include "topo/routing_check.h"

namespace rocesim {

Simulation::~Simulation() = default;

void Simulation::StartFlow(uint32_t id) {
  Fabric& f = fabric_;
  const Flow& fl = f.flows[id];
  if (f.nvlink.SameServer(fl.src, fl.dst)) {
    f.nvlink.Start(f, id);
  } else {
    f.nics[fl.src].StartFlow(f, id);
  }
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

std::vector<Routing::Link> Simulation::RoutingLinks(const std::vector<PortId>& links) const {
  std::vector<Routing::Link> out;
  for (const PortId p : links) {
    const PortLink& a = layout_->ports[p];
    const PortLink& b = layout_->ports[a.peer];
    out.push_back(Routing::Link{a.node, a.local, b.node, b.local});
  }
  return out;
}

SharedRoutes::Product Simulation::RoutesAroundDownLinks(uint32_t threads) const {
  const FabricLayout& l = *layout_;
  return fabric_.routing.Rerouted(l.adjacency, l.host_nodes, RoutingLinks(routes_down_),
                                  RoutingLinks(down_links_), threads);
}

void Simulation::RecomputeRoutes(PortId port) {
  Fabric& f = fabric_;
  const PortLink& failed = layout_->ports[port];
  // A serial run waits for the tables: every core may search them.
  SharedRoutes::Product routing;
  if (shared_routes_ == nullptr) {
    routing = RoutesAroundDownLinks(TableThreads());
  } else {
    routing = shared_routes_->Take(
        recomputations_++, [this](uint32_t threads) { return RoutesAroundDownLinks(threads); });
  }
#ifdef ROCESIM_CHECKS
  CheckRerouting(routing);
#endif
  if (!routing) {
    // A host cut off (its own link down): no route to it either way; the old
    // tables stay and whatever is routed over the dead link is dropped.
    f.ops.Add(f.now, failed.node, failed.local, 0, "routes_unchanged_partitioned");
    return;
  }
  f.routing = std::move(*routing);
  routes_down_ = down_links_;
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
// A checks build: the routes a convergence derived (Routing::Rerouted) must
// forward as a fresh build of the routes around the same links would.
void Simulation::CheckRerouting(const SharedRoutes::Product& routes) const {
  const FabricLayout& l = *layout_;
  const std::optional<Routing> fresh = BuiltWithout(l.adjacency, l.host_nodes, l.switch_index,
                                                    EcmpSalt(scenario_), RoutingLinks(down_links_));
  std::optional<std::string> problem;
  if (fresh.has_value() != routes.has_value()) {
    problem = routes ? "routes derived where a host is cut off" : "a host found cut off wrongly";
  } else if (fresh) {
    problem = FirstDifference(*fresh, *routes, l.switch_index,
                              static_cast<uint32_t>(l.host_nodes.size()));
  }
  if (problem)
    throw InvariantError(
        fmt::format("invariant rerouting broken at {} ps: {} (against a fresh build of the routes)",
                    fabric_.now, *problem));
}

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
