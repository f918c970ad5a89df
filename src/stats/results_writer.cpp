#include "stats/results_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "cc/cc_factory.h"
#include "core/build_info.h"
#include "core/checked_write.h"
#include "scenario/resolved_scenario.h"
#include "scenario/scenario_warnings.h"
#include "sim/stop_request.h"
#include "stats/collective_results.h"
#include "stats/hpcc_compat_writer.h"
#include "stats/node_map.h"
#include "stats/slowdown_stats.h"
#include "workload/generators.h"

namespace rocesim {

namespace {
std::string SignalName(int signal) {
  if (signal == 0) return "another MPI rank's signal";
  if (signal == SIGINT) return "SIGINT";
  if (signal == SIGTERM) return "SIGTERM";
  return fmt::format("signal {}", signal);
}

double Slowdown(const Flow& fl) {
  return static_cast<double>(fl.finish - fl.start) / static_cast<double>(fl.ideal_fct);
}
}  // namespace

double SortedPercentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const size_t idx = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[std::min(idx, sorted.size() - 1)];
}

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return SortedPercentile(values, p);
}

std::vector<std::string> RunSummaryWarnings(const Scenario& sc, const Counters& c) {
  std::vector<std::string> out = ScenarioWarnings(sc);
  const uint64_t lossy_drops = c.drops[static_cast<size_t>(DropCause::kBufferFull)] +
                               c.drops[static_cast<size_t>(DropCause::kWred)];
  for (std::string& w : RunWarnings(sc, lossy_drops)) out.push_back(std::move(w));
  return out;
}

nlohmann::json BuildSummary(const Simulation& sim, const RunStats& stats) {
  const Fabric& f = sim.fabric();
  const Counters& c = f.counters;
  std::vector<double> slowdowns;
  for (const Flow& fl : f.flows)
    if (fl.Finished()) slowdowns.push_back(Slowdown(fl));
  double mean = 0;
  for (double s : slowdowns) mean += s;
  if (!slowdowns.empty()) mean /= static_cast<double>(slowdowns.size());
  const size_t completed = slowdowns.size();
  std::sort(slowdowns.begin(), slowdowns.end());  // once, for every percentile

  nlohmann::json j;
  j["name"] = sim.scenario().name;
  j["seed"] = sim.scenario().seed;
  j["flows"] = {{"total", f.flows.Count()},
                {"completed", completed},
                {"incomplete", f.flows.Count() - completed}};
  // No completed flow: the statistics are null, never a 0 that reads as a result.
  const auto stat = [&](double v) {
    return slowdowns.empty() ? nlohmann::json() : nlohmann::json(v);
  };
  j["slowdown"] = {{"p50", stat(SortedPercentile(slowdowns, 50))},
                   {"p95", stat(SortedPercentile(slowdowns, 95))},
                   {"p99", stat(SortedPercentile(slowdowns, 99))},
                   {"mean", stat(mean)},
                   {"max", stat(slowdowns.empty() ? 0.0 : slowdowns.back())}};
  std::vector<FlowOutcome> outcomes;
  for (const Flow& fl : f.flows)
    if (fl.Finished())
      outcomes.push_back(FlowOutcome{
          fl.size_bytes, Slowdown(fl), static_cast<double>(fl.finish - fl.start) / kMicrosecond,
          sim.flow_tag(fl.id), std::string(CcName(sim.flow_cc()[fl.id]))});
  j["slowdown_groups"] = GroupedSlowdowns(outcomes);
  nlohmann::json drops = {{"total", c.TotalDrops()}};
  for (size_t i = 0; i < c.drops.size(); ++i)
    drops[std::string(DropCauseName(static_cast<DropCause>(i)))] = c.drops[i];
  j["drops"] = drops;
  j["pfc"] = {{"pause_frames_sent", c.pause_sent}, {"pause_frames_received", c.pause_received}};
  if (sim.scenario().sw.rcm.enabled)  // seed 002 §3 (src/net/cioq_rcm.h)
    j["rcm"] = {{"notifications_sent", c.rcm_notifications_sent},
                {"notifications_received", c.rcm_notifications_received},
                {"notification_bytes", c.rcm_notification_bytes},
                {"notifications_at_hosts", c.rcm_notifications_at_hosts},
                {"rcc_windows_started", c.rcm_windows_started},
                {"rcc_harmful_deferred", c.rcm_harmful_deferred},
                {"sar_decisions", c.rcm_sar_decisions},
                {"sar_reroutes", c.rcm_sar_reroutes},
                {"sar_harmful_kept", c.rcm_sar_harmful_kept},
                {"sar_harmful_rerouted", c.rcm_sar_harmful_rerouted}};
  j["watchdog"] = {{"triggers", f.ops.watchdog_triggers}, {"restores", f.ops.watchdog_restores}};
  nlohmann::json deadlocks = nlohmann::json::array();
  for (const DeadlockReport& d : f.ops.deadlocks)
    deadlocks.push_back({{"time_ps", d.time}, {"since_ps", d.since}, {"cycle", d.cycle}});
  j["deadlocks"] = deadlocks;
  j["ecn_marks"] = c.ecn_marks;
  j["cnps_sent"] = c.cnps_sent;
  j["cnps_received"] = c.cnps_received;
  j["acks_sent"] = c.acks_sent;
  j["naks_sent"] = c.naks_sent;
  j["retransmitted_packets"] = c.retransmitted_packets;
  j["timeouts"] = c.timeouts;
  const uint64_t in_network = stats.in_network_frames;
  const uint64_t in_network_payload = stats.in_network_payload_bytes;
  // injected + replicated (flooded copies) = delivered + dropped + in network.
  j["conservation"] = {{"injected_frames", c.injected_frames},
                       {"replicated_frames", c.replicated_frames},
                       {"delivered_frames", c.delivered_frames},
                       {"dropped_frames", c.dropped_frames},
                       {"in_network_frames", in_network},
                       {"injected_payload_bytes", c.injected_payload_bytes},
                       {"replicated_payload_bytes", c.replicated_payload_bytes},
                       {"delivered_payload_bytes", c.delivered_payload_bytes},
                       {"dropped_payload_bytes", c.dropped_payload_bytes},
                       {"in_network_payload_bytes", in_network_payload}};
  // Checked at the end of every run (stats/invariants.h); `checks_build`: also
  // while it ran (-DROCESIM_CHECKS=ON).
  nlohmann::json inv = {{"checked", kInvariantNames},
                        {"held", !stats.invariant_break},
                        {"checks_build", kChecksBuild}};
  if (stats.invariant_break)
    inv["broken"] = {{"invariant", stats.invariant_break->name},
                     {"detail", stats.invariant_break->detail}};
  j["invariants"] = std::move(inv);
  // ---- traffic: per entry, offered bytes and realised load (workload/generators.h) ----
  j["traffic"] = TrafficSummaryJson(sim.scenario(), HostLinkRates(*f.layout), &sim.entry_totals());
  if (!sim.collectives().empty()) j["jobs"] = CollectiveJobsJson(sim, CollectiveResults(sim));
  if (c.nvlink_bytes > 0) j["nvlink_bytes"] = c.nvlink_bytes;
  j["warnings"] = RunSummaryWarnings(sim.scenario(), c);
  j["events"] = stats.events;
  j["sim_seconds"] = ToSeconds(stats.end_time);
  j["all_flows_done"] = stats.all_flows_done;
  // An interrupted run (Ctrl-C): everything above is what it measured up to
  // sim_seconds, not the scenario's whole duration.
  j["partial"] = stats.interrupted;
  j["run"] = {{"rocesim_version", RocesimVersion()},
              {"git_commit", GitCommit()},
              {"run_id", stats.run_id},
              {"wall_seconds", stats.wall_seconds},
              {"cpu_seconds", stats.cpu_seconds},
              {"peak_rss_bytes", stats.peak_rss_bytes},
              {"events_per_second",
               stats.wall_seconds > 0 ? static_cast<double>(stats.events) / stats.wall_seconds : 0},
              {"sim_seconds_per_wall_second",
               stats.wall_seconds > 0 ? ToSeconds(stats.end_time) / stats.wall_seconds : 0},
              {"ranks", stats.ranks},
              {"threads", stats.threads},
              {"partitions", stats.partitions}};
  if (stats.interrupted) j["run"]["stopped_by"] = SignalName(StopSignal());
  if (const PartitionTimes& pt = stats.partition_times; !pt.events.empty()) {
    // Rank 0's partitions and threads (each rank prints its own at the end).
    nlohmann::json& time = j["run"]["partitioned_time"];
    time = {{"windows", pt.windows},
            {"partition_event_seconds", pt.events},
            {"partition_frames_taken_in", pt.frames_taken_in},
            {"thread_take_in_seconds", pt.taking_in},
            {"thread_wait_seconds", pt.waiting},
            {"barrier_spin_seconds", pt.barrier_spin_seconds},
            {"barrier_backoffs", pt.barrier_backoffs},
            {"window_event_imbalance", pt.WindowImbalance()}};
    if (stats.ranks > 1) time["thread_rank_exchange_seconds"] = pt.exchanging;
  }
  return j;
}

nlohmann::json WriteResults(const Simulation& sim, const RunStats& stats, const std::string& dir) {
  const Fabric& f = sim.fabric();
  {
    // Written a megabyte at a time: a run of millions of flows would
    // otherwise hold the whole file's text beside its flow table.
    CheckedFileWriter file(dir + "/flows.csv");
    auto out = std::back_inserter(file.Text());
    fmt::format_to(out,
                   "id,src,dst,size_bytes,start_ps,finish_ps,fct_ps,ideal_fct_ps,slowdown,cc,tag,"
                   "ecn_marked,cnps,size_bucket\n");
    for (const Flow& fl : f.flows) {
      const std::string tail =
          fmt::format("{},{},{},{},{}", CcName(sim.flow_cc()[fl.id]), sim.flow_tag(fl.id),
                      fl.ecn_marked, fl.cnps_received, SizeBucket(fl.size_bytes));
      if (fl.Finished()) {
        fmt::format_to(out, "{},{},{},{},{},{},{},{},{:.6f},{}\n", fl.id, fl.src, fl.dst,
                       fl.size_bytes, fl.start, fl.finish, fl.finish - fl.start, fl.ideal_fct,
                       Slowdown(fl), tail);
      } else if (fl.start != kTimeMax) {
        fmt::format_to(out, "{},{},{},{},{},,,{},,{}\n", fl.id, fl.src, fl.dst, fl.size_bytes,
                       fl.start, fl.ideal_fct, tail);
      } else {  // waited for flows that never completed: never started
        fmt::format_to(out, "{},{},{},{},,,,{},,{}\n", fl.id, fl.src, fl.dst, fl.size_bytes,
                       fl.ideal_fct, tail);
      }
      file.FlushIfOver();
    }
    file.Close();
  }
  nlohmann::json summary = BuildSummary(sim, stats);
  WriteFileChecked(dir + "/summary.json", summary.dump(2) + "\n");
  WriteCollectiveFiles(sim, CollectiveResults(sim), dir);
  const Scenario& sc = sim.scenario();
  if (!sc.faults.empty() || sc.sw.watchdog.enabled || sc.host.watchdog.enabled ||
      sc.monitors.deadlock.enabled) {
    // The ops log (src/ops/ops_log.h): faults and watchdog actions in time
    // order, written as formatted (a watchdog that keeps triggering and
    // restoring through a long run logs a row each time).
    CheckedFileWriter file(dir + "/events.csv");
    auto out = std::back_inserter(file.Text());
    fmt::format_to(out, "time_ps,node,port,priority,event\n");
    for (const OpsEvent& e : f.ops.events) {
      fmt::format_to(out, "{},{},{},{},{}\n", e.time, e.node, e.port, e.priority, e.event);
      file.FlushIfOver();
    }
    file.Close();
  }
  WriteFileChecked(dir + "/scenario.yaml", sim.scenario().yaml_as_run + "\n");
  WriteFileChecked(dir + "/resolved.yaml", ResolvedScenarioYaml(sim.scenario()));
  WriteNodeMap(*f.layout, dir);
  if (sc.output.hpcc_compat || sc.output.hpcc_qlen.enabled) WriteHpccCompatFiles(sim, dir);
  return summary;
}

}  // namespace rocesim
