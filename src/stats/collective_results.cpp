#include "stats/collective_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/checked_write.h"
#include "workload/collectives.h"
#include "workload/simai_workload.h"

namespace rocesim {

namespace {
const TrafficSpec& SpecOf(const Simulation& sim, const CollectiveResult& r) {
  return sim.scenario().traffic[r.traffic_index];
}
double Seconds(Time t) {
  return static_cast<double>(t) / kSecond;
}
// Algorithm and bus bandwidth in Gb/s (NCCL's definitions).
double AlgBw(const TrafficSpec& t, Time time) {
  return time > 0 ? static_cast<double>(t.size_bytes) * 8 / Seconds(time) / 1e9 : 0;
}
double BusBw(const TrafficSpec& t, Time time) {
  return AlgBw(t, time) * BusBandwidthFactor(t.collective.op, static_cast<int>(t.hosts.size()));
}
// A training job (workload/training_loop.h) runs many operations: NCCL's
// bandwidths describe one, so its rows leave them out.
bool IsTraining(const TrafficSpec& t) {
  return t.kind == TrafficKind::kTraining;
}
std::string_view OpName(const TrafficSpec& t) {
  return IsTraining(t) ? "training" : CollectiveOpName(t.collective.op);
}
}  // namespace

std::vector<CollectiveResult> CollectiveResults(const Simulation& sim) {
  const FlowTable& flows = sim.fabric().flows;
  std::vector<CollectiveResult> out;
  for (const Simulation::CollectiveEntry& e : sim.collectives()) {
    const TrafficSpec& t = sim.scenario().traffic[e.traffic_index];
    for (const CollectiveInstance& inst : e.instances) {
      CollectiveResult r;
      r.traffic_index = e.traffic_index;
      r.tag = t.tag;
      r.iteration = inst.iteration;
      r.flows = inst.end_flow - inst.first_flow;
      r.ideal = e.ideal;
      r.complete = true;
      r.steps.resize(static_cast<size_t>(inst.steps));
      for (int s = 0; s < inst.steps; ++s) r.steps[s].step = s;
      std::map<int, Time> rank_finish;  // per receiving host: its last delivery
      for (uint32_t k = inst.first_flow; k < inst.end_flow; ++k) {
        const Flow& fl = flows[e.first_flow + k];
        CollectiveStepResult& step = r.steps[e.flow_step[k]];
        if (fl.start != kTimeMax) {
          if (r.start < 0 || fl.start < r.start) r.start = fl.start;
          if (step.start < 0 || fl.start < step.start) step.start = fl.start;
        }
        if (fl.received < 0) {
          r.complete = false;
          continue;
        }
        Time& rf = rank_finish[static_cast<int>(fl.dst)];
        rf = std::max(rf, fl.received);
        if (fl.received > step.finish) {
          step.finish = fl.received;
          step.slowest_host = static_cast<int>(fl.dst);
        }
      }
      // An instance without flows has no finish: reported incomplete rather
      // than with made-up times (none is built: the reader refuses a
      // training job that moves nothing, and a collective always sends).
      if (rank_finish.empty()) r.complete = false;
      if (r.complete) {
        std::vector<Time> finishes;
        for (const auto& [host, at] : rank_finish) {
          finishes.push_back(at);
          if (at > r.finish) {
            r.finish = at;
            r.straggler_host = host;
          }
        }
        std::sort(finishes.begin(), finishes.end());
        r.straggler_lag = r.finish - finishes[(finishes.size() - 1) / 2];
      }
      out.push_back(std::move(r));
    }
  }
  return out;
}

nlohmann::json CollectiveJobsJson(const Simulation& sim, const std::vector<CollectiveResult>& rs) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const Simulation::CollectiveEntry& e : sim.collectives()) {
    const TrafficSpec& t = sim.scenario().traffic[e.traffic_index];
    const CollectiveSpec& c = t.collective;
    std::vector<Time> times;
    double busbw = 0;
    for (const CollectiveResult& r : rs)
      if (r.traffic_index == e.traffic_index && r.complete) {
        times.push_back(r.finish - r.start);
        busbw += BusBw(t, r.finish - r.start);
      }
    nlohmann::json j = {{"tag", t.tag},
                        {"traffic_index", e.traffic_index},
                        {"op", OpName(t)},
                        {"algorithm", CollectiveAlgorithmName(c.algorithm)},
                        {"ranks", t.hosts.size()},
                        {"size_bytes", t.size_bytes},
                        {"channels", c.channels},
                        {"chunk_bytes", c.chunk_bytes},
                        {"iterations", c.iterations},
                        {"completed", times.size()},
                        {"ideal_s", Seconds(e.ideal)}};
    if (!times.empty()) {
      double mean = 0;
      for (Time x : times) mean += Seconds(x);
      mean /= static_cast<double>(times.size());
      j["iteration_s"] = {{"mean", mean},
                          {"min", Seconds(*std::min_element(times.begin(), times.end()))},
                          {"max", Seconds(*std::max_element(times.begin(), times.end()))}};
      if (!IsTraining(t)) j["busbw_gbps_mean"] = busbw / static_cast<double>(times.size());
      j["slowdown_mean"] = e.ideal > 0 ? mean / Seconds(e.ideal) : 0;
    }
    if (IsTraining(t)) {
      const SimaiWorkload& w = *t.training.workload;
      // The file's name: the same whichever directory the scenario named it from.
      j["workload"] = {{"file", std::filesystem::path(t.file).filename().string()},
                       {"loop", w.loop_name},
                       {"layers", w.layers.size()},
                       {"tp", w.tp},
                       {"ep", w.ep},
                       {"dp", t.hosts.size() / w.tp}};
    }
    jobs.push_back(std::move(j));
  }
  return jobs;
}

void WriteCollectiveFiles(const Simulation& sim, const std::vector<CollectiveResult>& rs,
                          const std::string& dir) {
  if (sim.collectives().empty()) return;
  fmt::memory_buffer out, steps;
  fmt::format_to(std::back_inserter(out),
                 "tag,traffic_index,iteration,op,algorithm,ranks,size_bytes,channels,flows,"
                 "complete,start_ps,finish_ps,time_ps,algbw_gbps,busbw_gbps,ideal_ps,slowdown,"
                 "straggler_host,straggler_lag_ps\n");
  fmt::format_to(std::back_inserter(steps),
                 "tag,traffic_index,iteration,step,start_ps,finish_ps,slowest_host\n");
  for (const CollectiveResult& r : rs) {
    const TrafficSpec& t = SpecOf(sim, r);
    fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{},{},{},{},{},", r.tag,
                   r.traffic_index, r.iteration, OpName(t),
                   CollectiveAlgorithmName(t.collective.algorithm), t.hosts.size(), t.size_bytes,
                   t.collective.channels, r.flows, r.complete ? 1 : 0);
    const std::string start = r.start >= 0 ? fmt::format("{}", r.start) : "";
    if (r.complete) {
      const Time time = r.finish - r.start;
      const std::string bw =
          IsTraining(t) ? "," : fmt::format("{:.3f},{:.3f}", AlgBw(t, time), BusBw(t, time));
      fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{:.6f},{},{}\n", start, r.finish,
                     time, bw, r.ideal,
                     r.ideal > 0 ? static_cast<double>(time) / static_cast<double>(r.ideal) : 0,
                     r.straggler_host, r.straggler_lag);
    } else {
      fmt::format_to(std::back_inserter(out), "{},,,,,{},,,\n", start, r.ideal);
    }
    for (const CollectiveStepResult& s : r.steps) {
      fmt::format_to(std::back_inserter(steps), "{},{},{},{},{},{},{}\n", r.tag, r.traffic_index,
                     r.iteration, s.step, s.start >= 0 ? fmt::format("{}", s.start) : "",
                     s.finish >= 0 ? fmt::format("{}", s.finish) : "",
                     s.slowest_host >= 0 ? fmt::format("{}", s.slowest_host) : "");
    }
  }
  WriteFileChecked(dir + "/collectives.csv", std::string_view(out.data(), out.size()));
  WriteFileChecked(dir + "/collective_steps.csv", std::string_view(steps.data(), steps.size()));
}

}  // namespace rocesim
