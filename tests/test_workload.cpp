// Tests of the traffic generators (workload/generators.h) and flow-size CDFs
// (workload/flow_size_cdf.h): sampling and mean of CDFs, realised load and
// inter-arrival times of Poisson traffic, determinism, the seed 002 hot-spot
// pattern, permutation, all-to-all, periodic incast, microburst sizes, group
// destinations, the reader's validation of every generator field, and the
// per-entry traffic report in summary.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"
#include "tests/sim_test_support.h"
#include "workload/flow_size_cdf.h"
#include "workload/generators.h"

namespace rocesim {
namespace test_workload {
namespace {

constexpr int64_t k100G = 100'000'000'000;

Scenario ParseWorkloadScenario(const std::string& yaml, const std::string& base_dir = "") {
  return ParseScenarioText(yaml, "x.yaml", base_dir, {}, std::nullopt);
}

std::string WorkloadErrorOf(const std::string& yaml, const std::string& base_dir = "") {
  try {
    ParseWorkloadScenario(yaml, base_dir);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return "";
}

std::vector<CdfPoint> Builtin(const std::string& name) {
  return ReadCdfFile(BuiltinCdfPath(name));
}

TrafficSpec PoissonSpec(double load, Time span, const std::string& cdf = "websearch") {
  TrafficSpec t;
  t.kind = TrafficKind::kPoisson;
  t.load = load;
  t.span = span;
  t.cdf_name = cdf;
  t.cdf = Builtin(cdf);
  t.tag = "poisson";
  return t;
}

std::vector<FlowSpec> Expand(const TrafficSpec& t, int hosts, uint64_t seed = 1,
                             int64_t rate = k100G, size_t index = 0, int mtu = 1000) {
  return ExpandTraffic(t, index, seed, std::vector<int64_t>(hosts, rate), mtu);
}

// ---- CDFs ----

TEST(WorkloadCdf, InterpolatesHandMadeCdfExactly) {
  const FlowSizeCdf cdf({{100, 0}, {200, 50}, {1000, 100}});
  EXPECT_DOUBLE_EQ(cdf.Quantile(0), 100);
  EXPECT_DOUBLE_EQ(cdf.Quantile(25), 150);
  EXPECT_DOUBLE_EQ(cdf.Quantile(50), 200);
  EXPECT_DOUBLE_EQ(cdf.Quantile(75), 600);
  EXPECT_DOUBLE_EQ(cdf.Quantile(99.5), 992);
  // An atom below the first percent, and a jump (two points at one percent).
  const FlowSizeCdf atom({{10, 20}, {20, 100}});
  EXPECT_DOUBLE_EQ(atom.Quantile(5), 10);
  EXPECT_DOUBLE_EQ(atom.Quantile(60), 15);
  const FlowSizeCdf jump({{100, 0}, {100, 50}, {300, 50}, {400, 100}});
  EXPECT_DOUBLE_EQ(jump.Quantile(49.99), 100);
  EXPECT_DOUBLE_EQ(jump.Quantile(50), 300);
  EXPECT_DOUBLE_EQ(jump.Quantile(75), 350);
}

TEST(WorkloadCdf, MeanUnderLinearInterpolation) {
  // 50% uniform on [100, 200] (mean 150) + 50% uniform on [200, 1000] (mean 600).
  EXPECT_DOUBLE_EQ(FlowSizeCdf({{100, 0}, {200, 50}, {1000, 100}}).Mean(), 375);
  // 20% atom at 10 + 80% uniform on [10, 20]: 2 + 12.
  EXPECT_DOUBLE_EQ(FlowSizeCdf({{10, 20}, {20, 100}}).Mean(), 14);
  // websearch by hand from data/cdf/websearch.txt: sum of (dp/100) * midpoint.
  const double hand = 0.15 * 5e3 + 0.05 * 15e3 + 0.10 * 25e3 + 0.10 * 40e3 + 0.13 * 65e3 +
                      0.07 * 140e3 + 0.10 * 600e3 + 0.10 * 1.5e6 + 0.10 * 3.5e6 + 0.07 * 7.5e6 +
                      0.03 * 20e6;  // = 1,711,250
  EXPECT_DOUBLE_EQ(hand, 1'711'250);
  const FlowSizeCdf web(Builtin("websearch"));
  EXPECT_NEAR(web.Mean(), hand, 1e-6 * hand);
  EXPECT_NEAR(web.Mean(), 1.71e6, 0.01e6);  // data/README.md
}

// The interpolated CDF (percent) at size x: the inverse of Quantile.
double CdfAt(const std::vector<CdfPoint>& p, double x) {
  double pct = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i].size_bytes <= x) {
      pct = p[i].percent;
    } else {
      if (i > 0) {
        pct = p[i - 1].percent + (p[i].percent - p[i - 1].percent) * (x - p[i - 1].size_bytes) /
                                     (p[i].size_bytes - p[i - 1].size_bytes);
      }
      break;
    }
  }
  return pct;
}

TEST(WorkloadCdf, SamplesFollowTheCdfKolmogorovSmirnov) {
  for (const std::string name :
       {"websearch", "fb_hadoop", "datamining", "ali_storage_2019", "google_rpc_2008"}) {
    const FlowSizeCdf cdf(Builtin(name));
    Rng rng(7, 3);
    constexpr int kN = 100'000;
    std::vector<int64_t> s(kN);
    for (int64_t& v : s) v = cdf.Sample(rng);
    std::sort(s.begin(), s.end());
    // Sup distance between the empirical and the interpolated CDF at every
    // breakpoint and between breakpoints. Samples are whole bytes (rounded to
    // nearest), so P(sample <= k) = F(k + 0.5) for k >= 1.
    std::vector<int64_t> at;
    const std::vector<CdfPoint>& p = cdf.points();
    for (size_t i = 0; i < p.size(); ++i) {
      at.push_back(static_cast<int64_t>(p[i].size_bytes));
      if (i > 0) {
        for (double q : {0.25, 0.5, 0.75}) {
          at.push_back(static_cast<int64_t>(p[i - 1].size_bytes +
                                            q * (p[i].size_bytes - p[i - 1].size_bytes)));
        }
      }
    }
    double worst = 0;
    for (int64_t k : at) {
      if (k < 1) continue;
      const double emp =
          static_cast<double>(std::upper_bound(s.begin(), s.end(), k) - s.begin()) / kN;
      worst = std::max(worst, std::abs(emp - CdfAt(p, static_cast<double>(k) + 0.5) / 100));
    }
    // KS critical value at alpha = 0.1% for n = 100k: 1.95 / sqrt(n) = 0.0062.
    EXPECT_LT(worst, 0.0062) << name;
    EXPECT_GT(at.size(), 4u);
  }
}

TEST(WorkloadCdf, SampleMeanWithinTwoPercentAndSizesInRange) {
  for (const std::string name :
       {"websearch", "fb_hadoop", "datamining", "ali_storage_2019", "google_rpc_2008"}) {
    const FlowSizeCdf cdf(Builtin(name));
    Rng rng(11, 5);
    const std::vector<CdfPoint>& p = cdf.points();
    const double lo = std::max(1.0, p.front().size_bytes), hi = p.back().size_bytes;
    constexpr int kN = 1'000'000;  // the heavy tails (1 GB in datamining) need many samples
    double sum = 0;
    for (int i = 0; i < kN; ++i) {
      const int64_t v = cdf.Sample(rng);
      ASSERT_GE(static_cast<double>(v), lo - 0.5) << name;
      ASSERT_LE(static_cast<double>(v), hi + 0.5) << name;
      sum += static_cast<double>(v);
    }
    EXPECT_NEAR(sum / kN / cdf.Mean(), 1.0, 0.02) << name;
  }
}

TEST(WorkloadCdf, RejectsMalformedFiles) {
  EXPECT_THROW(ParseCdf("100 0\n200 50\n", "c.txt"), CdfError);            // no 100
  EXPECT_THROW(ParseCdf("100 0\n50 100\n", "c.txt"), CdfError);            // size decreases
  EXPECT_THROW(ParseCdf("100 60\n200 50\n300 100\n", "c.txt"), CdfError);  // percent decreases
  EXPECT_THROW(ParseCdf("100 abc\n", "c.txt"), CdfError);
  try {
    ParseCdf("# comment\n100 0\n\n200 50 7\n", "c.txt");
    ADD_FAILURE();
  } catch (const CdfError& e) {
    EXPECT_STREQ(e.what(), "c.txt:4: expected `<size bytes> <cumulative percent>`, got 3 fields");
  }
  EXPECT_EQ(ParseCdf("# x\n100 0 # a\n200 100\n", "c.txt").size(), 2u);
}

// ---- Poisson ----

TEST(WorkloadPoisson, RealisedLoadAndInterArrivalMatchTarget) {
  const TrafficSpec t = PoissonSpec(0.3, 200 * kMillisecond);
  const std::vector<FlowSpec> flows = Expand(t, 128);
  ASSERT_GT(flows.size(), 40'000u);
  const TrafficReport r = ReportTraffic(t, 0, 1, std::vector<int64_t>(128, k100G), 1000);
  EXPECT_EQ(r.flows, flows.size());
  ASSERT_TRUE(r.has_load);
  EXPECT_NEAR(r.realised_load, 0.3, 0.3 * 0.05);

  // Inter-arrival mean per host = mean_size * 8 / (rate * load).
  const double expected_gap = FlowSizeCdf(t.cdf).Mean() * 8 / (1e11 * 0.3) * kSecond;
  std::map<int, std::vector<Time>> starts;
  for (const FlowSpec& f : flows) {
    EXPECT_NE(f.src, f.dst);
    EXPECT_GE(f.start, 0);
    EXPECT_LT(f.start, 200 * kMillisecond);
    EXPECT_EQ(f.tag, "poisson");
    starts[f.src].push_back(f.start);
  }
  EXPECT_EQ(starts.size(), 128u);
  double gaps = 0;
  int64_t n = 0;
  for (auto& [src, s] : starts) {
    ASSERT_TRUE(std::is_sorted(s.begin(), s.end()));
    gaps += static_cast<double>(s.back() - s.front());
    n += static_cast<int64_t>(s.size()) - 1;
  }
  EXPECT_NEAR(gaps / static_cast<double>(n), expected_gap, 0.03 * expected_gap);
  EXPECT_TRUE(std::is_sorted(flows.begin(), flows.end(), [](const FlowSpec& a, const FlowSpec& b) {
    return a.start < b.start;
  }));
}

TEST(WorkloadPoisson, ArrivalRateFollowsEachHostsLinkRate) {
  TrafficSpec t = PoissonSpec(0.5, 100 * kMillisecond, "fb_hadoop");
  t.start = 3 * kMillisecond;
  std::vector<int64_t> rates(64, k100G);
  for (int h = 32; h < 64; ++h) rates[h] = 25'000'000'000;
  int64_t fast = 0, slow = 0;
  for (const FlowSpec& f : ExpandTraffic(t, 0, 5, rates, 1000)) {
    (f.src < 32 ? fast : slow)++;
    EXPECT_GE(f.start, 3 * kMillisecond);
    EXPECT_LT(f.start, 103 * kMillisecond);
  }
  EXPECT_NEAR(static_cast<double>(slow) / static_cast<double>(fast), 0.25, 0.02);
  EXPECT_NEAR(ReportTraffic(t, 0, 5, rates, 1000).realised_load, 0.5, 0.025);
}

TEST(WorkloadPoisson, DeterministicPerSeedAndEntry) {
  const TrafficSpec t = PoissonSpec(0.3, 5 * kMillisecond);
  const auto key = [](const std::vector<FlowSpec>& v) {
    std::vector<std::tuple<int, int, int64_t, Time>> out;
    for (const FlowSpec& f : v) out.emplace_back(f.src, f.dst, f.size_bytes, f.start);
    return out;
  };
  const auto a = key(Expand(t, 32, 42));
  ASSERT_GT(a.size(), 100u);
  EXPECT_EQ(a, key(Expand(t, 32, 42)));
  EXPECT_NE(a, key(Expand(t, 32, 43)));
  EXPECT_NE(a, key(Expand(t, 32, 42, k100G, 1)));  // another entry: another stream
}

TEST(WorkloadPoisson, GroupDestinationsStayInGroup) {
  // Seed 002 §4.3: 432 hosts (12-port fat tree) in 12 groups of 36.
  for (const std::string key : {"groups: 12", "group_size: 36"}) {
    const Scenario s = ParseWorkloadScenario(
        "topology: {type: fat_tree, k: 12}\n"
        "traffic: [{type: poisson, load: 60%, cdf: datamining, span: 5ms, " +
        key + "}]\n");
    ASSERT_EQ(s.traffic[0].group_size, 36);
    const std::vector<FlowSpec> flows = Expand(s.traffic[0], 432);
    ASSERT_GT(flows.size(), 1000u);
    for (const FlowSpec& f : flows) {
      EXPECT_EQ(f.src / 36, f.dst / 36) << f.src << " -> " << f.dst;
      EXPECT_NE(f.src, f.dst);
    }
  }
  // A subset of hosts: groups are consecutive participants.
  const Scenario s = ParseWorkloadScenario(
      "topology: {type: star, hosts: 16}\n"
      "traffic: [{type: poisson, load: 90%, cdf: google_rpc_2008, span: 1ms, "
      "hosts: [\"8-15\", 0, 1, 2, 3], groups: 3}]\n");
  const std::vector<int> order = {8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3};
  std::map<int, int> group;
  for (size_t i = 0; i < order.size(); ++i) group[order[i]] = static_cast<int>(i / 4);
  const std::vector<FlowSpec> flows = Expand(s.traffic[0], 16);
  ASSERT_GT(flows.size(), 1000u);
  for (const FlowSpec& f : flows) {
    ASSERT_TRUE(group.count(f.src) && group.count(f.dst));
    EXPECT_EQ(group[f.src], group[f.dst]);
  }
}

// ---- hot-spot (seed 002 §4.2) ----

TEST(WorkloadHotspot, FifteenPercentToAFixedEighthOfTheHosts) {
  TrafficSpec t = PoissonSpec(0.3, 50 * kMillisecond, "fb_hadoop");
  t.kind = TrafficKind::kHotspot;
  const std::vector<FlowSpec> flows = Expand(t, 128, 9);
  const std::vector<int> hot = HotspotHosts(t, 0, 9, 128);
  ASSERT_EQ(hot.size(), 16u);  // 12.5% of 128
  const std::set<int> hot_set(hot.begin(), hot.end());
  EXPECT_NE(hot, HotspotHosts(t, 0, 10, 128));  // chosen from the seed
  int64_t n_hot = 0;
  std::set<int> hot_dsts;
  for (const FlowSpec& f : flows) {
    EXPECT_NE(f.src, f.dst);
    if (f.tag == "hot") {
      ++n_hot;
      EXPECT_TRUE(hot_set.count(f.dst)) << f.dst;
      hot_dsts.insert(f.dst);
    } else {
      EXPECT_EQ(f.tag, "background");
    }
  }
  ASSERT_GT(flows.size(), 50'000u);
  EXPECT_NEAR(static_cast<double>(n_hot) / static_cast<double>(flows.size()), 0.15, 0.01);
  EXPECT_EQ(hot_dsts, hot_set);
  const TrafficReport r = ReportTraffic(t, 0, 9, std::vector<int64_t>(128, k100G), 1000);
  EXPECT_EQ(r.hot_hosts, hot);
  EXPECT_NEAR(r.realised_load, 0.3, 0.015);

  t.hot_fraction = 0.5;
  t.hot_hosts_fraction = 0.25;
  int64_t n_hot2 = 0;
  const std::vector<FlowSpec> flows2 = Expand(t, 64, 9);
  for (const FlowSpec& f : flows2) n_hot2 += f.tag == "hot";
  EXPECT_EQ(HotspotHosts(t, 0, 9, 64).size(), 16u);
  EXPECT_NEAR(static_cast<double>(n_hot2) / static_cast<double>(flows2.size()), 0.5, 0.02);
}

// ---- permutation, all-to-all, incast, microburst ----

TEST(WorkloadPermutation, IsADerangement) {
  TrafficSpec t;
  t.kind = TrafficKind::kPermutation;
  t.size_bytes = 1'000'000;
  t.start = 7 * kMicrosecond;
  t.tag = "permutation";
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const std::vector<FlowSpec> flows = Expand(t, 2 + static_cast<int>(seed), seed);
    ASSERT_EQ(flows.size(), 2 + seed);
    std::set<int> srcs, dsts;
    for (const FlowSpec& f : flows) {
      EXPECT_NE(f.src, f.dst);
      EXPECT_EQ(f.size_bytes, 1'000'000);
      EXPECT_EQ(f.start, 7 * kMicrosecond);
      srcs.insert(f.src);
      dsts.insert(f.dst);
    }
    EXPECT_EQ(srcs.size(), flows.size());
    EXPECT_EQ(dsts, srcs);
  }
  t.hosts = {3, 5, 9, 11};
  std::set<int> dsts;
  for (const FlowSpec& f : Expand(t, 16)) dsts.insert(f.dst);
  EXPECT_EQ(dsts, (std::set<int>{3, 5, 9, 11}));
  // Not always the same derangement.
  t.hosts.clear();
  EXPECT_NE(Expand(t, 16, 1)[0].dst * 100 + Expand(t, 16, 1)[1].dst,
            Expand(t, 16, 2)[0].dst * 100 + Expand(t, 16, 2)[1].dst);
}

TEST(WorkloadAllToAll, EveryOrderedPairOnce) {
  const Scenario s = ParseWorkloadScenario(
      "topology: {type: star, hosts: 12}\n"
      "traffic: [{type: all_to_all, size: 64KB, start: 1us, priority: 4}]\n");
  const std::vector<FlowSpec> flows = Expand(s.traffic[0], 12);
  EXPECT_EQ(flows.size(), 12u * 11u);
  std::set<std::pair<int, int>> pairs;
  for (const FlowSpec& f : flows) {
    EXPECT_NE(f.src, f.dst);
    EXPECT_EQ(f.size_bytes, 64'000);
    EXPECT_EQ(f.priority, 4);
    EXPECT_EQ(f.tag, "all_to_all");
    pairs.insert({f.src, f.dst});
  }
  EXPECT_EQ(pairs.size(), flows.size());
  const Scenario sub = ParseWorkloadScenario(
      "topology: {type: star, hosts: 12}\n"
      "traffic: [{type: all_to_all, size: 1KB, hosts: [\"2-6\"], tag: a2a}]\n");
  EXPECT_EQ(Expand(sub.traffic[0], 12).size(), 20u);
  EXPECT_EQ(Expand(sub.traffic[0], 12)[0].tag, "a2a");
}

TEST(WorkloadIncast, PeriodicTiming) {
  const Scenario s = ParseWorkloadScenario(
      "topology: {type: star, hosts: 8}\n"
      "traffic: [{type: incast, senders: \"1-4\", receiver: 0, size: 100KB, start: 50us,\n"
      "           period: 200us, count: 3},\n"
      "          {type: incast, senders: [5, 6], receiver: 7, size: 1KB}]\n");
  const std::vector<FlowSpec> flows = Expand(s.traffic[0], 8);
  ASSERT_EQ(flows.size(), 12u);
  for (size_t i = 0; i < flows.size(); ++i) {
    EXPECT_EQ(flows[i].start, 50 * kMicrosecond + static_cast<Time>(i / 4) * 200 * kMicrosecond);
    EXPECT_EQ(flows[i].src, 1 + static_cast<int>(i % 4));
    EXPECT_EQ(flows[i].dst, 0);
    EXPECT_EQ(flows[i].tag, "incast");
  }
  // Without period/count: one incast, as before.
  const std::vector<FlowSpec> once = Expand(s.traffic[1], 8);
  ASSERT_EQ(once.size(), 2u);
  EXPECT_EQ(once[0].start, 0);
}

TEST(WorkloadMicroburst, LineRateForDurationInWholePackets) {
  const Scenario s = ParseWorkloadScenario(
      "topology: {type: star, hosts: 8}\n"
      "traffic: [{type: microburst, src: 5, dst: 0, start: 150us, duration: 20us}]\n");
  const TrafficSpec& t = s.traffic[0];
  std::vector<FlowSpec> flows = Expand(t, 8);  // 100 Gb/s
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].size_bytes, 250'000);  // 100e9 * 20e-6 / 8
  EXPECT_EQ(flows[0].src, 5);
  EXPECT_EQ(flows[0].dst, 0);
  EXPECT_EQ(flows[0].start, 150 * kMicrosecond);
  EXPECT_EQ(flows[0].tag, "microburst");
  // 250000 B / 4096 B = 61.04 packets -> 61.
  EXPECT_EQ(Expand(t, 8, 1, k100G, 0, 4096)[0].size_bytes, 61 * 4096);
  // 25 Gb/s: 62500 B = 62.5 packets of 1000 -> 63 (nearest, half up).
  EXPECT_EQ(Expand(t, 8, 1, 25'000'000'000)[0].size_bytes, 63'000);
}

// ---- through the builder and summary.json ----

TEST(WorkloadSimulation, BuildsGeneratedFlowsAndReportsLoad) {
  const Scenario s = ParseWorkloadScenario(
      "seed: 3\n"
      "topology: {type: star, hosts: 16, host_link: {rate: 40Gbps}}\n"
      "traffic:\n"
      "  - {type: poisson, load: 40%, cdf: fb_hadoop, span: 2ms, cc: dcqcn}\n"
      "  - {type: microburst, src: 1, dst: 2, start: 10us, duration: 10us}\n"
      "  - {type: flows, flows: [{src: 0, dst: 1, size: 1KB}]}\n");
  const Simulation sim(s);
  const std::vector<int64_t> rates = HostLinkRates(*sim.fabric().layout);
  ASSERT_EQ(rates.size(), 16u);
  EXPECT_EQ(rates[3], 40'000'000'000);
  const std::vector<FlowSpec> p = ExpandTraffic(s.traffic[0], 0, 3, rates, 1000);
  ASSERT_EQ(sim.fabric().flows.Count(), p.size() + 2);
  for (size_t i = 0; i < p.size(); ++i) {
    EXPECT_EQ(sim.fabric().flows[i].size_bytes, p[i].size_bytes);
    EXPECT_EQ(sim.fabric().flows[i].start, p[i].start);
    EXPECT_EQ(sim.flow_tag(i), "poisson");
    EXPECT_EQ(sim.flow_cc()[i], CcKind::kDcqcn);
  }
  EXPECT_EQ(sim.fabric().flows[p.size()].size_bytes, 50'000);  // 40G * 10us / 8
  EXPECT_EQ(sim.flow_tag(p.size()), "microburst");

  const nlohmann::json j = BuildSummary(sim, RunStats{});
  ASSERT_EQ(j["traffic"].size(), 3u);
  const nlohmann::json& e = j["traffic"][0];
  EXPECT_EQ(e["type"], "poisson");
  EXPECT_EQ(e["cdf"], "fb_hadoop");
  EXPECT_EQ(e["flows"], p.size());
  int64_t bytes = 0;
  for (const FlowSpec& f : p) bytes += f.size_bytes;
  EXPECT_EQ(e["offered_bytes"], bytes);
  EXPECT_DOUBLE_EQ(e["target_load"].get<double>(), 0.4);
  EXPECT_DOUBLE_EQ(e["realised_load"].get<double>(),
                   static_cast<double>(bytes) * 8 / (16 * 40e9 * 2e-3));
  EXPECT_EQ(j["traffic"][1]["offered_bytes"], 50'000);
  EXPECT_FALSE(j["traffic"][1].contains("realised_load"));
  EXPECT_EQ(j["traffic"][2]["type"], "flows");
}

// ---- reader errors ----

TEST(WorkloadReader, ParsesEveryGeneratorField) {
  const Scenario s = ParseWorkloadScenario(
      "topology: {type: star, hosts: 16}\n"
      "traffic:\n"
      "  - {type: poisson, load: 30%, cdf: websearch, span: 10ms, start: 1ms, hosts: [\"0-7\"],\n"
      "     priority: 2, tag: web, cc: hpcc}\n"
      "  - {type: hotspot, load: 0.5, cdf: ali_storage_2019, span: 1ms, hot_fraction: 20%,\n"
      "     hot_hosts_fraction: 1/4}\n"
      "  - {type: permutation, size: 2MB}\n");
  const TrafficSpec& p = s.traffic[0];
  EXPECT_EQ(p.kind, TrafficKind::kPoisson);
  EXPECT_DOUBLE_EQ(p.load, 0.3);
  EXPECT_EQ(p.cdf_name, "websearch");
  EXPECT_EQ(p.cdf.size(), Builtin("websearch").size());
  EXPECT_EQ(p.span, 10 * kMillisecond);
  EXPECT_EQ(p.start, kMillisecond);
  EXPECT_EQ(p.hosts, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(p.priority, 2);
  EXPECT_EQ(p.tag, "web");
  EXPECT_EQ(p.cc, CcKind::kHpcc);
  EXPECT_EQ(p.group_size, 0);
  const TrafficSpec& h = s.traffic[1];
  EXPECT_EQ(h.kind, TrafficKind::kHotspot);
  EXPECT_DOUBLE_EQ(h.hot_fraction, 0.2);
  EXPECT_DOUBLE_EQ(h.hot_hosts_fraction, 0.25);
  EXPECT_EQ(s.traffic[2].kind, TrafficKind::kPermutation);
  EXPECT_EQ(s.traffic[2].size_bytes, 2'000'000);
  EXPECT_EQ(s.traffic[2].tag, "permutation");
}

TEST(WorkloadReader, UserCdfFileRelativeToScenario) {
  const std::string dir = test::TestTempDir();
  std::ofstream(dir + "mine.txt") << "1000 0\n3000 100\n";
  const Scenario s = ParseWorkloadScenario(
      "topology: {type: star, hosts: 4}\n"
      "traffic: [{type: poisson, load: 10%, cdf: mine.txt, span: 1ms}]\n",
      dir);
  EXPECT_DOUBLE_EQ(FlowSizeCdf(s.traffic[0].cdf).Mean(), 2000);
  EXPECT_EQ(s.traffic[0].cdf_name, "mine.txt");
  EXPECT_NE(s.yaml_as_run.find(dir + "mine.txt"), std::string::npos);  // made absolute
  std::ofstream(dir + "bad.txt") << "1000 0\n3000 90\n";
  EXPECT_EQ(WorkloadErrorOf("topology: {type: star, hosts: 4}\n"
                            "traffic: [{type: poisson, load: 10%, cdf: bad.txt, span: 1ms}]\n",
                            dir),
            "x.yaml:2:43: traffic.0.cdf: " + dir +
                "bad.txt: the last cumulative percent must be 100, got 90");
}

TEST(WorkloadReader, Errors) {
  const std::string m = "topology: {type: star, hosts: 8}\ntraffic: [";
  const std::string p = m + "{type: poisson, ";
  EXPECT_EQ(WorkloadErrorOf(p + "load: 30%, cdf: websarch, span: 1ms}]"),
            R"(x.yaml:2:43: traffic.0.cdf: unknown CDF "websarch"; built-in CDFs are websearch, )"
            "fb_hadoop, datamining, ali_storage_2019, google_rpc_2008 (a file name needs a '/' "
            "or '.', e.g. ./websarch.txt); did you mean 'websearch'?");
  EXPECT_EQ(WorkloadErrorOf(p + "load: 30%, cdf: zzz, span: 1ms}]"),
            R"(x.yaml:2:43: traffic.0.cdf: unknown CDF "zzz"; built-in CDFs are websearch, )"
            "fb_hadoop, datamining, ali_storage_2019, google_rpc_2008 (a file name needs a '/' "
            "or '.', e.g. ./zzz.txt)");
  EXPECT_EQ(
      WorkloadErrorOf(p + "load: 120%, cdf: websearch, span: 1ms}]"),
      R"(x.yaml:2:33: traffic.0.load: expected a fraction greater than 0 and at most 1, got "120%")");
  EXPECT_EQ(
      WorkloadErrorOf(p + "load: 0, cdf: websearch, span: 1ms}]"),
      R"(x.yaml:2:33: traffic.0.load: expected a fraction greater than 0 and at most 1, got "0")");
  const std::string missing =
      WorkloadErrorOf(p + "load: 30%, cdf: /nonexistent/x.txt, span: 1ms}]");
  EXPECT_EQ(missing,
            "x.yaml:2:43: traffic.0.cdf: cannot open CDF file '/nonexistent/x.txt': No such file "
            "or directory");
  EXPECT_EQ(WorkloadErrorOf(p + "load: 30%, cdf: websearch}]"),
            "x.yaml:2:11: traffic.0: missing required key 'span' (how long arrivals last, e.g. "
            "10ms)");
  EXPECT_EQ(WorkloadErrorOf(p + "load: 30%, span: 1ms}]"),
            "x.yaml:2:11: traffic.0: missing required key 'cdf' (a flow-size CDF: one of "
            "websearch, fb_hadoop, datamining, ali_storage_2019, google_rpc_2008, or a file)");
  EXPECT_EQ(WorkloadErrorOf(p + "load: 30%, cdf: websearch, span: 1ms, groups: 3}]"),
            "x.yaml:2:73: traffic.0.groups: expected a number of groups that divides the 8 "
            "participating hosts, got \"3\"");
  EXPECT_EQ(WorkloadErrorOf(p + "load: 30%, cdf: websearch, span: 1ms, group_size: 1}]"),
            R"(x.yaml:2:77: traffic.0.group_size: expected an integer from 2 to 8, got "1")");
  EXPECT_EQ(WorkloadErrorOf(p + "load: 30%, cdf: websearch, span: 1ms, groups: 2, group_size: 4}]"),
            "x.yaml:2:76: traffic.0.group_size: give either groups or group_size, not both");
  EXPECT_EQ(WorkloadErrorOf(p + "load: 30%, cdf: websearch, span: 1ms, hot_fraction: 10%}]"),
            "x.yaml:2:65: traffic.0.hot_fraction applies to type hotspot, not poisson");
  EXPECT_EQ(WorkloadErrorOf(p + "load: 30%, cdf: websearch, span: 1ms, hosts: [1, 2, 1]}]"),
            "x.yaml:2:72: traffic.0.hosts: host 1 is listed twice");
  EXPECT_EQ(WorkloadErrorOf(p + "load: 30%, cdf: websearch, span: 1ms, hosts: [3]}]"),
            R"(x.yaml:2:72: traffic.0.hosts: expected at least two hosts, got a list)");
  EXPECT_EQ(WorkloadErrorOf(m + "{type: hotspot, load: 30%, cdf: websearch, span: 1ms, tag: x}]"),
            "x.yaml:2:65: traffic.0.tag applies to types incast, flow_file, poisson, "
            "permutation, all_to_all, microburst, collective, dependency_file and aicb_workload, "
            "not hotspot");
  EXPECT_EQ(WorkloadErrorOf(m + "{type: permutation}]"),
            "x.yaml:2:11: traffic.0: missing required key 'size' (bytes each flow sends)");
  EXPECT_EQ(WorkloadErrorOf(m + "{type: all_to_all, size: 1KB, load: 10%}]"),
            "x.yaml:2:41: traffic.0.load applies to types poisson and hotspot, not all_to_all");
  EXPECT_EQ(WorkloadErrorOf(m + "{type: microburst, src: 1, dst: 1, duration: 20us}]"),
            R"(x.yaml:2:43: traffic.0.dst: expected a host other than src (1), got "1")");
  EXPECT_EQ(WorkloadErrorOf(m + "{type: microburst, src: 1, dst: 2, duration: 0}]"),
            R"(x.yaml:2:56: traffic.0.duration: expected a time greater than 0, got "0")");
  EXPECT_EQ(
      WorkloadErrorOf(m + "{type: incast, senders: [1], receiver: 0, size: 1KB, period: 1us}]"),
      "x.yaml:2:11: traffic.0: missing required key 'count' (how many incasts, one every "
      "period)");
  EXPECT_EQ(WorkloadErrorOf(m + "{type: incast, senders: [1], receiver: 0, size: 1KB, count: 2}]"),
            "x.yaml:2:11: traffic.0: missing required key 'period' (the time between incasts "
            "when count > 1)");
  EXPECT_EQ(WorkloadErrorOf(m + "{type: flows, flows: [], tag: x}]"),
            "x.yaml:2:36: traffic.0.tag applies to types incast, flow_file, poisson, "
            "permutation, all_to_all, microburst, collective, dependency_file and aicb_workload, "
            "not flows (set "
            "it on each flow)");
  EXPECT_EQ(WorkloadErrorOf(m + "{type: possion}]"),
            R"(x.yaml:2:18: traffic.0.type: expected one of flows, incast, flow_file, poisson, )"
            R"(hotspot, permutation, all_to_all, microburst, collective, dependency_file, )"
            R"(aicb_workload, got )"
            R"("possion"; did you mean )"
            R"('poisson'?)");
  EXPECT_EQ(WorkloadErrorOf("topology: {type: star, hosts: 1}\n"
                            "traffic: [{type: all_to_all, size: 1KB}]"),
            "x.yaml:2:11: traffic.0: needs at least two hosts; the topology has 1");
}

}  // namespace
}  // namespace test_workload
}  // namespace rocesim
