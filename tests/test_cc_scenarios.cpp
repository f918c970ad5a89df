// Congestion-control scenario tests against physics (DESIGN.md §6 "Model
// tests against physics"; the congestion-control scenarios issue). Each runs
// a small scenario through the library (ParseScenarioText / LoadScenario ->
// Simulation), samples the fabric mid-run with Simulation::Advance, and checks
// what the algorithm is meant to achieve rather than how it is coded:
//  1. DCQCN (seed 000 §7; Zhu et al. SIGCOMM'15): two flows into one port
//     converge to equal rates, keep the port busy, and hold the queue between
//     K_min and K_max;
//  2. DCTCP (Alizadeh et al. SIGCOMM'10): with K_min = K_max = K the queue
//     oscillates around K at high utilisation;
//  3. HPCC (Li et al. SIGCOMM'19): the queue stays near zero at ~eta
//     utilisation and the flows share evenly;
//  4. TIMELY with per-packet updates (seed 004): fair, busy, bounded queue;
//  5. DCQCN cuts the pause frames of an incast by far (still lossless);
//  6. DCQCN rescues the victim of congestion spreading (seed 000 §1);
//  7. different algorithms on one port (per-flow `cc:`) coexist;
//  8. the CLI's rates.csv shows DCQCN's sawtooth and queues.csv the bottleneck;
//  9. examples/cc-compare.yaml runs cleanly under every algorithm.
//
// Throughput is delivered payload: the flows' snd_una (packets acknowledged,
// x MTU) sampled at the half-way point and at the end. Queues are the
// bottleneck egress data queue sampled every 10 us over the last half. The
// goodput ceiling at 100G with 1000 B payload, 62 B headers and 20 B IFG is
// 100G * 1000 / 1082 = 92.4 Gb/s. Measured values are quoted per test.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_cc_scenarios {
namespace {

constexpr double kCeiling100G = 100e9 * 1000.0 / 1082.0;  // goodput ceiling, b/s
constexpr Time kSampleStep = 10 * kMicrosecond;
constexpr int kDataPrio = 3;

// The egress port of the switch towards `host` (its queues hold what waits
// for the host's link).
PortId EgressTo(const Fabric& f, uint32_t host) {
  return f.ports[f.nics[host].port()].peer;
}

double Jain(const std::vector<double>& x) {
  double s = 0, s2 = 0;
  for (double v : x) s += v, s2 += v * v;
  return s2 > 0 ? s * s / (static_cast<double>(x.size()) * s2) : 0.0;
}

// What a run looked like over its measurement window [t_half, t_end].
struct Window {
  std::vector<double> goodput_bps;  // per flow, delivered payload
  double total_bps = 0;
  double q_mean = 0, q_min = 0, q_max = 0;   // bottleneck queue, bytes
  size_t samples = 0, above = 0, below = 0;  // samples vs. a reference level
  bool ran_to_end = true;                    // no flow finished early
  std::string Describe() const {
    std::ostringstream s;
    s << "goodput";
    for (double g : goodput_bps) s << " " << g / 1e9;
    s << " Gb/s (total " << total_bps / 1e9 << "), queue mean " << q_mean << " B [" << q_min << ", "
      << q_max << "], samples " << samples << " above/below ref " << above << "/" << below;
    return s.str();
  }
};

// Runs `sim` to `t_end`, sampling the data queue of `bottleneck` every 10 us
// and the flows' acknowledged packets at t_half and t_end. `ref` is the queue
// level counted as above/below.
Window Measure(Simulation& sim, PortId bottleneck, Time t_half, Time t_end, double ref = 0) {
  Fabric& f = sim.fabric();
  const int mtu = sim.scenario().host.mtu_bytes;
  Window w;
  w.ran_to_end = sim.Advance(t_half);
  std::vector<uint32_t> una0;
  for (const Flow& fl : f.flows) una0.push_back(fl.snd_una);
  double sum = 0;
  w.q_min = 1e300;
  for (Time t = t_half + kSampleStep; t <= t_end && w.ran_to_end; t += kSampleStep) {
    w.ran_to_end = sim.Advance(t);
    const double q = static_cast<double>(f.ports[bottleneck].queue[kDataPrio].bytes);
    sum += q;
    w.q_min = std::min(w.q_min, q);
    w.q_max = std::max(w.q_max, q);
    ++w.samples;
    if (q > ref) ++w.above;
    if (q < ref) ++w.below;
  }
  w.q_mean = w.samples ? sum / static_cast<double>(w.samples) : 0;
  const double secs = ToSeconds(t_end - t_half);
  for (size_t i = 0; i < f.flows.Count(); ++i) {
    const double bits = static_cast<double>(f.flows[i].snd_una - una0[i]) * mtu * 8;
    w.goodput_bps.push_back(bits / secs);
    w.total_bps += bits / secs;
  }
  return w;
}

std::unique_ptr<Simulation> Build(const std::string& yaml,
                                  const std::vector<std::string>& sets = {}) {
  return std::make_unique<Simulation>(ParseScenarioText(yaml, "test.yaml", "", sets, std::nullopt));
}

// Two long flows 1 -> 0 and 2 -> 0 on a 100G star: the port to host 0 is the
// bottleneck. Each test sets host.cc, its block and the ECN marking.
constexpr char kTwoFlows[] = R"(
duration: 10ms
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 32MB}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 1000MB}, {src: 2, dst: 0, size: 1000MB}]
)";

Window RunTwoFlows(const std::vector<std::string>& sets, Time t_end, double ref = 0) {
  auto sim = Build(kTwoFlows, sets);
  const PortId bottleneck = EgressTo(sim->fabric(), 0);
  return Measure(*sim, bottleneck, t_end / 2, t_end, ref);
}

// ---------------------------------------------------------------------------
// 1. DCQCN: fair convergence, busy port, queue in the RED ramp. Measured over
// 5-10 ms: 47.3 and 42.5 Gb/s (Jain 0.997, total 89.8), mean queue 9.7 KB.

TEST(CcScenario, DcqcnTwoFlowsConvergeToEqualRates) {
  const double kmin = 5e3, kmax = 200e3;
  const Window w =
      RunTwoFlows({"host.cc=dcqcn", "host.dcqcn.preset=paper", "switch.ecn.enabled=true",
                   "switch.ecn.kmin=5KB", "switch.ecn.kmax=200KB", "switch.ecn.pmax=1%"},
                  10 * kMillisecond);
  ASSERT_TRUE(w.ran_to_end);
  EXPECT_GE(Jain(w.goodput_bps), 0.99) << w.Describe();
  EXPECT_GT(w.total_bps, 80e9) << w.Describe();
  EXPECT_GT(w.q_mean, kmin) << w.Describe();
  EXPECT_LT(w.q_mean, kmax) << w.Describe();
}

// ---------------------------------------------------------------------------
// 2. DCTCP: with K_min = K_max = K and P_max = 1 the switch marks every packet
// that leaves more than K behind; the window cut by alpha/2 per window of
// marks keeps the queue oscillating around K while the port stays busy.
// Measured: mean 97.8 KB in [94.5, 103] KB (63 samples above K, 437 below),
// 92.4 Gb/s.

TEST(CcScenario, DctcpQueueOscillatesAroundK) {
  const double K = 100e3;
  const Window w = RunTwoFlows({"host.cc=dctcp", "switch.ecn.enabled=true", "switch.ecn.kmin=100KB",
                                "switch.ecn.kmax=100KB", "switch.ecn.pmax=1"},
                               10 * kMillisecond, K);
  ASSERT_TRUE(w.ran_to_end);
  EXPECT_GE(w.q_mean, 0.5 * K) << w.Describe();
  EXPECT_LE(w.q_mean, 1.5 * K) << w.Describe();
  EXPECT_GT(w.above, 0u) << "the queue never exceeded K: " << w.Describe();
  EXPECT_GT(w.below, 0u) << "the queue never fell below K: " << w.Describe();
  EXPECT_GT(w.total_bps, 0.85 * kCeiling100G) << w.Describe();
}

// ---------------------------------------------------------------------------
// 3. HPCC: INT-driven inflight control targets eta = 95% utilisation, so the
// bottleneck queue drains to (near) zero while the port stays busy.
// Measured: mean queue 0.26 KB (max 1 KB), 44.4 + 44.9 = 89.3 Gb/s.

TEST(CcScenario, HpccKeepsQueueNearZeroAtHighUtilisation) {
  const Window w = RunTwoFlows({"host.cc=hpcc", "switch.ecn.enabled=false"}, 10 * kMillisecond);
  ASSERT_TRUE(w.ran_to_end);
  EXPECT_LT(w.q_mean, 10e3) << w.Describe();
  EXPECT_GT(w.total_bps, 0.85 * kCeiling100G) << w.Describe();
  ASSERT_EQ(w.goodput_bps.size(), 2u);
  const double a = w.goodput_bps[0], b = w.goodput_bps[1];
  EXPECT_LT(std::abs(a - b), 0.1 * std::max(a, b)) << w.Describe();
}

// ---------------------------------------------------------------------------
// 4. TIMELY with per-packet updates (seed 004's recommendation without segment
// pacing: T_low = 0): examples/timely-two-flows.yaml, the second flow joining
// at 500 us. Over the second half both flows share the port evenly.
// Measured: 46.2 + 46.2 Gb/s, mean queue 37.8 KB.

std::string Example(const std::string& name) {
  return std::string(ROCESIM_SOURCE_DIR) + "/examples/" + name;
}

TEST(CcScenario, TimelyPerPacketTwoFlowsShareFairly) {
  Simulation sim(LoadScenario(Example("timely-two-flows.yaml"), {}, std::nullopt));
  ASSERT_EQ(sim.scenario().host.cc, CcKind::kTimely);
  const Time end = sim.scenario().duration;
  const Window w = Measure(sim, EgressTo(sim.fabric(), 0), end / 2, end);
  ASSERT_TRUE(w.ran_to_end);
  EXPECT_GE(Jain(w.goodput_bps), 0.99) << w.Describe();
  EXPECT_GT(w.total_bps, 0.85 * kCeiling100G) << w.Describe();
  EXPECT_LT(w.q_mean, 100e3) << w.Describe();
}

// ---------------------------------------------------------------------------
// 5. A 16-to-1 incast (examples/dcqcn-incast.yaml): DCQCN cuts the senders
// within microseconds of the first marks, so the switch needs far fewer
// pause frames than PFC alone; both stay lossless. Measured: 36 vs 762.

struct Outcome {
  uint64_t pauses = 0, drops = 0;
  bool all_done = false;
  size_t flows = 0, finished = 0;
};

Outcome RunToEnd(Simulation& sim) {
  const RunStats st = sim.Run();
  const Fabric& f = sim.fabric();
  Outcome o;
  o.pauses = f.counters.pause_sent;
  o.drops = f.counters.TotalDrops();
  o.all_done = st.all_flows_done;
  o.flows = f.flows.Count();
  for (const Flow& fl : f.flows) o.finished += fl.Finished() ? 1 : 0;
  return o;
}

TEST(CcScenario, DcqcnIncastSendsFarFewerPauseFrames) {
  Simulation dcqcn(LoadScenario(Example("dcqcn-incast.yaml"), {}, std::nullopt));
  ASSERT_EQ(dcqcn.scenario().host.cc, CcKind::kDcqcn);
  Simulation none(LoadScenario(Example("dcqcn-incast.yaml"), {"host.cc=none"}, std::nullopt));
  const Outcome d = RunToEnd(dcqcn);
  const Outcome n = RunToEnd(none);
  EXPECT_GT(n.pauses, 0u) << "the incast must congest the port";
  EXPECT_LE(d.pauses * 5, n.pauses) << "dcqcn " << d.pauses << " vs none " << n.pauses;
  EXPECT_EQ(d.drops, 0u);
  EXPECT_EQ(n.drops, 0u);
  EXPECT_TRUE(d.all_done) << d.finished << "/" << d.flows;
  EXPECT_TRUE(n.all_done) << n.finished << "/" << n.flows;
  EXPECT_EQ(d.flows, 16u);
}

// ---------------------------------------------------------------------------
// 6. Congestion spreading (seed 000 §1, examples/congestion-spreading.yaml):
// under PFC alone the victim X -> Y is paused with F's share of the incast
// and gets about G's bandwidth / 6; with DCQCN the incast senders slow down
// before PFC triggers and the victim keeps most of the inter-switch link.
// Measured (size * 8 / FCT): 68.3 Gb/s with DCQCN, 15.7 Gb/s with PFC only.

double VictimGbps(const std::vector<std::string>& sets) {
  Simulation sim(LoadScenario(Example("congestion-spreading.yaml"), sets, std::nullopt));
  sim.Run();
  const Flow& v = sim.fabric().flows.at(6);
  EXPECT_EQ(v.src, 8u);
  EXPECT_EQ(v.dst, 6u);
  EXPECT_TRUE(v.Finished()) << "victim did not finish";
  if (!v.Finished()) return 0;
  return static_cast<double>(v.size_bytes) * 8 / ToSeconds(v.finish - v.start) / 1e9;
}

TEST(CcScenario, DcqcnRescuesTheCongestionSpreadingVictim) {
  const double with_dcqcn =
      VictimGbps({"host.cc=dcqcn", "host.dcqcn.preset=hpcc-sim", "switch.ecn.enabled=true",
                  "switch.ecn.kmin=400KB", "switch.ecn.kmax=1600KB", "switch.ecn.pmax=0.2"});
  const double without = VictimGbps({"host.cc=none"});
  EXPECT_GT(with_dcqcn, 50.0) << "victim under DCQCN: " << with_dcqcn << " Gb/s";
  EXPECT_LT(without, 25.0) << "victim under PFC only: " << without << " Gb/s";
}

// ---------------------------------------------------------------------------
// 7. Per-flow `cc:` overrides: a DCQCN flow and an HPCC flow into one port.
// Both must finish at a useful rate (size * 8 / FCT; measured: DCQCN 82.4,
// HPCC 43.5 Gb/s). Note: while both are active HPCC gets only ~1-2.5 Gb/s
// (DCQCN ~90): HPCC backs off from the queue DCQCN keeps above K_min. That is
// the known behaviour of a queue-targeting scheme next to an ECN-based one,
// not asserted here; the HPCC flow catches up once the DCQCN flow is done.

TEST(CcScenario, MixedAlgorithmsShareAPort) {
  Simulation sim(ParseScenarioText(R"(
duration: 10ms
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 32MB, ecn: {enabled: true, kmin: 5KB, kmax: 200KB, pmax: 1%}}
host: {cc: none}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 20MB, cc: dcqcn}, {src: 2, dst: 0, size: 20MB, cc: hpcc}]
)",
                                   "test.yaml", "", {}, std::nullopt));
  const RunStats st = sim.Run();
  const Fabric& f = sim.fabric();
  ASSERT_EQ(f.cc.size(), 2u);
  EXPECT_NE(dynamic_cast<const Dcqcn*>(f.cc[0].get()), nullptr) << "flow 0 must run DCQCN";
  EXPECT_NE(dynamic_cast<const Hpcc*>(f.cc[1].get()), nullptr) << "flow 1 must run HPCC";
  EXPECT_TRUE(st.all_flows_done);
  for (const Flow& fl : f.flows) {
    ASSERT_TRUE(fl.Finished()) << "flow " << fl.id;
    const double gbps = static_cast<double>(fl.size_bytes) * 8 / ToSeconds(fl.finish - fl.start);
    EXPECT_GT(gbps, 10e9) << "flow " << fl.id << ": " << gbps / 1e9 << " Gb/s";
  }
  EXPECT_EQ(f.counters.TotalDrops(), 0u);
}

// ---------------------------------------------------------------------------
// 8. The rate monitor through the CLI: rates.csv shows a DCQCN flow's rate
// cut below line rate once the queue builds, then recovering (the sawtooth),
// and queues.csv samples the bottleneck queue. Measured: 100 -> 50 -> 25 Gb/s
// in the first 100 us, recovery to ~50, a second cut near 800 us, recovery.

using test::ReadFile;

using test::RunCli;

// Rows of a CSV with a header line, as column name -> value.
std::vector<std::map<std::string, long long>> ReadCsv(const std::string& path) {
  std::istringstream in(ReadFile(path));
  std::string line;
  std::vector<std::string> cols;
  std::vector<std::map<std::string, long long>> rows;
  if (!std::getline(in, line)) return rows;
  {
    std::istringstream h(line);
    std::string c;
    while (std::getline(h, c, ',')) cols.push_back(c);
  }
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string v;
    std::map<std::string, long long> row;
    for (size_t i = 0; i < cols.size() && std::getline(l, v, ','); ++i)
      row[cols[i]] = std::stoll(v);
    rows.push_back(std::move(row));
  }
  return rows;
}

constexpr char kMonitoredDcqcn[] = R"(name: cc-monitor
duration: 5ms
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
switch: {buffer: 32MB, ecn: {enabled: true, kmin: 5KB, kmax: 200KB, pmax: 1%}}
host: {cc: dcqcn, dcqcn: {preset: paper}}
monitors: {interval: 10us}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 1000MB}, {src: 2, dst: 0, size: 1000MB}]
)";

TEST(CcScenario, RateMonitorShowsDcqcnSawtooth) {
  if (std::getenv("ROCESIM_BIN") == nullptr) GTEST_SKIP() << "ROCESIM_BIN not set (run via ctest)";
  const std::string dir =
      ::testing::TempDir() + "rocesim_cc_monitor_" + std::to_string(::getpid()) + "/";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = dir + "monitored.yaml";
  std::ofstream(file) << kMonitoredDcqcn;
  ASSERT_EQ(RunCli("run " + file + " -q -o " + dir + "out"), 0);

  const auto rates = ReadCsv(dir + "out/rates.csv");
  ASSERT_FALSE(rates.empty());
  const long long line = 100'000'000'000;
  const std::vector<long long> r0 = [&] {  // flow 0's rate, in time order
    std::vector<long long> r;
    for (const auto& row : rates)
      if (row.at("flow") == 0) r.push_back(row.at("rate_bps"));
    return r;
  }();
  ASSERT_GT(r0.size(), 100u);
  EXPECT_EQ(r0.front(), line) << "DCQCN starts at line rate";
  const auto first_cut = std::find_if(r0.begin(), r0.end(), [&](long long r) { return r < line; });
  ASSERT_TRUE(first_cut != r0.end()) << "the rate never dropped below line rate";
  // The sawtooth: after the first cut the rate recovers, is cut again and
  // recovers again (direction changes between consecutive samples).
  auto next = [&](std::vector<long long>::const_iterator from, bool rise) {
    for (auto it = from; it != r0.end(); ++it)
      if (rise ? *it > *(it - 1) : *it < *(it - 1)) return it;
    return r0.end();
  };
  const auto rise1 = next(first_cut + 1, true);
  ASSERT_TRUE(rise1 != r0.end()) << "the rate never rose after the first cut";
  const auto cut2 = next(rise1 + 1, false);
  ASSERT_TRUE(cut2 != r0.end()) << "the rate was never cut again after recovering";
  EXPECT_TRUE(next(cut2 + 1, true) != r0.end()) << "no recovery after the second cut";
  // Recovery is substantial: from the lowest rate to at least 1.5x it.
  const auto lowest = std::min_element(first_cut, r0.end());
  EXPECT_GE(*std::max_element(lowest, r0.end()), *lowest * 3 / 2) << "lowest " << *lowest << " b/s";

  // queues.csv has rows for the switch port towards host 0.
  Simulation ref(ParseScenarioText(kMonitoredDcqcn, "monitored.yaml", "", {}, std::nullopt));
  const Port& bottleneck = ref.fabric().ports[EgressTo(ref.fabric(), 0)];
  size_t rows = 0;
  long long peak = 0;
  for (const auto& row : ReadCsv(dir + "out/queues.csv")) {
    if (row.at("node") == bottleneck.node && row.at("port") == bottleneck.local &&
        row.at("priority") == kDataPrio) {
      ++rows;
      peak = std::max(peak, row.at("bytes"));
    }
  }
  EXPECT_GT(rows, 10u) << "queues.csv has no rows for the bottleneck";
  EXPECT_GT(peak, 5000) << "the bottleneck queue never passed K_min";
  std::filesystem::remove_all(dir);
}

// ---------------------------------------------------------------------------
// 9. examples/cc-compare.yaml under every algorithm, with the ECN settings of
// examples/cc-compare.sh: every flow completes and nothing is dropped. One
// test per algorithm (~0.35 s each); measured pause frames: none 10680,
// dcqcn 114, timely 116, dctcp 0, hpcc 0.

struct CcCompareCase {
  const char* name;
  std::vector<std::string> sets;
};

// Names the case in test listings (ctest) instead of a byte dump.
void PrintTo(const CcCompareCase& c, std::ostream* os) {
  *os << c.name;
}

class CcCompare : public ::testing::TestWithParam<CcCompareCase> {};

TEST_P(CcCompare, CompletesEveryFlowWithoutDrops) {
  const CcCompareCase& c = GetParam();
  Simulation sim(LoadScenario(Example("cc-compare.yaml"), c.sets, std::nullopt));
  const Outcome o = RunToEnd(sim);
  EXPECT_EQ(o.flows, 38u);
  EXPECT_TRUE(o.all_done) << c.name << ": " << o.finished << "/" << o.flows << " flows done";
  EXPECT_EQ(o.drops, 0u) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    CcScenario, CcCompare,
    ::testing::Values(CcCompareCase{"none", {"host.cc=none", "switch.ecn.enabled=false"}},
                      CcCompareCase{"dcqcn", {"host.cc=dcqcn"}},
                      CcCompareCase{"timely", {"host.cc=timely", "switch.ecn.enabled=false"}},
                      CcCompareCase{"dctcp",
                                    {"host.cc=dctcp", "switch.ecn.kmin=100KB",
                                     "switch.ecn.kmax=100KB", "switch.ecn.pmax=1"}},
                      CcCompareCase{"hpcc", {"host.cc=hpcc", "switch.ecn.enabled=false"}}),
    [](const ::testing::TestParamInfo<CcCompareCase>& info) {
      return std::string(info.param.name);
    });

}  // namespace
}  // namespace test_cc_scenarios
}  // namespace rocesim
