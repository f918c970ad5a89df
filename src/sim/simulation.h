// A runnable simulation: builds the fabric from a validated Scenario
// (topology, switches, NICs, routes, flows), runs the event loop, and
// exposes what the results writer reports.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/fabric.h"
#include "net/fabric_layout.h"
#include "ops/deadlock.h"
#include "scenario/scenario.h"
#include "sim/flow_labels.h"
#include "sim/run_progress.h"
#include "sim/shared_flow_build.h"
#include "sim/shared_routes.h"
#include "stats/collective_ideal.h"
#include "stats/ideal_fct.h"
#include "stats/invariants.h"
#include "stats/monitor.h"
#include "stats/port_capture.h"
#include "workload/collectives.h"
#include "workload/generators.h"

namespace rocesim {

class FlowGraphBuilder;  // transport/flow_graph_builder.h

// Where a partitioned run's wall time went, on this machine (or rank), to
// judge its cut and its thread count (PartitionedRun::Balance, summary.json's
// run object). A thread's time is its partitions' events, taking in frames,
// waiting at the barrier for the slower threads, exchanging with the other
// ranks, and a little else (publishing, the deadlock detector's pooling).
struct PartitionTimes {
  uint64_t windows = 0;                   // windows run
  std::vector<double> events;             // per local partition: seconds running its events
  std::vector<uint64_t> frames_taken_in;  // ... frames other partitions sent it (cut links)
  std::vector<double> taking_in;          // per thread: seconds taking in other partitions' frames
  std::vector<double> waiting;            // per thread: seconds waiting at the barrier
  std::vector<double> exchanging;  // per thread: seconds exchanging with other ranks (thread 0;
                                   // its waits for the slower ranks included)
  // How long a thread waiting at the barrier spins before it sleeps: long
  // with a core for every thread, short without (sim/spin_barrier.h).
  double barrier_spin_seconds = 0;
  // How many times a long spin ran out and the barrier spun short for a
  // while (contention for the cores, or windows that uneven).
  uint64_t barrier_backoffs = 0;
  // How even the cut kept the windows: each window's busiest partition's
  // events (of every rank's), summed over the windows, against the
  // partitions' mean. A window lasts as long as its busiest partition, so
  // busiest / mean - 1 is how much longer the windows ran than a perfectly
  // even cut's would (were every event equally costly). It counts events,
  // not seconds, so it is the same on any machine and for any thread count
  // of the same partitions.
  uint64_t busiest_events = 0;
  double mean_events = 0;
  double WindowImbalance() const {
    return mean_events > 0 ? static_cast<double>(busiest_events) / mean_events - 1 : 0;
  }
};

struct RunStats {
  uint64_t events = 0;
  Time end_time = 0;  // simulated time when the run stopped
  double wall_seconds = 0;
  double cpu_seconds = 0;
  int64_t peak_rss_bytes = 0;
  bool all_flows_done = false;
  // Stopped early at a window boundary on request (sim/stop_request.h):
  // the results are what was measured up to end_time.
  bool interrupted = false;
  std::string run_id;  // random, one per run (RunClock)
  // Frames (and their payload bytes) still in queues and on wires at the end.
  uint64_t in_network_frames = 0;
  uint64_t in_network_payload_bytes = 0;
  // The first invariant found broken (stats/invariants.h), if any.
  std::optional<InvariantBreak> invariant_break;
  // How the run was spread: MPI ranks, threads per rank, partitions in all.
  uint32_t ranks = 1;
  uint32_t threads = 1;
  uint32_t partitions = 1;
  PartitionTimes partition_times;  // empty in a serial run
};

struct Partitioning;  // sim/partition.h

// Where a replica of a partitioned run stands (sim/partitioned_run.h).
struct PartitionPlace {
  const Partitioning* cut = nullptr;  // outlives the replica
  uint32_t partition = 0;             // this replica's
  // This replica counts the events every replica runs (flow arrivals).
  bool coordinator = false;
  // The scenario's traffic, expanded once for every replica (ExpandWorkload;
  // outlives the construction); null: the replica expands it.
  const std::vector<ExpandedTraffic>* traffic = nullptr;
  // What the replicas build alike (sim/shared_flow_build.h); null: its own.
  SharedFlowBuild* shared = nullptr;
  // The routes they recompute alike (sim/shared_routes.h), outliving the
  // replica; null: its own.
  SharedRoutes* routes = nullptr;
};

class Simulation {
 public:
  // The whole fabric (a serial run), on `layout` when the scenario's fabric
  // is laid out already (LayoutFabric), else laid out here.
  explicit Simulation(const Scenario& scenario,
                      std::shared_ptr<const FabricLayout> layout = nullptr);
  // One partition of a parallel run, on the layout all partitions share: it
  // builds and runs only the nodes of `place.partition` (their ports,
  // switches, NICs and congestion control, and the far ends of their links)
  // and sends what its ports launch onto cut links to the partition that owns
  // the far end (Fabric::outbox).
  Simulation(const Scenario& scenario, std::shared_ptr<const FabricLayout> layout,
             const PartitionPlace& place);
  ~Simulation();

  // progress(where the run stands) is called about every 64k events.
  using ProgressFn = std::function<void(const RunProgress&)>;
  RunStats Run(const ProgressFn& progress = nullptr);
  // Processes events up to simulated time `until` (tests and tools that
  // sample the fabric mid-run). Returns false once nothing is left to do:
  // every flow finished or no event remains, or a stop was requested
  // (sim/stop_request.h; checked between windows). Run() is
  // Advance(duration).
  //
  // Events run in windows of quantum() picoseconds, each starting at the
  // earliest pending event, and the run ends at the end of the window in
  // which its last flow finished: the same windows a partitioned run
  // synchronises on (sim/partitioned_run.h), so that both stop after the
  // same events and report the same counters.
  bool Advance(Time until, const ProgressFn& progress = nullptr);

  // --- The partitioned run's view (sim/partitioned_run.h) ---
  // The window length: the shortest link between switches, a property of the
  // scenario alone (FabricLayout::quantum).
  Time quantum() const { return layout_->quantum; }
  bool IsLocalNode(uint32_t node) const { return local_.empty() || local_[node] != 0; }
  bool IsLocalHost(uint32_t host) const { return local_host_.empty() || local_host_[host] != 0; }
  // The time of the earliest pending event, or kTimeMax.
  Time NextEventTime();
  // Runs every pending event at or before `stop`.
  void RunEvents(Time stop, const ProgressFn& progress);
  // Events run so far that this replica counts.
  uint64_t CountedEvents() const { return events_ - uncounted_; }
  // The earliest start of any flow (every replica knows every flow's), or
  // kTimeMax without flows: where the progress line's work begins.
  Time TrafficStart() const;
  // Bytes of all flows together.
  int64_t OfferedBytes() const;
  // A partition's deadlock detector works in two steps around a meeting of
  // all partitions (sim/partitioned_run.cpp): RunThroughDeadlockCheck runs
  // the events up to and including the sample at `check` (a multiple of
  // DeadlockPeriod()) and returns this partition's part of the wait-for
  // graph; ResolveDeadlock then takes every partition's part and does the
  // detector's step, at the same instant, before any later event.
  DeadlockSample RunThroughDeadlockCheck(Time check);
  void ResolveDeadlock(const std::vector<DeadlockSample>& samples);
  // The first deadlock sample at or after `t`, or kTimeMax with the detector off.
  Time DeadlockCheckFrom(Time t) const;

  const Fabric& fabric() const { return fabric_; }
  Fabric& fabric() { return fabric_; }
  const Scenario& scenario() const { return scenario_; }
  // Per flow id: the algorithm it runs and the tag its traffic entry gave it.
  // (One copy per process: sim/flow_labels.h.)
  const std::vector<CcKind>& flow_cc() const { return labels_->Cc(); }
  const std::string& flow_tag(uint32_t id) const { return labels_->Tag(id); }
  // The collectives of each `type: collective` entry, their flows numbered
  // from `first_flow` (workload/collectives.h).
  struct CollectiveEntry {
    size_t traffic_index = 0;
    uint32_t first_flow = 0;
    std::vector<CollectiveInstance> instances;  // flow ranges local to the entry
    std::vector<uint16_t> flow_step;
    Time ideal = 0;  // one instance alone on the idle fabric (stats/collective_ideal.h)
  };
  const std::vector<CollectiveEntry>& collectives() const { return collectives_; }
  // The arrival cursor: the flows that wait for nothing, by start time (a
  // partition's too, whether it holds them or not: it computes the routes
  // its switches forward their frames by).
  struct Arrival {
    Time start = 0;
    uint32_t id = 0;
  };
  const std::vector<Arrival>& arrivals() const { return start_order_; }
  // Per traffic entry: the flows it expanded into and their bytes.
  const std::vector<EntryTotals>& entry_totals() const { return entry_totals_; }
  // Opens everything `monitors` writes into the results directory `dir`
  // (call before Run): the time-series files and the packet captures.
  void EnableMonitors(const std::string& dir);
  // Its two halves, for a partitioned run, whose replicas write their
  // time series apart (merged after the run) and their captures in place:
  // the time-series files in `dir` (when monitors.interval is set), and the
  // packet captures (monitors.pcap) in `dir`/pcap, of this replica's ports.
  void OpenTimeSeries(const std::string& dir);
  // Starts the HPCC-format queue-length monitor (output.hpcc_qlen), if asked.
  void EnableQlenMonitor();
  void EnableCaptures(const std::string& dir);
  // Flushes them (Run does; a partitioned run calls it for each partition).
  void FinishMonitors();

 private:
  void Build();
  // Marks the sending side of every cut link (a partition).
  void MarkCutPorts(const PartitionPlace& place);
  // `expanded`: the traffic, expanded already (PartitionPlace::traffic).
  // `builds`: this replica builds the dependency graph and the collectives'
  // ideal times (and gives them to `shared`, if any); else it takes them
  // from `shared`.
  void BuildFlows(const std::vector<ExpandedTraffic>* expanded = nullptr,
                  SharedFlowBuild* shared = nullptr, bool builds = true);
  // Fills `fl`, flow Count(), from `s` (labelling it in `labels`, unless
  // null: a replica that reads the shared build's labels), and returns when
  // its last byte would arrive on the idle path (the collectives' ideal
  // schedule reads it; `ideal`: whether it is needed, else its path is
  // walked only for a flow this replica holds).
  Time FillFlow(const FlowSpec& s, bool ideal, FlowLabels* labels, Flow& fl);
  // Adds to `graph` the waits of entry `spec`, a job following another
  // (CollectiveSpec::after_tag), whose first iteration is `first`.
  void FollowJob(FlowGraphBuilder& graph, const TrafficSpec& spec,
                 const CollectiveInstance& first) const;
  // Each flow's congestion control (at its sender) and what its frames carry.
  void SetUpCongestionControl();
  // The arrival cursor over the flows that wait for nothing, from each
  // flow's start (`flow_start`, kTimeMax: it waits).
  void ScheduleArrivals(const std::vector<Time>& flow_start);
  // Starts flow `id` now, on its NIC or inside its GPU server (net/nvlink.h).
  void StartFlow(uint32_t id);
  // The idle path of a flow (both directions), for its ideal times.
  IdealFctInput IdealInput(const Flow& flow) const;
  // A flow's port time and ideal delivery for the collectives' ideal
  // schedule, given when its last byte would arrive on the idle path.
  IdealMessage IdealMessageOf(const Flow& flow, Time delivered) const;
  // The links, in order, frames with ECMP key `key` take from src to dst.
  std::vector<Hop> PathOf(uint32_t src, uint32_t dst, uint64_t key) const;
  void Dispatch(const Event& e);
  [[gnu::noinline]] void DispatchOps(const Event& e);
  // Recomputes routes on the links that are up (a link_down fault's
  // convergence), or takes them from the replica that did (SharedRoutes).
  // `port`: the failed link's, named in the ops log.
  void RecomputeRoutes(PortId port);
  // The routes on the links that are up: the fabric's routes derived from
  // those around routes_down_ (Routing::Rerouted), searched by `threads`
  // threads; none when a host is cut off.
  SharedRoutes::Product RoutesAroundDownLinks(uint32_t threads) const;
  // `links` (down_links_ or routes_down_) as Routing takes them.
  std::vector<Routing::Link> RoutingLinks(const std::vector<PortId>& links) const;
  // Keeps down_links_ as ops::LinkDown / LinkUp leave the link's ports.
  void SetLinkDown(PortId port, bool down);
  // How often the deadlock detector samples: a quarter of its threshold.
  Time DeadlockPeriod() const;

  Scenario scenario_;
  std::shared_ptr<const FabricLayout> layout_;
  Fabric fabric_;
#ifdef ROCESIM_CHECKS
  void CheckInvariantsAfter(const Event& e, uint64_t count);
  // Throws InvariantError if `routes` (RecomputeRoutes's) are not a fresh
  // build's around down_links_ (topo/routing_check.h).
  void CheckRerouting(const SharedRoutes::Product& routes) const;
  uint64_t last_check_ = 0;          // the event count at the last check that held
  uint64_t next_check_ = 0;          // the event count at which the next check is due
  uint64_t check_visits_fixed_ = 0;  // a check's visits but the frames (0: not yet known)
#endif
  bool interrupted_ = false;         // Advance stopped on StopRequested()
  Time window_end_ = -1;             // the open window's last picosecond, or -1 between windows
  std::vector<uint8_t> local_;       // per node: this replica runs it (empty: all)
  std::vector<uint8_t> local_host_;  // per host, the same
  uint64_t uncounted_ = 0;           // replicated events another replica counts
  bool coordinator_ = true;
  // A partition's detector (RunThroughDeadlockCheck): the sample taken at
  // kDeadlockCheck, resolved once every partition's part is in.
  std::optional<DeadlockSample> deadlock_sample_;
  std::unique_ptr<Monitor> monitor_;
  std::unique_ptr<HpccQlenMonitor> qlen_;  // output.hpcc_qlen
  // kMonitor's target for the queue-length monitor's samples (0: monitors').
  static constexpr uint32_t kQlenMonitorTarget = 1;
  std::unique_ptr<PortCaptures> captures_;
  uint64_t events_ = 0;
  Time traffic_start_ = kTimeMax;  // the earliest flow start (TrafficStart)
  int64_t offered_bytes_ = 0;      // every flow's size summed (OfferedBytes)
  std::vector<Arrival> start_order_;
  std::shared_ptr<const FlowLabels> labels_;  // every flow's, perhaps shared
  std::vector<CollectiveEntry> collectives_;
  std::vector<EntryTotals> entry_totals_;
  // Links a link_down fault holds down now, by either of their ports as the
  // fault names it (RecomputeRoutes routes around them; a partition may not
  // hold these ports).
  std::vector<PortId> down_links_;
  // The links the fabric's routes go around: down_links_ when they were last
  // recomputed (the routes stay when a host was cut off).
  std::vector<PortId> routes_down_;
  // A partition's: where the replicas of its process share recomputed
  // routes (null: it builds its own), and how many it has taken.
  SharedRoutes* shared_routes_ = nullptr;
  uint64_t recomputations_ = 0;
};

}  // namespace rocesim
