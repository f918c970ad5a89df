#include "sim/partitioned_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <iterator>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#include "net/fabric_layout.h"
#include "sim/mpi_launch_env.h"
#include "sim/partition_load.h"
#include "sim/partitioned_run_shared.h"
#include "sim/rank_exchange.h"
#include "sim/run_clock.h"
#include "sim/spin_barrier.h"
#include "sim/stop_request.h"
#include "stats/monitor.h"

namespace rocesim {

namespace {
// Adds the seconds `work` takes to `into`: where a partitioned run's time
// goes (PartitionTimes), at two clock reads a piece of a window.
template <typename Work>
void AddTime(double& into, Work&& work) {
  const auto from = std::chrono::steady_clock::now();
  work();
  into += std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
}
}  // namespace

CutRequest AgreeOnCut(RankExchange* exchange, uint32_t threads, uint32_t partitions) {
  CutRequest cut{1, std::max(threads, 1u), partitions};
  if (exchange == nullptr) return cut;
  cut.ranks = exchange->Ranks();
  const uint64_t mine[2] = {cut.threads, cut.partitions};
  const std::vector<uint64_t> all = exchange->GatherAll(mine);
  for (uint32_t r = 0; r < cut.ranks; ++r) {
    cut.threads = std::max(cut.threads, static_cast<uint32_t>(all[2 * r]));
    cut.partitions = std::max(cut.partitions, static_cast<uint32_t>(all[2 * r + 1]));
  }
  return cut;
}

AutoThreadCount AutoThreadsFor(const Scenario& scenario, uint32_t ranks, uint32_t partitions) {
  AutoThreadCount out;
  out.share = AutoThreadsHere();
  if (out.share <= 1 || partitions == 1) return out;
  out.layout = LayoutFabric(scenario);
  out.separable_parts = SeparableParts(*out.layout, scenario);
  out.threads = FitAutoThreads(out.share, ranks, partitions, out.separable_parts);
  return out;
}

PartitionedRun::PartitionedRun(const Scenario& scenario, uint32_t threads, RankExchange* exchange,
                               uint32_t partitions, std::shared_ptr<const FabricLayout> layout)
    : scenario_(scenario), threads_(std::max(threads, 1u)), exchange_(exchange) {
  const uint32_t ranks = exchange_ ? exchange_->Ranks() : 1;
  const uint32_t rank = exchange_ ? exchange_->Rank() : 0;
  // First: no rank may throw before this meeting, as every rank must join it.
  const CutRequest cut = AgreeOnCut(exchange_, threads_, partitions);
  // Every rank of an MPI job lays out and cuts the fabric the same way
  // (METIS with a fixed seed on the same graph), so no rank needs to be told
  // which nodes are whose. The threads' replicas share the layout.
  if (!layout) layout = LayoutFabric(scenario_);
  // The workload, expanded once here for the cut's estimate and for every
  // replica (a collective of 718,848 messages is 0.85 CPU-seconds and
  // 150 MB to expand), and let go once they are built.
  const std::vector<ExpandedTraffic> traffic = ExpandWorkload(scenario_, HostLinkRates(*layout));
  const FabricLoad load = EstimateFabricLoad(*layout, scenario_, traffic);
  partitioning_ = PartitionForRun(*layout, scenario_, ranks, cut.threads, cut.partitions, &load);
  SharedFlowBuild shared;  // the dependency graph and ideal times, built once
  locals_ = partitioning_.parts / ranks;
  first_partition_ = rank * locals_;
  replicas_.resize(locals_);
  routes_ = std::make_unique<SharedRoutes>(locals_, threads_);
  // Each thread's own partitions, a contiguous run of them.
  home_.resize(threads_);
  for (uint32_t p = 0; p < locals_; ++p)
    home_[static_cast<uint64_t>(p) * threads_ / locals_].push_back(p);
  std::vector<std::exception_ptr> errors(threads_);
  {
    std::vector<std::thread> builders;
    for (uint32_t t = 0; t < threads_; ++t)
      builders.emplace_back([&, t] {
        try {
          for (uint32_t p : home_[t]) {
            const uint32_t part = first_partition_ + p;
            const PartitionPlace place{.cut = &partitioning_,
                                       .partition = part,
                                       .coordinator = part == 0,
                                       .traffic = &traffic,
                                       .shared = &shared,
                                       .routes = routes_.get()};
            replicas_[p] = std::make_unique<Simulation>(scenario_, layout, place);
          }
        } catch (...) {
          errors[t] = std::current_exception();
        }
      });
    for (std::thread& b : builders) b.join();
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  shared_ = std::make_unique<Shared>(threads_, locals_);
  shared_->samples.resize(locals_);
  shared_->failures.resize(threads_);
  shared_->failed_parts.assign(locals_, 0);
  times_.events.assign(locals_, 0);
  times_.frames_taken_in.assign(locals_, 0);
  published_events_.assign(locals_, 0);
  thread_times_.resize(threads_);
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

// One thread of the run. Window w (from 1), for each local partition the
// thread takes (its own first, then, with more partitions than threads,
// those the other threads have not yet begun):
//   take in the frames other partitions sent to this one in window w - 1
//     (outbox set (w - 1) & 1);
//   run the window's events, writing frames for other partitions into the
//     outbox set w & 1 (cleared first: its readers finished with it before
//     the last barrier);
//   publish into slot w & 1 the earliest event pending here or landing from
//     a frame sent here, flows finished and events counted;
// then (thread 0 only, so that all threads read one answer) whether a stop
// was requested (Ctrl-C: sim/stop_request.h); barrier [MPI: thread 0
// exchanges with the other ranks; barrier]; and every thread decides, from
// what every partition published, where window w + 1 starts, or that the
// run is over: identically in every thread. A requested stop ends the run
// before the next window, in every partition and rank alike.
// One barrier a window: the double sets of outboxes and published slots keep
// a fast thread's writes for window w + 1 away from a slow thread's reads of
// window w's.
//
// A window holding a deadlock sample (monitors.deadlock: at every multiple of
// its period, in every partition) runs in pieces: every partition runs up to
// and including its sample; barrier; thread 0 pools the samples (and the
// other ranks'); barrier; every partition takes the detector's step on the
// whole graph and runs on, to the window's next sample (the same again) or
// its end. Each piece is a phase of claims (ClaimPartition), so any thread
// may run any piece.
void PartitionedRun::RunThread(uint32_t t, const Simulation::ProgressFn& progress) {
  Shared& sh = *shared_;
  const Time until = scenario_.duration;
  const uint64_t total_flows = replicas_[0]->fabric().flows.Count();
  const Time quantum = replicas_[0]->quantum();
  uint64_t reported = 0;
  uint64_t phase = 0;
  ThreadTimes& mine = thread_times_[t];
  // Runs `body` on every partition this thread claims in this phase of the
  // window whose slot is `slot`, then meets the others; the phase's claims
  // are then reset for its next use. Thread 0 also votes into `slot`, when
  // `vote`, whether a stop was requested. A partition that throws runs no
  // more of the window, and says so in `slot`: the window's agreement then
  // ends the run on every thread and rank alike (Run rethrows the failure),
  // where leaving the barrier would leave the other ranks waiting for this
  // one.
  auto run_phase = [&](auto&& body, Shared::Slot& slot, bool vote) {
    for (int64_t claimed; (claimed = ClaimPartition(t, phase)) >= 0;) {
      const auto p = static_cast<uint32_t>(claimed);
      if (sh.failed_parts[p]) continue;
      try {
        body(p);
      } catch (...) {
        if (!sh.failures[t]) sh.failures[t] = std::current_exception();
        sh.failed_parts[p] = 1;
        slot.failed.store(true, std::memory_order_relaxed);
      }
    }
    if (t == 0 && vote) slot.stop = StopRequested();
    AddTime(mine.waiting, [&] { sh.sync.Wait(); });
    // Every thread finished claiming from this phase's set before the
    // barrier, and none claims from it again before the next one.
    sh.claims[phase & 1][t].next.store(0, std::memory_order_relaxed);
    ++phase;
  };
  // Window 0 only publishes where each partition's first event is.
  run_phase([&](uint32_t p) { Publish(p, 0); }, sh.slots[0], true);
  for (uint64_t window = 0;; ++window) {
    const WindowAgreement a = Agree(t, window);
    if (t == 0) {  // how even the window was (PartitionTimes::busiest_events)
      times_.busiest_events += a.busiest;
      agreed_events_ = a.events;
    }
    if (t == 0 && progress && a.events - reported >= 0x10000) {
      reported = a.events;
      progress({.now = std::min(a.start, until),
                .events = a.events,
                .flows_finished = a.finished,
                .flows_total = total_flows,
                .bytes_finished = a.bytes_finished,
                .bytes_total = replicas_[0]->OfferedBytes(),
                .traffic_start = replicas_[0]->TrafficStart()});
    }
    if (a.failed) {  // no results: the last window's frames are not taken in
      if (t == 0) sh.failed = true;
      if (t == 0 && progress) progress({.over = true});
      return;
    }
    bool over =
        (total_flows > 0 && a.finished == total_flows) || a.start == kTimeMax || a.start > until;
    if (a.stop && !over) {  // every partition and rank sees the same answer here
      if (t == 0) sh.interrupted = true;
      over = true;
    }
    if (over) {
      if (t == 0 && progress) progress({.over = true});
      // The last window's frames land (their arrivals stay pending, counted
      // as in the network, as in the serial run). No window reads the slot
      // any more: a failure here is agreed after the windows
      // (EndIfAPartitionFailed).
      run_phase([&](uint32_t p) { AddTime(mine.taking_in, [&] { TakeIn(p, window); }); },
                sh.slots[(window + 1) & 1], false);
      return;
    }
    const uint64_t next = window + 1;
    const Time end = a.start + (quantum - 1);
    const Time last = std::min(end, until);
    if (t == 0) sh.last_window_clipped = end > until;
    if (t == 0 && trace_windows_) [[unlikely]]
      trace_starts_.push_back(a.start);
    // Every deadlock sample in the window (more than one when the window is
    // longer than the detector's period) is a meeting; the phase after a
    // sample starts with the detector's step on the pooled samples.
    bool sampled = false;
    for (Time check = replicas_[0]->DeadlockCheckFrom(a.start); check <= last;
         check = replicas_[0]->DeadlockCheckFrom(check + 1)) {
      run_phase(
          [&](uint32_t p) {
            if (sampled) {
              replicas_[p]->ResolveDeadlock(sh.all_samples);
            } else {
              AddTime(mine.taking_in, [&] { Open(p, next); });
            }
            AddTime(times_.events[p],
                    [&] { sh.samples[p] = replicas_[p]->RunThroughDeadlockCheck(check); });
          },
          sh.slots[next & 1], false);
      if (t == 0)
        AddTime(mine.exchanging, [&] {
          sh.all_samples = exchange_ ? exchange_->AllDeadlockSamples(sh.samples) : sh.samples;
        });
      AddTime(mine.waiting, [&] { sh.sync.Wait(); });
      sampled = true;
    }
    run_phase(
        [&](uint32_t p) {
          if (sampled) {
            replicas_[p]->ResolveDeadlock(sh.all_samples);
          } else {
            AddTime(mine.taking_in, [&] { Open(p, next); });
          }
          AddTime(times_.events[p], [&] { replicas_[p]->RunEvents(last, nullptr); });
          Publish(p, next);
        },
        sh.slots[next & 1], true);
    if (t == 0) ++times_.windows;
  }
}

void PartitionedRun::Open(uint32_t p, uint64_t window) {
  TakeIn(p, window - 1);
  Fabric& f = replicas_[p]->fabric();
  const uint32_t parts = partitioning_.parts;
  f.outbox_base = (window & 1) * parts;
  for (uint32_t d = 0; d < parts; ++d) f.outbox[f.outbox_base + d].Clear();
}

void PartitionedRun::Publish(uint32_t p, uint64_t window) {
  Simulation& sim = *replicas_[p];
  Fabric& f = sim.fabric();
  Shared::Slot& slot = shared_->slots[window & 1];
  slot.next[p] = std::min(sim.NextEventTime(), f.outbox_min_arrive);
  slot.finished[p] = f.flows_finished;
  slot.bytes_finished[p] = f.bytes_finished;
  slot.events[p] = sim.CountedEvents();
  slot.window_events[p] = slot.events[p] - published_events_[p];
  published_events_[p] = slot.events[p];
  f.outbox_min_arrive = kTimeMax;
  if (trace_windows_ && window > 0) [[unlikely]] {  // window 0: where the first events are
    trace_events_[p].push_back(slot.window_events[p]);
    trace_nanoseconds_[p].push_back(static_cast<uint64_t>(std::llround(times_.events[p] * 1e9)));
  }
}

void PartitionedRun::EnableWindowTrace() {
  trace_windows_ = true;
  trace_events_.assign(locals_, {});
  trace_nanoseconds_.assign(locals_, {});
}

void PartitionedRun::GatherWindowTrace() {
  // Every rank ran the same windows with as many partitions (locals_), so
  // each sends the same length: its partitions' events, then nanoseconds
  // (each window's, from the running totals Publish kept), partition by
  // partition.
  // Each record is let go once copied: a long run's trace holds at most
  // two copies of its numbers at a time.
  const size_t windows = trace_starts_.size();
  std::vector<uint64_t> mine;
  mine.reserve(2 * locals_ * windows);
  for (std::vector<uint64_t>& v : trace_events_) {
    mine.insert(mine.end(), v.begin(), v.end());
    std::vector<uint64_t>().swap(v);
  }
  for (std::vector<uint64_t>& v : trace_nanoseconds_) {
    std::adjacent_difference(v.begin(), v.end(), std::back_inserter(mine));
    std::vector<uint64_t>().swap(v);
  }
  const std::vector<uint64_t> all = exchange_ ? exchange_->GatherAll(mine) : std::move(mine);
  if (exchange_ && exchange_->Rank() != 0) return;  // rank 0 writes the trace
  const uint32_t parts = partitioning_.parts;
  trace_.partitions = parts;
  trace_.starts = trace_starts_;
  trace_.events.resize(windows * parts);
  trace_.nanoseconds.resize(windows * parts);
  const size_t block = locals_ * windows;  // one rank's events (or nanoseconds)
  for (uint32_t part = 0; part < parts; ++part) {
    // The partition's events in its rank's block, its nanoseconds `block` further on.
    const uint64_t* from = all.data() + 2 * block * (part / locals_) + (part % locals_) * windows;
    for (size_t w = 0; w < windows; ++w) {
      trace_.events[w * parts + part] = from[w];
      trace_.nanoseconds[w * parts + part] = from[block + w];
    }
  }
}

WindowAgreement PartitionedRun::Agree(uint32_t t, uint64_t window) {
  Shared& sh = *shared_;
  const Shared::Slot& slot = sh.slots[window & 1];
  WindowAgreement a{.start = *std::min_element(slot.next.begin(), slot.next.end()),
                    .finished = 0,
                    .bytes_finished = 0,
                    .events = 0,
                    .stop = slot.stop,
                    .failed = slot.failed.load(std::memory_order_relaxed)};
  for (uint32_t i = 0; i < locals_; ++i) {
    a.finished += slot.finished[i];
    a.bytes_finished += slot.bytes_finished[i];
    a.events += slot.events[i];
    a.busiest = std::max(a.busiest, slot.window_events[i]);
  }
  if (!exchange_) return a;
  // Thread 0 agrees with the other ranks; every thread reads its answer.
  ThreadTimes& mine = thread_times_[t];
  if (t == 0) {
    AddTime(mine.exchanging, [&] {
      exchange_->ExchangeWindow(replicas_, first_partition_, (window & 1) * partitioning_.parts, a);
    });
    sh.global = a;
  }
  AddTime(mine.waiting, [&] { sh.sync.Wait(); });
  return sh.global;
}

void PartitionedRun::TakeIn(uint32_t p, uint64_t window) {
  Fabric& f = replicas_[p]->fabric();
  const uint32_t part = first_partition_ + p;
  const uint32_t base = (window & 1) * partitioning_.parts;
  uint64_t& taken = times_.frames_taken_in[p];
  for (uint32_t s = 0; s < locals_; ++s)
    if (s != p) {
      const CrossFramesView from = replicas_[s]->fabric().outbox[base + part].View();
      taken += from.frames.size();
      f.ReceiveAcross(from);
    }
  if (exchange_)
    for (const CrossFramesView& from : exchange_->Inbox(part)) {
      taken += from.frames.size();
      f.ReceiveAcross(from);
    }
}

int64_t PartitionedRun::ClaimPartition(uint32_t t, uint64_t phase) {
  Shared::Claim* claims = shared_->claims[phase & 1].get();
  // With one partition per thread nothing is gained by taking another's:
  // it only moves a partition's state to another core's caches.
  const uint32_t victims = locals_ > threads_ ? threads_ : 1;
  for (uint32_t k = 0; k < victims; ++k) {
    const uint32_t v = (t + k) % threads_;
    const std::vector<uint32_t>& list = home_[v];
    std::atomic<uint32_t>& next = claims[v].next;
    if (next.load(std::memory_order_relaxed) >= list.size()) continue;
    if (const uint32_t i = next.fetch_add(1, std::memory_order_relaxed); i < list.size())
      return list[i];
  }
  return -1;
}

namespace {
std::string PartitionDir(const std::string& dir, uint32_t partition) {
  return fmt::format("{}/.partition-{}", dir, partition);
}
}  // namespace

PartitionTimes PartitionedRun::Times() const {
  PartitionTimes times = times_;
  times.barrier_spin_seconds = std::chrono::duration<double>(shared_->sync.SpinBudget()).count();
  times.barrier_backoffs = shared_->sync.Backoffs();
  times.mean_events = static_cast<double>(agreed_events_) / partitioning_.parts;
  for (const ThreadTimes& t : thread_times_) {
    times.taking_in.push_back(t.taking_in);
    times.waiting.push_back(t.waiting);
    times.exchanging.push_back(t.exchanging);
  }
  return times;
}

std::string PartitionedRun::Balance() const {
  const PartitionTimes times = Times();
  auto seconds = [](const std::vector<double>& v) {
    return fmt::format("{:.2f}", fmt::join(v, " "));
  };
  std::string s =
      fmt::format("{} windows; seconds running events per partition: {}; events:", times.windows,
                  seconds(times.events));
  for (uint32_t p = 0; p < locals_; ++p) s += fmt::format(" {}", replicas_[p]->CountedEvents());
  s += fmt::format(" (each window's busiest partition ran {:.1f}% more than the mean)",
                   100 * times.WindowImbalance());
  s += fmt::format("; frames taken in from other partitions: {}",
                   fmt::join(times.frames_taken_in, " "));
  s += fmt::format("; seconds per thread taking in frames: {}, waiting at the barrier: {}",
                   seconds(times.taking_in), seconds(times.waiting));
  if (exchange_)
    s += fmt::format(", exchanging with the other ranks: {}", seconds(times.exchanging));
  if (times.barrier_backoffs != 0)
    s += fmt::format(
        "; waits outlasted the barrier's {:.0f} us spin in windows close together {} time{} "
        "(each followed by {} windows of {} us spins; another program on these cores?)",
        times.barrier_spin_seconds * 1e6, times.barrier_backoffs,
        times.barrier_backoffs == 1 ? "" : "s", SpinBarrier::kBackoffWindows,
        std::chrono::duration_cast<std::chrono::microseconds>(SpinBarrier::kShortSpin).count());
  return s;
}

void PartitionedRun::EnableMonitors(const std::string& dir) {
  for (uint32_t p = 0; p < locals_; ++p) {
    replicas_[p]->EnableCaptures(dir);
    replicas_[p]->EnableQlenMonitor();
  }
  files_dir_ = dir;
  if (scenario_.monitors.interval <= 0) return;
  for (uint32_t p = 0; p < locals_; ++p) {
    const std::string part_dir = PartitionDir(dir, first_partition_ + p);
    std::filesystem::create_directories(part_dir);
    replicas_[p]->OpenTimeSeries(part_dir);
  }
}

RunStats PartitionedRun::Run(const Simulation::ProgressFn& progress) {
  RunStats stats;
  RunClock clock;
  std::vector<std::thread> workers;
  std::vector<std::exception_ptr> errors(threads_);
  // A thread that throws outside a partition's work (RunThread's phases
  // catch a partition's own failure and agree on it with the window) stops
  // the others at their next barrier (SpinBarrier::Abort) rather than
  // leaving them waiting for it; the run then rethrows the first failure
  // that is not such a stop.
  auto run_thread = [&](uint32_t t, const Simulation::ProgressFn& report) {
    try {
      RunThread(t, report);
    } catch (...) {
      errors[t] = std::current_exception();
      shared_->sync.Abort();
    }
  };
  for (uint32_t t = 1; t < threads_; ++t) workers.emplace_back(run_thread, t, nullptr);
  run_thread(0, progress);
  for (std::thread& w : workers) w.join();
  RethrowFirstFailure(errors);
  EndIfAPartitionFailed();
  Merge(stats);  // collective under MPI: every rank has flushed its files past it
  if (trace_windows_) GatherWindowTrace();  // collective under MPI
  const std::string lost = exchange_ ? exchange_->CollectFiles(files_dir_) : "";
  past_last_meeting_ = true;
  if (!lost.empty()) throw std::runtime_error(lost);
  // Invariants: each replica's own state; the totals where they are the
  // job's (rank 0 under MPI).
  for (const auto& replica : replicas_)
    if (!stats.invariant_break) stats.invariant_break = CheckFabricState(replica->fabric());
  if (!stats.invariant_break && (!exchange_ || exchange_->Rank() == 0))
    stats.invariant_break = CheckTotals(scenario_, replicas_[0]->fabric().counters,
                                        stats.in_network_frames, stats.in_network_payload_bytes);
  // Time series (DIR/.partition-N/, EnableMonitors) to merge on rank 0.
  if (!files_dir_.empty() && scenario_.monitors.interval > 0 && first_partition_ == 0) {
    std::vector<std::string> parts;
    for (uint32_t p = 0; p < partitioning_.parts; ++p) parts.push_back(PartitionDir(files_dir_, p));
    MergeMonitorFiles(parts, files_dir_);
  }
  clock.Finish(stats);
  stats.ranks = exchange_ ? exchange_->Ranks() : 1;
  stats.threads = threads_;
  stats.partitions = partitioning_.parts;
  stats.partition_times = Times();
  return stats;
}

void PartitionedRun::EndIfAPartitionFailed() {
  Shared& sh = *shared_;
  std::exception_ptr failure;
  for (const std::exception_ptr& e : sh.failures)
    if (e && !failure) failure = e;
  bool failed = sh.failed;  // in a window: every rank knows; nothing is flushed
  if (!failed) {
    // After the windows (taking in the last one's frames, flushing the
    // monitors' files): the ranks must agree here, before the merge.
    try {
      if (!failure)
        for (const auto& replica : replicas_) replica->FinishMonitors();
    } catch (...) {
      failure = std::current_exception();
    }
    failed = failure != nullptr;
    if (exchange_) {
      const uint64_t mine = failed ? 1 : 0;
      for (const uint64_t f : exchange_->GatherAll({&mine, 1})) failed |= f != 0;
    }
  }
  if (!failed) return;
  failed_together_ = true;
  if (failure) std::rethrow_exception(failure);
  throw FailedOnAnotherRank();
}

}  // namespace rocesim
