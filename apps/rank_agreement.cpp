#include "apps/rank_agreement.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string_view>

#include "apps/error_report.h"
#include "core/build_info.h"
#include "scenario/resolved_scenario.h"
#include "sim/partitioned_run.h"
#include "sim/rank_group.h"

namespace rocesim {

namespace {

// Every rank waits here until the one that prints has printed: mpirun ends
// a job once one of its ranks exits with an error, maybe before a rank
// still on its way to saying why would have said it.
void AfterTheLineIsOut(RankGroup& ranks) {
  const uint64_t here = 1;
  ranks.GatherAll({&here, 1});
}

// When `error` (this rank's failure, or null) or another rank's is set:
// the lowest rank that failed prints its error (naming itself when
// `name_the_rank`), and every rank throws JobEnded with its status.
void EndIfAnyRankFailed(RankGroup& ranks, const std::exception_ptr& error, bool name_the_rank) {
  const uint32_t me = ranks.Rank(), n = ranks.Ranks();
  ErrorReport report = error ? DescribeError(error) : ErrorReport{0, ""};
  constexpr std::string_view kError = "rocesim: error: ";
  if (name_the_rank && report.line.starts_with(kError))
    report.line.insert(kError.size(), fmt::format("rank {}: ", me));
  const uint64_t status = static_cast<uint64_t>(report.status);
  const std::vector<uint64_t> statuses = ranks.GatherAll({&status, 1});
  for (uint32_t r = 0; r < n; ++r) {
    if (statuses[r] == 0) continue;
    if (r == me) {
      std::fputs(report.line.c_str(), stderr);
      std::fflush(stderr);
    }
    AfterTheLineIsOut(ranks);
    throw JobEnded{static_cast<int>(statuses[r])};
  }
}

}  // namespace

void OnEveryRank(RankGroup* ranks, const std::function<std::vector<AgreedValue>()>& step,
                 std::string_view what_to_do) {
  std::vector<AgreedValue> mine;
  std::exception_ptr error;
  try {
    mine = step();
  } catch (...) {
    if (ranks == nullptr) throw;
    error = std::current_exception();
  }
  if (ranks == nullptr) return;
  const uint32_t me = ranks->Rank(), n = ranks->Ranks();
  EndIfAnyRankFailed(*ranks, error, false);

  if (mine.empty()) return;  // nothing to compare (the same on every rank: the same step)
  std::vector<uint64_t> values;
  for (const AgreedValue& v : mine) values.push_back(v.value);
  const std::vector<uint64_t> all = ranks->GatherAll(values);
  const size_t k = values.size();
  for (uint32_t r = 1; r < n; ++r)
    for (size_t i = 0; i < k; ++i) {
      const uint64_t theirs = all[r * k + i], first = all[i];
      if (theirs == first) continue;
      if (me == 0) {
        const AgreedValue& v = mine[i];
        fmt::print(stderr,
                   "rocesim: error: the ranks of this MPI job set up different runs: ranks 0 and "
                   "{} differ in their {}{}; {}\n",
                   r, v.what, v.shown ? fmt::format(": {} against {}", first, theirs) : "",
                   what_to_do);
        std::fflush(stderr);
      }
      AfterTheLineIsOut(*ranks);
      throw JobEnded{2};
    }
}

void EndJobTogether(RankGroup& ranks, const std::exception_ptr& error) {
  EndIfAnyRankFailed(ranks, error, true);
  // Not reached: the run ends together only when a partition failed.
  throw std::logic_error("the ranks ended a run together, but no rank failed");
}

std::vector<AgreedValue> BuildValues() {
  Digest build;
  build.Add(RocesimVersion());
  build.Add(GitCommit());
  return {{fmt::format("rocesim build (rank 0 runs rocesim {}, commit {})", RocesimVersion(),
                       GitCommit()),
           build.value(), false}};
}

std::vector<AgreedValue> ScenarioValues(const Scenario& scenario) {
  // Files by their names alone: ranks on machines that keep the same files
  // under other directories run alike. output.dir is rank 0's alone.
  std::vector<ResolvedSetting> settings;
  ResolvedScenarioYaml(scenario, &settings);
  Digest resolved;
  for (const ResolvedSetting& s : settings) {
    if (s.key == "output.dir") continue;
    const bool path = s.key.ends_with(".file") || s.key.ends_with(".cdf");
    resolved.Add(s.key);
    resolved.Add(path ? std::filesystem::path(s.value).filename().string() : s.value);
  }
  return {{"scenario (its file, --set and --seed, resolved)", resolved.value(), false}};
}

std::vector<AgreedValue> RunSetupValues(const PartitionedRun& run) {
  const Partitioning& cut = run.partitioning();
  Digest nodes;
  for (const uint32_t part : cut.node_part) nodes.Add(part);
  nodes.Add(static_cast<uint64_t>(cut.lookahead));
  // What every replica knows of every flow, whether it holds it or not
  // (transport/flow_table.h): its ends and packets, the bytes of all, and
  // the starts of those that wait for nothing.
  const Simulation& sim = run.result();
  const FlowTable& flows = sim.fabric().flows;
  Digest traffic;
  for (uint32_t id = 0; id < flows.Count(); ++id) {
    const FlowEnds e = flows.Ends(id);
    for (const uint64_t field :
         {uint64_t{id}, uint64_t{e.src}, uint64_t{e.dst}, uint64_t{e.packets}, uint64_t{e.sport}})
      traffic.Add(field);
  }
  traffic.Add(static_cast<uint64_t>(sim.OfferedBytes()));
  for (const Simulation::Arrival& a : sim.arrivals()) {
    traffic.Add(a.id);
    traffic.Add(static_cast<uint64_t>(a.start));
  }
  return {
      {"partition count", cut.parts, true},
      {"cut of the fabric (which partition holds each node)", nodes.value(), false},
      {"flow count", flows.Count(), true},
      {"flows (their ends, sizes and starts)", traffic.value(), false},
  };
}

}  // namespace rocesim
