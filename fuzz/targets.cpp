#include "fuzz/targets.h"

#include <algorithm>
#include <fstream>
#include <optional>

#include "fuzz/partitioned_against_serial.h"
#include "net/fabric_layout.h"
#include "scenario/hpcc_config_import.h"
#include "scenario/scenario_reader.h"
#include "sim/partition.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"
#include "sweep/sweep_spec.h"
#include "topo/hpcc_topology_file.h"
#include "workload/dependency_file.h"
#include "workload/flow_size_cdf.h"
#include "workload/hpcc_flow_file.h"
#include "workload/simai_workload.h"

namespace rocesim::fuzz {

namespace {

// Bounds that keep one run of the scenario target short: a fuzzer tests
// robustness, not the physics of a large fabric.
constexpr int kMaxHosts = 512;
constexpr Time kMaxDuration = 50 * kMicrosecond;

void Bound(Scenario& sc) {
  sc.duration = std::min(sc.duration, kMaxDuration);
  for (TrafficSpec& t : sc.traffic) {
    t.span = std::min(t.span, kMaxDuration);
    t.count = std::min(t.count, 4);
    t.collective.iterations = std::min(t.collective.iterations, 2);
  }
}

// The scenario a fuzz input describes, bounded, or nullopt when the reader
// refuses it (its own error: the clean outcome) or its fabric is too large.
std::optional<Scenario> BoundedScenario(const std::string& text, const std::string& examples) {
  Scenario sc;
  try {
    sc = ParseScenarioText(text, "fuzz.yaml", examples, {}, std::nullopt);
  } catch (const ScenarioError&) {
    return std::nullopt;
  }
  if (ExpectedHostCount(sc.topology) > kMaxHosts) return std::nullopt;
  Bound(sc);
  return sc;
}

void RunScenarioText(const std::string& text, const std::string& examples) {
  const std::optional<Scenario> sc = BoundedScenario(text, examples);
  if (!sc) return;
  try {
    Simulation sim(*sc);
    const RunStats stats = sim.Run();
    BuildSummary(sim, stats).dump();
  } catch (const BuildError&) {
    // A topology rocesim cannot build, refused with its reason.
  } catch (const ScenarioError&) {
  }
}

std::string WriteScratch(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

std::vector<Target> Targets(const std::string& source_dir, const std::string& scratch_dir) {
  const std::string examples = source_dir + "/examples";
  std::vector<Target> out;
  out.push_back({"scenario",
                 {"examples", "examples/aicb", "bench", "fuzz/corpus/scenario"},
                 {".yaml"},
                 [examples](const std::string& in) { RunScenarioText(in, examples); }});
  out.push_back({"scenario_partitioned",
                 {"examples", "examples/aicb", "fuzz/corpus/scenario"},
                 {".yaml"},
                 [examples, scratch_dir](const std::string& in) {
                   if (const std::optional<Scenario> sc = BoundedScenario(in, examples))
                     // A partition per thread, or three the two threads
                     // share (each window a thread runs its own, then any
                     // the other has not begun), as the input's length falls.
                     ExpectPartitionedRunAsSerial(*sc, 2 + static_cast<uint32_t>(in.size() % 2),
                                                  scratch_dir + "/partitioned");
                 }});
  out.push_back({"hpcc_topology",
                 {"bench/hpcc"},
                 {"fattree_k8.txt", "fat320.txt"},
                 [](const std::string& in) {
                   try {
                     ParseHpccTopology(in, "fuzz.txt");
                   } catch (const TopologyFileError&) {
                   }
                 }});
  out.push_back(
      {"hpcc_flows", {"bench/hpcc"}, {"l30_10ms.txt", "incast64.txt"}, [](const std::string& in) {
         try {
           ParseHpccFlows(in, "fuzz.txt", 320);
         } catch (const FlowFileError&) {
         }
       }});
  out.push_back({"hpcc_config",
                 {"bench/hpcc"},
                 {"config_k8_dcqcn_ws30.txt"},
                 [scratch_dir](const std::string& in) {
                   const std::string path = WriteScratch(scratch_dir, "config.txt", in);
                   try {
                     ImportHpccConfig(path, scratch_dir + "/imported.yaml");
                   } catch (const HpccImportError&) {
                   }
                 }});
  out.push_back({"cdf", {"data/cdf"}, {".txt"}, [](const std::string& in) {
                   try {
                     ParseCdf(in, "fuzz.txt");
                   } catch (const CdfError&) {
                   }
                 }});
  out.push_back({"sweep",
                 {"examples", "fuzz/corpus/sweep"},
                 {"sweep-cc-load.yaml", ".sweep.yaml"},
                 [examples](const std::string& in) {
                   try {
                     const sweep::SweepSpec spec = sweep::ParseSweepText(in, "fuzz.yaml", examples);
                     const auto points = sweep::ExpandPoints(spec);
                     // Loading every point's scenario is the slow part: a few.
                     if (points.size() <= 8) sweep::ValidatePoints(spec, points);
                   } catch (const ScenarioError&) {
                   }
                 }});
  out.push_back({"dependency_csv", {"fuzz/corpus/dependency"}, {".csv"}, [](const std::string& in) {
                   try {
                     ParseDependencyCsv(in, "fuzz.csv", 16, 3, "dependency");
                   } catch (const DependencyFileError&) {
                   }
                 }});
  out.push_back(
      {"dependency_json", {"fuzz/corpus/dependency"}, {".json"}, [](const std::string& in) {
         try {
           ParseDependencyJson(in, "fuzz.json", 16, 3, "dependency");
         } catch (const DependencyFileError&) {
         }
       }});
  out.push_back({"simai_workload",
                 {"examples/aicb", "fuzz/corpus/simai"},
                 {".txt"},
                 [](const std::string& in) {
                   try {
                     ParseSimaiWorkload(in, "fuzz.txt");
                   } catch (const SimaiWorkloadError&) {
                   }
                 }});
  return out;
}

}  // namespace rocesim::fuzz
