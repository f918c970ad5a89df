// Traffic generators: expand a scenario's traffic entries (scenario.h
// TrafficSpec) into flows once the fabric is built and every host's link rate
// is known. Each entry draws from its own random stream of the scenario seed
// (TrafficStream(index)), so runs are reproducible and appending an entry
// does not change the flows of the earlier ones. Sources of each pattern:
//   poisson      Poisson arrivals per host at a target load with sizes from a
//                flow-size CDF (data/README.md: inter-arrival mean =
//                mean_size * 8 / (host_rate * load)); destinations uniform, or
//                uniform within groups of consecutive hosts (seed 002 §4.3:
//                432 hosts in 12 groups of 36 at 60% load).
//   hotspot      seed 002 §4.2 "Hot-spot traffic pattern": each host sends 85%
//                of its traffic to uniform destinations ("background") and 15%
//                to a fixed 12.5% of the hosts ("hot").
//   permutation  every host sends one flow to a distinct other host (a random
//                derangement), all at `start`.
//   all_to_all   every host sends one flow to every other host at `start`.
//   incast       senders -> receiver at `start`, repeated every `period`
//                `count` times (periodic incasts over background traffic, as
//                in the HPCC paper's (Li et al., SIGCOMM 2019) incast runs).
//   microburst   seed 002 §4.2 "Incast with burst flow": one flow at line rate
//                lasting `duration` (20 us there).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "core/time.h"
#include "scenario/scenario.h"
#include "workload/collectives.h"

namespace rocesim {

struct FabricLayout;

// The Rng stream of traffic entry `index` (core/rng.h; disjoint from the
// switches' ECN streams).
uint64_t TrafficStream(size_t index);

// Every host's link rate in bits per second, indexed by host id.
std::vector<int64_t> HostLinkRates(const FabricLayout& layout);

// The flows of traffic entry `index`, sorted by start time (stable).
// `host_rate_bps` has one entry per host of the topology; `mtu_bytes` is the
// payload per packet (microburst sizes are whole packets).
std::vector<FlowSpec> ExpandTraffic(const TrafficSpec& t, size_t index, uint64_t seed,
                                    const std::vector<int64_t>& host_rate_bps, int mtu_bytes);

// Entry `index` with what its flows wait for (scenario.h FlowSpec::after):
// joins, and for a collective its instances (workload/collectives.h).
struct ExpandedTraffic {
  std::vector<FlowSpec> flows;
  std::vector<JoinSpec> joins;
  std::vector<CollectiveInstance> collectives;
  std::vector<uint16_t> flow_step;  // collectives: each flow's step in its instance
};
ExpandedTraffic ExpandTrafficGraph(const TrafficSpec& t, size_t index, uint64_t seed,
                                   const std::vector<int64_t>& host_rate_bps, int mtu_bytes);
// Every entry of `scenario`, as ExpandTrafficGraph gives it: a partitioned
// run expands the workload once for its cut and all its replicas.
std::vector<ExpandedTraffic> ExpandWorkload(const Scenario& scenario,
                                            const std::vector<int64_t>& host_rate_bps);

// One flow of entry `t` from `src` to `dst`: its priority, congestion
// control, start rate and rate cap are the entry's.
FlowSpec EntryFlow(const TrafficSpec& t, int src, int dst, int64_t size, Time start,
                   const std::string& tag);

// The participating hosts of a generator: t.hosts, or 0 .. hosts-1 if empty.
std::vector<int> ParticipatingHosts(const TrafficSpec& t, int hosts);
// The hot set of a kHotspot entry (sorted), as ExpandTraffic chooses it.
std::vector<int> HotspotHosts(const TrafficSpec& t, size_t index, uint64_t seed, int hosts);

std::string_view TrafficKindName(TrafficKind kind);

// What one traffic entry offered (summary.json "traffic").
struct TrafficReport {
  TrafficKind kind = TrafficKind::kFlows;
  uint64_t flows = 0;
  int64_t offered_bytes = 0;
  // kPoisson / kHotspot only: target load and realised load =
  // offered_bytes * 8 / (sum of participating hosts' rates * span).
  bool has_load = false;
  double target_load = 0;
  double realised_load = 0;
  std::vector<int> hot_hosts;  // kHotspot
};

// `expanded` (flows, offered bytes), when the caller already expanded the
// entry (a simulation has): no second expansion.
struct EntryTotals {
  uint64_t flows = 0;
  int64_t bytes = 0;
};
TrafficReport ReportTraffic(const TrafficSpec& t, size_t index, uint64_t seed,
                            const std::vector<int64_t>& host_rate_bps, int mtu_bytes,
                            const EntryTotals* expanded = nullptr);
std::vector<TrafficReport> ReportTraffic(const Scenario& scenario,
                                         const std::vector<int64_t>& host_rate_bps,
                                         const std::vector<EntryTotals>* expanded = nullptr);
// summary.json "traffic": one object per entry with index, type, flows,
// offered_bytes and, for poisson / hotspot, cdf, cdf_mean_bytes, span_s,
// target_load and realised_load (hotspot also hot_hosts).
nlohmann::json TrafficSummaryJson(const Scenario& scenario,
                                  const std::vector<int64_t>& host_rate_bps,
                                  const std::vector<EntryTotals>* expanded = nullptr);

}  // namespace rocesim
