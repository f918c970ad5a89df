#include "sim/partitioned_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <exception>
#include <filesystem>
#include <thread>

#include "core/usable_cores.h"
#include "sim/rank_exchange.h"
#include "sim/run_clock.h"
#include "sim/spin_barrier.h"
#include "sim/stop_request.h"
#include "stats/monitor.h"

namespace rocesim {

// What the threads of one machine share: the per-partition outboxes live in
// each replica's Fabric; these are what each partition publishes after a
// window (in two slots, by window parity, for the reason the outboxes
// alternate) and what the job agreed on.
struct PartitionedRun::Shared {
  explicit Shared(uint32_t n) : sync(n, SpinBarrier::ForCores(n, UsableCores())) {
    for (Slot& s : slots) {
      s.next.resize(n);
      s.finished.resize(n);
      s.bytes_finished.resize(n);
      s.events.resize(n);
    }
  }
  struct Slot {
    std::vector<Time> next;               // per local partition: its earliest pending event
    std::vector<uint64_t> finished;       // ... flows finished
    std::vector<int64_t> bytes_finished;  // ... and their bytes (progress line only)
    std::vector<uint64_t> events;         // ... events counted
    bool stop = false;                    // thread 0 saw a stop request (one reader: one answer)
  };
  std::array<Slot, 2> slots;
  SpinBarrier sync;
  // MPI: the job's agreement, filled by thread 0 between two barriers.
  Time global_next = kTimeMax;
  uint64_t global_finished = 0;
  uint64_t global_events = 0;
  bool global_stop = false;
  bool last_window_clipped = false;  // the last window ran only up to the duration
  bool interrupted = false;          // the partitions agreed to stop early
  // The deadlock detector's samples: each partition's, then everyone's.
  std::vector<DeadlockSample> samples;
  std::vector<DeadlockSample> all_samples;
};

PartitionedRun::PartitionedRun(const Scenario& scenario, uint32_t threads, RankExchange* exchange)
    : scenario_(scenario), threads_(std::max(threads, 1u)), exchange_(exchange) {
  const uint32_t ranks = exchange_ ? exchange_->Ranks() : 1;
  const uint32_t rank = exchange_ ? exchange_->Rank() : 0;
  first_partition_ = rank * threads_;
  replicas_.resize(threads_);
  // Every rank of an MPI job lays out and cuts the fabric the same way
  // (METIS with a fixed seed on the same graph), so no rank needs to be told
  // which nodes are whose. The threads' replicas share the layout.
  const std::shared_ptr<const FabricLayout> layout = LayoutFabric(scenario_);
  partitioning_ = PartitionFabric(*layout, scenario_, ranks * threads_);
  std::vector<std::exception_ptr> errors(threads_);
  {
    std::vector<std::thread> builders;
    for (uint32_t t = 0; t < threads_; ++t)
      builders.emplace_back([&, t] {
        try {
          const uint32_t part = first_partition_ + t;
          const PartitionPlace place{&partitioning_.node_part, part, partitioning_.parts,
                                     part == 0};
          replicas_[t] = std::make_unique<Simulation>(scenario_, layout, place);
        } catch (...) {
          errors[t] = std::current_exception();
        }
      });
    for (std::thread& b : builders) b.join();
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  shared_ = std::make_unique<Shared>(threads_);
  shared_->samples.resize(threads_);
  busy_.assign(threads_, 0);
  windows_.assign(threads_, 0);
  // The deadlock detector samples in every partition at the same event (the
  // last of its picosecond, in the same window everywhere): the partitions
  // meet there, pool their parts of the wait-for graph, and go on.
  for (uint32_t t = 0; t < threads_; ++t)
    replicas_[t]->SetDeadlockExchange([this, t](DeadlockSample mine) {
      Shared& sh = *shared_;
      sh.samples[t] = std::move(mine);
      sh.sync.Wait();
      if (t == 0)
        sh.all_samples = exchange_ ? exchange_->AllDeadlockSamples(sh.samples) : sh.samples;
      sh.sync.Wait();
      std::vector<DeadlockSample> all = sh.all_samples;
      sh.sync.Wait();
      return all;
    });
}

PartitionedRun::~PartitionedRun() = default;

namespace {
// Rethrows the first of `errors` that is not a partition stopped because
// another failed (else the first such stop, else nothing).
void RethrowFirstFailure(const std::vector<std::exception_ptr>& errors) {
  std::exception_ptr stopped;
  for (const std::exception_ptr& e : errors) {
    if (!e) continue;
    try {
      std::rethrow_exception(e);
    } catch (const SpinBarrier::Aborted&) {
      if (!stopped) stopped = e;
    } catch (...) {
      throw;
    }
  }
  if (stopped) std::rethrow_exception(stopped);
}
}  // namespace

// One partition's thread. Window w (from 1):
//   take in the frames other partitions sent to this one in window w - 1
//     (outbox set (w - 1) & 1) and decide, from what every partition
//     published after window w - 1, where window w starts, or that the run
//     is over: identically in every thread;
//   run the window's events, writing frames for other partitions into the
//     outbox set w & 1 (cleared first: its readers finished with it before
//     the last barrier);
//   publish into slot w & 1 the earliest event pending here or landing from
//     a frame sent here, flows finished and events counted, and (thread 0
//     only, so that all threads read one answer) whether a stop was
//     requested (Ctrl-C: sim/stop_request.h);
//   barrier [MPI: thread 0 exchanges with the other ranks; barrier].
// A requested stop ends the run before the next window, in every partition
// and rank alike.
// One barrier a window: the double sets of outboxes and published slots keep
// a fast thread's writes for window w + 1 away from a slow thread's reads of
// window w's.
void PartitionedRun::RunPartition(uint32_t t, const Simulation::ProgressFn& progress) {
  Simulation& sim = *replicas_[t];
  Fabric& f = sim.fabric();
  Shared& sh = *shared_;
  const uint32_t part = first_partition_ + t;
  const uint32_t parts = partitioning_.parts;
  const Time until = scenario_.duration;
  const uint64_t total_flows = f.flows.size();
  const Time quantum = sim.quantum();
  uint64_t reported = 0;
  auto publish = [&](uint64_t window) {
    Shared::Slot& slot = sh.slots[window & 1];
    slot.next[t] = std::min(sim.NextEventTime(), f.outbox_min_arrive);
    slot.finished[t] = f.flows_finished;
    slot.bytes_finished[t] = f.bytes_finished;
    slot.events[t] = sim.CountedEvents();
    if (t == 0) slot.stop = StopRequested();
    f.outbox_min_arrive = kTimeMax;
    sh.sync.Wait();
    if (exchange_) {
      if (t == 0) {
        Time next = *std::min_element(slot.next.begin(), slot.next.end());
        uint64_t finished = 0, events = 0;
        for (uint32_t i = 0; i < threads_; ++i) {
          finished += slot.finished[i];
          events += slot.events[i];
        }
        bool stop = slot.stop;
        exchange_->ExchangeWindow(replicas_, first_partition_, (window & 1) * parts, next, finished,
                                  events, stop);
        sh.global_next = next;
        sh.global_finished = finished;
        sh.global_events = events;
        sh.global_stop = stop;
      }
      sh.sync.Wait();
    }
  };
  publish(0);
  for (uint64_t window = 1;; ++window) {
    const uint64_t last = window - 1;
    const uint32_t last_base = (last & 1) * parts;
    for (uint32_t s = 0; s < threads_; ++s)
      if (s != t)
        for (const CrossFramesView from = replicas_[s]->fabric().outbox[last_base + part].View();
             const CrossFrame& c : from.frames)
          f.ReceiveAcross(c, from);
    Time start;
    uint64_t finished, events;
    bool stop;
    if (exchange_) {
      for (const CrossFramesView& from : exchange_->Inbox(part))
        for (const CrossFrame& c : from.frames) f.ReceiveAcross(c, from);
      start = sh.global_next;
      finished = sh.global_finished;
      events = sh.global_events;
      stop = sh.global_stop;
    } else {
      const Shared::Slot& slot = sh.slots[last & 1];
      stop = slot.stop;
      start = *std::min_element(slot.next.begin(), slot.next.end());
      finished = events = 0;
      for (uint32_t i = 0; i < threads_; ++i) {
        finished += slot.finished[i];
        events += slot.events[i];
      }
    }
    if (t == 0 && progress && events - reported >= 0x10000) {
      reported = events;
      // The finished bytes of this process's partitions: the whole job's
      // without MPI; under MPI (not exchanged) the ETA goes by time alone.
      int64_t bytes = 0;
      for (int64_t b : sh.slots[last & 1].bytes_finished) bytes += b;
      progress({.now = std::min(start, until),
                .events = events,
                .flows_finished = finished,
                .flows_total = total_flows,
                .bytes_finished = exchange_ ? 0 : bytes,
                .bytes_total = exchange_ ? 0 : sim.OfferedBytes(),
                .traffic_start = sim.TrafficStart()});
    }
    if (total_flows > 0 && finished == total_flows) break;
    if (start == kTimeMax || start > until) break;
    if (stop) {  // every partition and rank sees the same answer here
      if (t == 0) sh.interrupted = true;
      break;
    }
    const Time window_end = start + (quantum - 1);
    if (t == 0) sh.last_window_clipped = window_end > until;
    const uint32_t base = (window & 1) * parts;
    f.outbox_base = base;
    for (uint32_t d = 0; d < parts; ++d) f.outbox[base + d].Clear();
    const auto busy_from = std::chrono::steady_clock::now();
    sim.RunEvents(std::min(window_end, until), nullptr);
    busy_[t] += std::chrono::duration<double>(std::chrono::steady_clock::now() - busy_from).count();
    publish(window);
    ++windows_[t];
  }
}

namespace {
std::string PartitionDir(const std::string& dir, uint32_t partition) {
  return fmt::format("{}/.partition-{}", dir, partition);
}
}  // namespace

std::string PartitionedRun::Balance() const {
  std::string s = fmt::format("{} windows; seconds running events per partition:", windows_[0]);
  for (uint32_t t = 0; t < threads_; ++t) s += fmt::format(" {:.2f}", busy_[t]);
  s += "; events:";
  for (uint32_t t = 0; t < threads_; ++t) s += fmt::format(" {}", replicas_[t]->CountedEvents());
  return s;
}

void PartitionedRun::EnableMonitors(const std::string& dir) {
  for (uint32_t t = 0; t < threads_; ++t) {
    replicas_[t]->EnableCaptures(dir);
    replicas_[t]->EnableQlenMonitor();
  }
  if (scenario_.monitors.interval <= 0) return;
  monitor_dir_ = dir;
  for (uint32_t t = 0; t < threads_; ++t) {
    const std::string part_dir = PartitionDir(dir, first_partition_ + t);
    std::filesystem::create_directories(part_dir);
    replicas_[t]->OpenTimeSeries(part_dir);
  }
}

RunStats PartitionedRun::Run(const Simulation::ProgressFn& progress) {
  RunStats stats;
  RunClock clock;
  std::vector<std::thread> workers;
  std::vector<std::exception_ptr> errors(threads_);
  // A partition that throws stops the others at their next barrier
  // (SpinBarrier::Abort) rather than leaving them waiting for it; the run
  // then rethrows the first failure that is not such a stop.
  auto run_partition = [&](uint32_t t, const Simulation::ProgressFn& p) {
    try {
      RunPartition(t, p);
    } catch (...) {
      errors[t] = std::current_exception();
      shared_->sync.Abort();
    }
  };
  for (uint32_t t = 1; t < threads_; ++t) workers.emplace_back(run_partition, t, nullptr);
  run_partition(0, progress);
  for (std::thread& w : workers) w.join();
  RethrowFirstFailure(errors);
  for (const auto& replica : replicas_) replica->FinishMonitors();
  Merge(stats);  // collective under MPI: every rank has flushed its files past it
  // Invariants: each replica's own state; the totals where they are the
  // job's (rank 0 under MPI).
  for (const auto& replica : replicas_)
    if (!stats.invariant_break) stats.invariant_break = CheckFabricState(replica->fabric());
  if (!stats.invariant_break && (!exchange_ || exchange_->Rank() == 0))
    stats.invariant_break = CheckTotals(scenario_, replicas_[0]->fabric().counters,
                                        stats.in_network_frames, stats.in_network_payload_bytes);
  if (!monitor_dir_.empty() && first_partition_ == 0) {
    std::vector<std::string> parts;
    for (uint32_t p = 0; p < partitioning_.parts; ++p)
      parts.push_back(PartitionDir(monitor_dir_, p));
    MergeMonitorFiles(parts, monitor_dir_);
  }
  clock.Finish(stats);
  return stats;
}

void PartitionedRun::Merge(RunStats& stats) {
  // Local totals, then (MPI) the job's.
  Shared& sh = *shared_;
  uint64_t events = 0;
  Time end = 0;
  for (uint32_t t = 0; t < threads_; ++t) {
    events += replicas_[t]->CountedEvents();
    end = std::max(end, replicas_[t]->fabric().now);
  }
  Fabric& out = replicas_[0]->fabric();
  const std::vector<uint32_t>& node_part = partitioning_.node_part;
  auto owner = [&](uint32_t node) -> Fabric* {
    const uint32_t p = node_part[node];
    if (p - first_partition_ >= threads_) return nullptr;  // on another rank
    return &replicas_[p - first_partition_]->fabric();
  };
  // Flows: the requester's side from the sender's partition, the
  // responder's from the receiver's. (Ports are not merged: nothing the
  // results writer reads is per port, and replica 0 does not hold every
  // port; the monitors' per-port files are merged from the partitions'.)
  const FabricLayout& layout = *out.layout;
  for (Flow& fl : out.flows) {
    const uint32_t src_node = layout.host_nodes[fl.src];
    const uint32_t dst_node = layout.host_nodes[fl.dst];
    if (const Fabric* s = owner(src_node); s && s != &out) {
      const Flow responder = fl;
      fl = s->flows[fl.id];
      CopyResponder(responder, fl);
    }
    if (const Fabric* d = owner(dst_node); d && d != &out) CopyResponder(d->flows[fl.id], fl);
  }
  // The ops log: each partition's entries for its own nodes (a fault every
  // replica runs logs in each), in the serial order of their events.
  std::vector<OpsEvent> log;
  for (uint32_t t = 0; t < threads_; ++t)
    for (const OpsEvent& e : replicas_[t]->fabric().ops.events)
      if (replicas_[t]->IsLocalNode(e.node)) log.push_back(e);
  std::stable_sort(log.begin(), log.end(), OpsEventBefore);
  out.ops.events = std::move(log);
  // The PFC trace: each frame lands in the partition of the node receiving it.
  std::vector<PfcTraceEntry> trace;
  for (uint32_t t = 0; t < threads_; ++t)
    for (const PfcTraceEntry& e : replicas_[t]->fabric().pfc_trace)
      if (replicas_[t]->IsLocalNode(e.node)) trace.push_back(e);
  std::sort(trace.begin(), trace.end(), PfcTraceBefore);
  out.pfc_trace = std::move(trace);
  // Queue-length dumps: each partition's own switch ports.
  std::vector<QlenDumpLine> qlen;
  for (uint32_t t = 0; t < threads_; ++t)
    for (const QlenDumpLine& l : replicas_[t]->fabric().qlen_dumps) qlen.push_back(l);
  std::sort(qlen.begin(), qlen.end(), QlenDumpBefore);
  out.qlen_dumps = std::move(qlen);
  uint64_t in_network = 0, in_network_payload = 0;
  for (uint32_t t = 0; t < threads_; ++t) {
    const Fabric& f = replicas_[t]->fabric();
    uint64_t payload = 0;
    in_network += f.FramesInNetwork(&payload);
    in_network_payload += payload;
    if (t == 0) continue;
    out.counters += f.counters;
    out.flows_finished += f.flows_finished;
    out.ops.watchdog_triggers += f.ops.watchdog_triggers;
    out.ops.watchdog_restores += f.ops.watchdog_restores;
  }
  if (exchange_)
    exchange_->MergeInto(*replicas_[0], partitioning_, first_partition_, threads_, events, end,
                         in_network, in_network_payload);
  stats.events = events;
  stats.in_network_frames = in_network;
  stats.in_network_payload_bytes = in_network_payload;
  stats.all_flows_done = out.flows_finished == out.flows.size();
  stats.interrupted = sh.interrupted;
  // As the serial run: the last event's time, or the duration if events
  // were left beyond it.
  stats.end_time = end;
  Time next = kTimeMax;
  for (uint32_t t = 0; t < threads_; ++t) next = std::min(next, replicas_[t]->NextEventTime());
  if (exchange_) next = exchange_->MinTime(next);
  if (!sh.interrupted && (sh.last_window_clipped || (!stats.all_flows_done && next != kTimeMax)))
    stats.end_time = std::max(end, scenario_.duration);
}

}  // namespace rocesim
