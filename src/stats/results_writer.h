// The results directory of a run (README "Results"):
//   flows.csv      one row per flow
//   summary.json   counts, slowdown percentiles, drops, PFC, ECN, CNPs, cost;
//                  `partial` (an interrupted run); `run`: version, commit, run id
//   scenario.yaml  the scenario exactly as run (after --set / --seed)
//   resolved.yaml  every setting as resolved (scenario/resolved_scenario.h)
//   nodes.csv, links.csv  node ids to tiers, and the cabling (stats/node_map.h)
//   events.csv     time_ps,node,port,priority,event: fault starts/ends and
//                  watchdog triggers/restores (src/ops/), when faults or
//                  watchdogs are configured
//   fct.txt, pfc.txt  the HPCC simulator's formats, with output.hpcc_compat
//                  (stats/hpcc_compat_writer.h)
// Everything but summary.json's "run" object (wall/CPU time, memory) is a pure
// function of the scenario and seed, byte for byte.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/simulation.h"

namespace rocesim {

// Nearest-rank percentile of an unsorted sample (p in 0..100); 0 if empty.
double Percentile(std::vector<double> values, double p);
// The same of a sample already sorted ascending (no copy: sort once, read
// every percentile).
double SortedPercentile(const std::vector<double>& sorted, double p);

// Every warning of the run (scenario/scenario_warnings.h): the scenario's,
// then the end-of-run ones; summary.json's `warnings`.
std::vector<std::string> RunSummaryWarnings(const Scenario& sc, const Counters& c);

nlohmann::json BuildSummary(const Simulation& sim, const RunStats& stats);
// Writes the results directory's files; returns the summary it wrote as
// summary.json (the command line prints from it rather than build it twice).
nlohmann::json WriteResults(const Simulation& sim, const RunStats& stats, const std::string& dir);

}  // namespace rocesim
