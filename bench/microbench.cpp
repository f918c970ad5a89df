// Micro-benchmarks (Google Benchmark): the event queue alone, and one switch
// hop of a data packet (a single line-rate flow through a one-switch star, so
// every packet crosses two links and one switch).
#include <benchmark/benchmark.h>

#include "core/event_queue.h"
#include "core/rng.h"
#include "scenario/scenario_reader.h"
#include "sim/simulation.h"

namespace {

using namespace rocesim;

// Steady state of a queue holding `n` events: pop the earliest, push one later.
void BM_EventQueueHold(benchmark::State& state) {
  const int64_t n = state.range(0);
  EventQueue q;
  Rng rng(1, 1);
  for (int64_t i = 0; i < n; ++i)
    q.Push(static_cast<Time>(rng.Next() % 1000000), EventKind::kPortWake, 0);
  for (auto _ : state) {
    const Event e = q.Pop();
    q.Push(e.time + static_cast<Time>(rng.Next() % 1000000), EventKind::kPortWake, e.target);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHold)->Arg(64)->Arg(4096)->Arg(262144);

void BM_SwitchHop(benchmark::State& state) {
  const std::string yaml = R"(
name: hop
duration: 1s
topology: {type: star, hosts: 2}
switch: {ecn: {enabled: false}}
traffic:
  - type: flows
    flows: [{src: 0, dst: 1, size: 10MB}]
)";
  const Scenario sc = ParseScenarioText(yaml, "hop.yaml", "", {}, std::nullopt);
  uint64_t packets = 0;
  for (auto _ : state) {
    Simulation sim(sc);
    sim.Run();
    packets += sim.fabric().flows[0].packets;
  }
  // Items are packet-hops through the switch.
  state.SetItemsProcessed(static_cast<int64_t>(packets));
}
BENCHMARK(BM_SwitchHop)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
