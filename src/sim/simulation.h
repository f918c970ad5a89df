// A runnable simulation: builds the fabric from a validated Scenario
// (topology, switches, NICs, routes, flows), runs the event loop, and
// exposes what the results writer reports.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/fabric.h"
#include "ops/deadlock.h"
#include "scenario/scenario.h"
#include "stats/ideal_fct.h"
#include "stats/monitor.h"

namespace rocesim {

// A scenario that validates as a file but cannot be built (e.g. a buffer too
// small for its reserved and headroom carve-outs).
struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunStats {
  uint64_t events = 0;
  Time end_time = 0;  // simulated time when the run stopped
  double wall_seconds = 0;
  double cpu_seconds = 0;
  int64_t peak_rss_bytes = 0;
  bool all_flows_done = false;
  // Frames (and their payload bytes) still in queues and on wires at the end.
  uint64_t in_network_frames = 0;
  uint64_t in_network_payload_bytes = 0;
};

class Simulation {
 public:
  explicit Simulation(const Scenario& scenario);
  ~Simulation();

  // progress(now, events) is called about every 64k events.
  using ProgressFn = std::function<void(Time now, uint64_t events)>;
  RunStats Run(const ProgressFn& progress = nullptr);
  // Processes events up to simulated time `until` (tests and tools that
  // sample the fabric mid-run). Returns false once nothing is left to do:
  // every flow finished or no event remains. Run() is Advance(duration).
  //
  // Events run in windows of quantum() picoseconds, each starting at the
  // earliest pending event, and the run ends at the end of the window in
  // which its last flow finished: the same windows a partitioned run
  // synchronises on (sim/partitioned_run.h), so that both stop after the
  // same events and report the same counters.
  bool Advance(Time until, const ProgressFn& progress = nullptr);

  // --- The partitioned run's view (sim/partitioned_run.h) ---
  // The window length: the smallest non-zero link delay, a property of the
  // scenario alone (sim/partition.h).
  Time quantum() const { return quantum_; }
  // This replica runs only the events of the nodes marked in `local` (one
  // flag per node) and sends what its ports launch onto cut links to the
  // partition that owns the far end (Fabric::outbox). `coordinator`: this
  // replica counts the events every replica runs (flow arrivals).
  void SetPartition(std::vector<uint8_t> local, uint32_t partition,
                    const std::vector<uint32_t>& node_partition, bool coordinator);
  bool IsLocalNode(uint32_t node) const { return local_.empty() || local_[node] != 0; }
  bool IsLocalHost(uint32_t host) const { return local_host_.empty() || local_host_[host] != 0; }
  // The ports of links a partitioning must not cut: those a link_down fault
  // takes down (frames handed over in the window of the failure would
  // otherwise still land).
  std::vector<PortId> UncuttablePorts() const;
  // The time of the earliest pending event, or kTimeMax.
  Time NextEventTime();
  // Runs every pending event at or before `stop`.
  void RunEvents(Time stop, const ProgressFn& progress);
  // Events run so far that this replica counts.
  uint64_t CountedEvents() const { return events_ - uncounted_; }
  // A partition's deadlock detector: given this partition's part of the
  // wait-for graph at a sample, returns every partition's (a collective).
  using DeadlockExchange = std::function<std::vector<DeadlockSample>(DeadlockSample)>;
  void SetDeadlockExchange(DeadlockExchange x) { deadlock_exchange_ = std::move(x); }

  const Fabric& fabric() const { return fabric_; }
  Fabric& fabric() { return fabric_; }
  const Scenario& scenario() const { return scenario_; }
  // Per flow id: the algorithm it runs and the tag its traffic entry gave it.
  const std::vector<CcKind>& flow_cc() const { return flow_cc_; }
  const std::vector<std::string>& flow_tags() const { return flow_tags_; }
  // Open the time-series files in `dir` (call before Run when monitors are
  // on; a partition of a partitioned run after SetPartition).
  void EnableMonitors(const std::string& dir);
  // Flushes them (Run does; a partitioned run calls it for each partition).
  void FinishMonitors();

 private:
  void Build();
  void BuildFlows();
  Time ComputeIdealFct(const Flow& flow) const;
  Time BaseRtt(const Flow& flow) const;
  std::vector<Hop> PathOf(uint32_t src, uint32_t dst, uint16_t sport) const;
  void Dispatch(const Event& e);
  [[gnu::noinline]] void DispatchOps(const Event& e);
  // Faults (src/ops/): resolves link_down faults to ports; recomputes routes
  // on the links that are up (a link_down fault's convergence).
  void ResolveFaults();
  // `port`: the failed link's, named in the ops log.
  void RecomputeRoutes(PortId port);
  // How often the deadlock detector samples: a quarter of its threshold.
  Time DeadlockPeriod() const;

  Scenario scenario_;
  Fabric fabric_;
  Time quantum_ = 0;
  Time window_end_ = -1;             // the open window's last picosecond, or -1 between windows
  std::vector<uint8_t> local_;       // per node: this replica runs it (empty: all)
  std::vector<uint8_t> local_host_;  // per host, the same
  uint64_t uncounted_ = 0;           // replicated events another replica counts
  bool coordinator_ = true;
  DeadlockExchange deadlock_exchange_;
  std::unique_ptr<Monitor> monitor_;
  uint64_t events_ = 0;
  std::vector<uint32_t> start_order_;  // flow ids by start time (the arrival cursor)
  std::vector<CcKind> flow_cc_;
  std::vector<std::string> flow_tags_;
  // What Routing::Build needs again when links fail (link_down faults).
  std::vector<std::vector<std::pair<uint16_t, uint32_t>>> adjacency_;
  std::vector<uint32_t> host_nodes_;
  std::vector<int32_t> switch_index_;
  std::vector<PortId> fault_port_;  // per fault: the link_down's port (else 0)
};

}  // namespace rocesim
