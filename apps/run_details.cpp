#include "apps/run_details.h"

#include <fmt/format.h>

#include <cstdio>

#include "apps/huge_page_heap.h"
#include "sim/partition.h"
#include "sim/simulation.h"

namespace rocesim {
namespace {

std::string Plural(uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// "8 hosts, 3 switches, 10 links"
std::string FabricSize(const FabricLayout& l) {
  return fmt::format("{}, {}, {}", Plural(l.host_nodes.size(), "host", "hosts"),
                     Plural(l.num_switches, "switch", "switches"),
                     Plural(l.ports.size() / 2, "link", "links"));
}

}  // namespace

void PrintWarnings(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) fmt::print(stderr, "rocesim: warning: {}\n", w);
}

void CheckScenario(const Scenario& scenario, const CutRequest& request, bool print,
                   std::shared_ptr<const FabricLayout> laid_out) {
  const Simulation sim(scenario, std::move(laid_out));
  const FabricLayout& layout = *sim.fabric().layout;
  std::string cut = "1 partition (a serial run)";
  if (request.ranks > 1 || request.threads > 1 || request.partitions > 1) {
    const Partitioning p =
        PartitionForRun(layout, scenario, request.ranks, request.threads, request.partitions);
    cut = p.Describe(layout.quantum);
    if (request.ranks > 1)
      cut += fmt::format(" ({} ranks x {} partition{})", request.ranks, p.parts / request.ranks,
                         p.parts / request.ranks == 1 ? "" : "s");
    if (const std::string note = WindowNote(p, layout.quantum, scenario); !note.empty())
      cut += "\nrocesim: note: " + note;
  }
  if (!print) return;
  fmt::print("rocesim: {} ({}) is valid: {}; {} from {}; duration {} ms; {}\n", scenario.name,
             scenario.source_file, FabricSize(layout),
             Plural(sim.fabric().flows.Count(), "flow", "flows"),
             Plural(scenario.traffic.size(), "traffic entry", "traffic entries"),
             ToSeconds(scenario.duration) * 1e3, cut);
}

void PrintRunDetails(const Simulation& sim) {
  const Scenario& sc = sim.scenario();
  fmt::print(stderr, "rocesim: {} from {}, seed {}: {}\n", sc.name, sc.source_file, sc.seed,
             FabricSize(*sim.fabric().layout));
  const auto& totals = sim.entry_totals();
  for (size_t i = 0; i < sc.traffic.size() && i < totals.size(); ++i)
    fmt::print(stderr, "rocesim:   traffic[{}] {}: {}, {} bytes\n", i,
               TrafficKindName(sc.traffic[i].kind), Plural(totals[i].flows, "flow", "flows"),
               totals[i].bytes);
  fmt::print(stderr, "rocesim: {}\n", HugePageHeapNote());
}

}  // namespace rocesim
