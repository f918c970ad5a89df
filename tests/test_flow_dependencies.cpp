// Tests of flows that wait for flows (transport/flow_dependencies.h), the
// dependency files that describe them (workload/dependency_file.h) and the
// collectives that expand into them (workload/collectives.h), run in-process:
//
//  - random DAGs (star and leaf-spine, shuffled rows, comments, CRLF, two
//    files and a plain entry in one scenario): every flow completes and
//    every dependent flow starts exactly at max(start, latest completion of
//    its predecessors at its source host + delay) — the predecessor's finish
//    (final ACK) when it was sent from there, its receipt (last byte) when
//    it was received there; flows that wait for nothing start at start +
//    delay;
//  - a chain whose start times are computed by hand (idle star, one-packet
//    flows: delivery 2 x serialization + 2 us, the final ACK 2 x 6880 ps +
//    2 us later);
//  - the same exactness for every collective algorithm, joins included,
//    against ExpandTrafficGraph's plan (small and odd ones too), their
//    message sizes, and iteration i + 1 of each rank starting `compute`
//    after the rank is done with iteration i;
//  - the reader's errors (cycles, unknown ids, the source-host rule,
//    duplicate ids, bad fields, CSV and JSON) with the scenario's file:line;
//  - a flow whose predecessor never completes is never started: an empty
//    start in flows.csv, counted in flows.incomplete;
//  - the CSV and JSON forms of one workload give the same flows.csv;
//  - FlowDependencies::Build's own checks;
//  - disabled: three defects found on the way (Time overflow of start +
//    delay and of completion + delay; the direct all-to-all's ideal time).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "net/fabric.h"
#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "stats/results_writer.h"
#include "tests/dependency_dag.h"
#include "tests/sim_test_support.h"
#include "transport/flow_dependencies.h"
#include "workload/collectives.h"
#include "workload/generators.h"

namespace rocesim {
namespace test_flow_dependencies {
namespace {

namespace fs = std::filesystem;
using test::DagFlow;
using test::ReadFile;
using test::SimRun;

// A fresh directory per test for scenario, data and results files.
class DepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "rocesim_deps_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
           std::to_string(::getpid()) + "/";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + name, std::ios::binary) << text;
    return dir_ + name;
  }
  Scenario Parse(const std::string& yaml) {
    return ParseScenarioText(yaml, "s.yaml", dir_, {}, std::nullopt);
  }
  SimRun Run(const std::string& yaml) { return test::RunScenario(Parse(yaml)); }
  // The scenario reader's message for `yaml`.
  std::string ErrorOf(const std::string& yaml) {
    return test::ScenarioErrorOf(yaml, "s.yaml", dir_);
  }
  // The reader's message for a scenario whose only traffic is dependency
  // file `name` holding `text` (on a star of `hosts` hosts).
  std::string FileError(const std::string& name, const std::string& text, int hosts = 4) {
    Write(name, text);
    return ErrorOf(FileScenario(name, hosts));
  }
  static std::string FileScenario(const std::string& name, int hosts = 4) {
    return "topology: {type: star, hosts: " + std::to_string(hosts) +
           "}\n"
           "traffic:\n"
           "  - type: dependency_file\n"
           "    file: " +
           name + "\n";
  }
  // What the scenario puts before the file's own messages: the `file` key's
  // file:line:column and path, then the file's path.
  std::string Prefix(const std::string& name) {
    return "s.yaml:4:11: traffic.0.file: " + dir_ + name;
  }

  std::string dir_;
};

// When node `n` (entry-local: a flow, or flows.size() + j for join j) has
// completed at host `h` as the simulator defines it, or -1 (never).
class Completion {
 public:
  Completion(const Fabric& f, const ExpandedTraffic& x, uint32_t base)
      : f_(f), x_(x), base_(base), joins_(x.joins.size(), -2) {}

  Time At(uint32_t n, int h) {
    const auto nf = static_cast<uint32_t>(x_.flows.size());
    if (n < nf) {
      const Flow& p = f_.flows[base_ + n];
      if (static_cast<int>(p.dst) == h) return p.received;
      EXPECT_EQ(static_cast<int>(p.src), h) << "flow " << base_ + n << " does not touch host " << h;
      return p.finish;
    }
    const uint32_t j = n - nf;
    EXPECT_EQ(x_.joins[j].host, h);
    if (joins_[j] == -2) {
      const std::optional<Time> last = Last(x_.joins[j].after, x_.joins[j].host);
      joins_[j] = last ? *last + x_.joins[j].delay : -1;
    }
    return joins_[j];
  }
  // The latest completion of `after` at `h`; nullopt when one never completed.
  std::optional<Time> Last(const std::vector<uint32_t>& after, int h) {
    Time last = 0;
    for (uint32_t a : after) {
      const Time t = At(a, h);
      if (t < 0) return std::nullopt;
      last = std::max(last, t);
    }
    return last;
  }

 private:
  const Fabric& f_;
  const ExpandedTraffic& x_;
  uint32_t base_;
  std::vector<Time> joins_;  // -2: not computed yet
};

struct StartCheck {
  int flows = 0;
  int dependent = 0;  // flows with predecessors
  int joins = 0;
};

// Every flow of every traffic entry starts exactly when the dependency rule
// says: max(start, last predecessor's completion at its source + delay), or
// start + delay without predecessors; never, when a predecessor never
// completed. Also checks the flow's ends against the plan.
StartCheck ExpectExactStarts(const SimRun& r) {
  StartCheck out;
  const Fabric& f = r.fabric();
  const Scenario& sc = r.sim->scenario();
  const std::vector<int64_t> rates = HostLinkRates(*f.layout);
  uint32_t base = 0;
  for (size_t i = 0; i < sc.traffic.size(); ++i) {
    const ExpandedTraffic x =
        ExpandTrafficGraph(sc.traffic[i], i, sc.seed, rates, sc.host.mtu_bytes);
    Completion done(f, x, base);
    out.joins += static_cast<int>(x.joins.size());
    for (uint32_t k = 0; k < x.flows.size(); ++k) {
      const FlowSpec& s = x.flows[k];
      const Flow& fl = f.flows[base + k];
      EXPECT_EQ(static_cast<int>(fl.src), s.src) << "flow " << fl.id;
      EXPECT_EQ(static_cast<int>(fl.dst), s.dst) << "flow " << fl.id;
      EXPECT_EQ(fl.size_bytes, s.size_bytes) << "flow " << fl.id;
      ++out.flows;
      if (s.after.empty() && s.after_sent == UINT32_MAX) {
        EXPECT_EQ(fl.start, s.start + s.delay) << "flow " << fl.id << " waits for nothing";
        continue;
      }
      ++out.dependent;
      std::optional<Time> last =
          s.after.empty() ? std::optional<Time>(Time{0}) : done.Last(s.after, s.src);
      // The message before it on its connection: once its last packet left.
      if (last && s.after_sent != UINT32_MAX) {
        const Time sent = f.flows[base + s.after_sent].sent;
        last = sent < 0 ? std::nullopt : std::optional<Time>(std::max(*last, sent));
      }
      if (!last) {
        EXPECT_EQ(fl.start, kTimeMax)
            << "flow " << fl.id << " started, but a predecessor never completed";
        continue;
      }
      EXPECT_EQ(fl.start, std::max(s.start, *last + s.delay))
          << "flow " << fl.id << " (entry " << i << ", local " << k << ", " << s.src << " -> "
          << s.dst << ", " << s.after.size() << " predecessors, delay " << s.delay << ")";
    }
    base += static_cast<uint32_t>(x.flows.size());
  }
  EXPECT_EQ(base, f.flows.Count());
  return out;
}

void ExpectAllComplete(const SimRun& r) {
  for (const Flow& fl : r.fabric().flows) {
    EXPECT_GE(fl.finish, 0) << "flow " << fl.id << " did not finish";
    EXPECT_GE(fl.received, fl.start) << "flow " << fl.id;
    EXPECT_GE(fl.finish, fl.received) << "flow " << fl.id;
  }
  EXPECT_TRUE(r.stats.all_flows_done);
  EXPECT_EQ(r.summary["flows"]["incomplete"], 0);
}

// The rule once more, straight from the generated workload (not from the
// simulator's own expansion): for every edge P -> D, D starts no earlier than
// P's completion at D's source (P.finish when P left from there, P.received
// when it arrived there) + D.delay, and exactly at the latest of these (or
// at D's start).
void ExpectDagRule(const std::vector<DagFlow>& dag, const Fabric& f, uint32_t base) {
  int edges = 0;
  for (size_t d = 0; d < dag.size(); ++d) {
    const DagFlow& g = dag[d];
    const Flow& fl = f.flows[base + d];
    ASSERT_EQ(static_cast<int>(fl.src), g.src);
    ASSERT_EQ(static_cast<int>(fl.dst), g.dst);
    ASSERT_EQ(fl.size_bytes, g.size);
    if (g.deps.empty()) {
      EXPECT_EQ(fl.start, g.start + g.delay) << g.id;
      continue;
    }
    Time latest = 0;
    for (int p : g.deps) {
      const Flow& pf = f.flows[base + p];
      const Time done = static_cast<int>(pf.src) == g.src ? pf.finish : pf.received;
      ASSERT_TRUE(static_cast<int>(pf.src) == g.src || static_cast<int>(pf.dst) == g.src);
      EXPECT_GE(fl.start, done + g.delay) << g.id << " waits for " << dag[p].id;
      latest = std::max(latest, done + g.delay);
      ++edges;
    }
    EXPECT_EQ(fl.start, std::max(g.start, latest)) << g.id;
  }
  EXPECT_GT(edges, 0);
}

std::vector<std::vector<std::string>> CsvRows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream l(line);
    while (std::getline(l, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(std::move(cells));
  }
  return rows;
}

// ---------------------------------------------------------------------------
// Random DAGs.

struct DagCase {
  uint64_t seed;
  std::string topology;
  double start_fraction;
  bool crlf;
};

void PrintTo(const DagCase& c, std::ostream* os) {
  *os << "seed " << c.seed;
}

class RandomDag : public DepsTest, public ::testing::WithParamInterface<DagCase> {};

TEST_P(RandomDag, EveryDependentFlowStartsExactlyWhenItsPredecessorsAreDone) {
  const DagCase& c = GetParam();
  test::DagOptions o;
  o.hosts = 8;
  o.start_fraction = c.start_fraction;
  o.tag_fraction = 0.2;
  const std::vector<DagFlow> dag = test::RandomDag(c.seed, o);
  Write("dag.csv", test::DagCsv(dag, c.seed, c.crlf));
  const SimRun r = Run("seed: " + std::to_string(c.seed) +
                       "\n"
                       "duration: 100ms\n"
                       "topology: " +
                       c.topology +
                       "\n"
                       "switch: {pfc: {enabled: true, priorities: [3]}, ecn: {enabled: true}}\n"
                       "host: {cc: dcqcn}\n"
                       "traffic:\n"
                       "  - type: dependency_file\n"
                       "    file: dag.csv\n");
  ASSERT_EQ(r.fabric().flows.Count(), dag.size());
  ExpectAllComplete(r);
  ExpectDagRule(dag, r.fabric(), 0);
  const StartCheck s = ExpectExactStarts(r);
  EXPECT_GT(s.dependent, static_cast<int>(dag.size()) / 2);
  // Tags: a flow's own, else the entry's.
  for (size_t i = 0; i < dag.size(); ++i)
    EXPECT_EQ(r.sim->flow_tag(i), dag[i].tag.empty() ? "dependency" : dag[i].tag);
}

INSTANTIATE_TEST_SUITE_P(
    Seeds, RandomDag,
    ::testing::Values(
        DagCase{1, "{type: star, hosts: 8}", 0, false},
        DagCase{2, "{type: star, hosts: 8}", 0.15, false},
        DagCase{3, "{type: star, hosts: 8}", 0, true},
        DagCase{4, "{type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}", 0, false},
        DagCase{5, "{type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}", 0.2, false},
        DagCase{6, "{type: leaf_spine, leaves: 4, spines: 2, hosts_per_leaf: 2}", 0, true}),
    [](const ::testing::TestParamInfo<DagCase>& i) {
      return "Seed" + std::to_string(i.param.seed);
    });

// Node numbers are entry-local: a plain entry before and two files, each
// with its own ids (the same names in both), map to global flows correctly.
TEST_F(DepsTest, TwoFilesAndAPlainEntryMapToTheirOwnFlows) {
  test::DagOptions o;
  o.hosts = 6;
  o.min_flows = 60;
  o.max_flows = 80;
  std::vector<DagFlow> a = test::RandomDag(11, o), b = test::RandomDag(11, o);
  // The same ids in both files, but another workload in the second.
  for (DagFlow& f : b) {
    f.dst = (f.dst + 1) % o.hosts == f.src ? (f.dst + 2) % o.hosts : (f.dst + 1) % o.hosts;
    f.delay = f.delay / 2;
  }
  // The rule still holds in b when a predecessor touched the source
  // before: repair edges that no longer do.
  for (DagFlow& f : b)
    std::erase_if(f.deps, [&](int p) { return b[p].src != f.src && b[p].dst != f.src; });
  Write("a.csv", test::DagCsv(a, 11));
  Write("b.json", test::DagJson(b, 12));
  const SimRun r =
      Run("duration: 100ms\n"
          "topology: {type: star, hosts: 6}\n"
          "traffic:\n"
          "  - type: flows\n"
          "    flows:\n"
          "      - {src: 0, dst: 1, size: 50KB, start: 3us}\n"
          "      - {src: 2, dst: 3, size: 70KB}\n"
          "  - type: dependency_file\n"
          "    file: a.csv\n"
          "    tag: first\n"
          "  - type: dependency_file\n"
          "    file: b.json\n"
          "    tag: second\n");
  ASSERT_EQ(r.fabric().flows.Count(), 2 + a.size() + b.size());
  ExpectAllComplete(r);
  ExpectDagRule(a, r.fabric(), 2);
  ExpectDagRule(b, r.fabric(), static_cast<uint32_t>(2 + a.size()));
  ExpectExactStarts(r);
  EXPECT_EQ(r.fabric().flows[0].start, 3 * kMicrosecond);
  EXPECT_EQ(r.sim->flow_tag(2), "first");
  EXPECT_EQ(r.sim->flow_tag(2 + a.size()), "second");
}

// ---------------------------------------------------------------------------
// A chain computed by hand. Star, 100 Gb/s, 1 us links, cc none, one
// 1000 B packet per flow: the last byte arrives (1062 + 20) x 80 ps x 2 hops
// + 2 us = 2173120 ps after the start (R), the final ACK (66 + 20) x 80 ps x
// 2 + 2 us = 2013760 ps later (F = 4186880 ps, the ideal FCT).
TEST_F(DepsTest, ChainStartsAtHandComputedTimes) {
  Write("chain.csv",
        "id,src,dst,size,depends_on,delay,start\n"
        "a,0,1,1000,,,10us\n"        // no predecessors: start
        "b,1,2,1000,a,2us,\n"        // a arrived at 1: 10us + R + 2us
        "c,1,3,1000,b,,\n"           // b acknowledged at 1: b + F
        "d,3,0,1000,c,500ns,30us\n"  // c arrived at 3 + 0.5us, but not before 30us
        "e,0,2,1000,d a,1us,\n"      // max(d arrived at 0, a acknowledged at 0) + 1us
        "f,2,3,1000,,3us,5us\n");    // no predecessors: start + delay
  const SimRun r =
      Run("duration: 1ms\n"
          "topology: {type: star, hosts: 4, host_link: {rate: 100Gbps, delay: 1us}}\n"
          "host: {mtu: 1000B, cc: none}\n"
          "traffic:\n"
          "  - type: dependency_file\n"
          "    file: chain.csv\n");
  const FlowTable& fl = r.fabric().flows;
  ASSERT_EQ(fl.Count(), 6u);
  ExpectAllComplete(r);
  constexpr Time R = 2 * 1082 * 80 + 2 * kMicrosecond;    // 2173120
  constexpr Time F = R + 2 * 86 * 80 + 2 * kMicrosecond;  // 4186880
  static_assert(R == 2'173'120 && F == 4'186'880);
  const Time a = 10'000'000, b = a + R + 2'000'000, c = b + F, d = 30'000'000,
             e = std::max(d + R, a + F) + 1'000'000, f = 8'000'000;
  EXPECT_EQ(b, 14'173'120);
  EXPECT_EQ(c, 18'360'000);
  EXPECT_GT(d, c + R + 500'000);  // its start, not c, decides
  EXPECT_EQ(e, 33'173'120);
  const std::vector<Time> want = {a, b, c, d, e, f};
  for (size_t i = 0; i < fl.Count(); ++i) {
    EXPECT_EQ(fl[i].start, want[i]) << "flow " << i;
    EXPECT_EQ(fl[i].received - fl[i].start, R) << "flow " << i;
    EXPECT_EQ(fl[i].finish - fl[i].start, F) << "flow " << i;
    EXPECT_EQ(fl[i].ideal_fct, F) << "flow " << i;
  }
  ExpectExactStarts(r);
}

// The same predecessor named twice waits for it once; a flow whose
// predecessor is listed after it works as one listed before.
TEST_F(DepsTest, RepeatedAndForwardPredecessors) {
  Write("rep.csv",
        "id,src,dst,size,depends_on,delay\n"
        "late,1,2,1000,early;early; early,1us\n"
        "other,2,3,5000,late,\n"
        "early,0,1,20000,,\n");
  const SimRun r =
      Run("topology: {type: star, hosts: 4}\n"
          "host: {cc: none}\n"
          "traffic: [{type: dependency_file, file: rep.csv}]\n");
  const FlowTable& fl = r.fabric().flows;
  ASSERT_EQ(fl.Count(), 3u);
  ExpectAllComplete(r);
  EXPECT_EQ(fl[0].start, fl[2].received + kMicrosecond);
  EXPECT_EQ(fl[1].start, fl[0].received);
  ExpectExactStarts(r);
}

// ---------------------------------------------------------------------------
// Collectives: every message and join resolves exactly as the plan says.

// Sum of the message sizes of entry `index`'s first iteration.
int64_t FirstIterationBytes(const SimRun& r, size_t index) {
  for (const Simulation::CollectiveEntry& e : r.sim->collectives()) {
    if (e.traffic_index != index) continue;
    int64_t sum = 0;
    const CollectiveInstance& in = e.instances.front();
    for (uint32_t k = in.first_flow; k < in.end_flow; ++k)
      sum += r.fabric().flows[e.first_flow + k].size_bytes;
    return sum;
  }
  ADD_FAILURE() << "no collective entry " << index;
  return 0;
}

TEST_F(DepsTest, CollectivesStartEveryMessageExactly) {
  // Several jobs at once on 8 hosts (they share NICs: contention), each
  // with its own tag; sizes not multiples of the ranks or channels.
  const SimRun r = Run(
      "seed: 7\n"
      "duration: 100ms\n"
      "topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}\n"
      "switch: {pfc: {enabled: true, priorities: [3]}, ecn: {enabled: true}}\n"
      "host: {cc: dcqcn}\n"
      "traffic:\n"
      "  - {type: collective, tag: ring, op: allreduce, algorithm: ring, size: 1000003B,\n"
      "     channels: 2, chunk: 20KB, iterations: 2, compute: 3us, start: 5us}\n"
      "  - {type: collective, tag: tree, op: allreduce, algorithm: tree, ranks: \"0-6\",\n"
      "     size: 700001B, channels: 2, chunk: 64KB, iterations: 2, compute: 2us}\n"
      "  - {type: collective, tag: hd, op: allreduce, algorithm: halving_doubling,\n"
      "     size: 512KB, iterations: 2}\n"
      "  - {type: collective, tag: a2a, op: alltoall, size: 800KB, iterations: 2, compute: 1us}\n"
      "  - {type: collective, tag: ag, op: allgather, algorithm: ring, ranks: [7, 2, 5],\n"
      "     size: 300KB}\n"
      "  - {type: collective, tag: rs, op: reducescatter, algorithm: halving_doubling,\n"
      "     ranks: [1, 3, 4, 6], size: 256KB}\n"
      "  - {type: collective, tag: bc, op: broadcast, ranks: [4, 0, 7, 1], size: 400KB,\n"
      "     chunk: 50KB}\n"
      "  - {type: collective, tag: dag, op: allgather, algorithm: direct, ranks: \"2-5\",\n"
      "     size: 100KB, iterations: 3, compute: 4us}\n");
  ExpectAllComplete(r);
  const StartCheck s = ExpectExactStarts(r);
  EXPECT_GT(s.dependent, 500);
  EXPECT_GT(s.joins, 0);
  ASSERT_EQ(r.sim->collectives().size(), 8u);

  // Message sizes per instance (NCCL's data volumes).
  const int64_t ring = 1'000'003, tree = 700'001, hd = 512'000, a2a = 800'000;
  EXPECT_EQ(FirstIterationBytes(r, 0), 2 * (8 - 1) * ring);  // 2(n-1) steps of S/n, n senders
  EXPECT_EQ(FirstIterationBytes(r, 1), 2 * (7 - 1) * tree);  // (n-1) edges up and down, S/2 each
  EXPECT_EQ(FirstIterationBytes(r, 2), 2 * (8 - 1) * hd);
  EXPECT_EQ(FirstIterationBytes(r, 3), (8 - 1) * a2a);
  EXPECT_EQ(FirstIterationBytes(r, 4), (3 - 1) * 300'000);
  EXPECT_EQ(FirstIterationBytes(r, 5), (4 - 1) * 256'000);
  EXPECT_EQ(FirstIterationBytes(r, 6), (4 - 1) * 400'000);
  EXPECT_EQ(FirstIterationBytes(r, 7), (4 - 1) * 100'000);

  // Ring AllReduce: 2(n-1) steps x n ranks x 2 channels messages (62.5 KB
  // segments in 20 KB chunks: 4 each).
  const auto& entries = r.sim->collectives();
  EXPECT_EQ(entries[0].instances.size(), 2u);
  EXPECT_EQ(entries[0].instances[0].steps, 2 * (8 - 1));
  EXPECT_EQ(entries[0].instances[0].end_flow - entries[0].instances[0].first_flow,
            2u * 7 * 8 * 2 * 4);
  // Iterations: a rank starts iteration i + 1 `compute` after it is done
  // with iteration i (its sends acknowledged, its receives complete), and
  // its first message of i + 1 (waiting for nothing else) starts exactly then.
  int gated = 0;
  for (const auto& e : entries) {
    const Time compute = r.sim->scenario().traffic[e.traffic_index].collective.compute;
    for (size_t it = 0; it + 1 < e.instances.size(); ++it) {
      std::map<int, Time> done, first;
      for (uint32_t k = e.instances[it].first_flow; k < e.instances[it].end_flow; ++k) {
        const Flow& fl = r.fabric().flows[e.first_flow + k];
        done[fl.src] = std::max(done[fl.src], fl.finish);
        done[fl.dst] = std::max(done[fl.dst], fl.received);
      }
      for (uint32_t k = e.instances[it + 1].first_flow; k < e.instances[it + 1].end_flow; ++k) {
        const Flow& fl = r.fabric().flows[e.first_flow + k];
        EXPECT_GE(fl.start, done[fl.src] + compute) << "entry " << e.traffic_index;
        auto [at, fresh] = first.emplace(fl.src, fl.start);
        if (!fresh) at->second = std::min(at->second, fl.start);
      }
      for (const auto& [rank, start] : first) {
        EXPECT_EQ(start, done[rank] + compute)
            << "entry " << e.traffic_index << " iteration " << it + 1 << " rank " << rank;
        ++gated;
      }
    }
  }
  EXPECT_GT(gated, 30);
  // summary.json: every job completed all its iterations.
  const nlohmann::json& jobs = r.summary["jobs"];
  ASSERT_EQ(jobs.size(), 8u);
  for (const nlohmann::json& j : jobs) EXPECT_EQ(j["completed"], j["iterations"]) << j.dump();
}

// Hierarchical AllReduce on GPU servers: NVLink steps inside servers,
// rings across them, joins between the phases and iterations.
TEST_F(DepsTest, HierarchicalOnRailStartsEveryMessageExactly) {
  const SimRun r =
      Run("duration: 100ms\n"
          "topology: {type: rail, servers: 4, gpus_per_server: 4, servers_per_rail_group: 2,\n"
          "           spines: 2}\n"
          "switch: {pfc: {enabled: true, priorities: [3]}}\n"
          "host: {cc: dcqcn}\n"
          "traffic:\n"
          "  - {type: collective, op: allreduce, algorithm: hierarchical, size: 2MB, channels: 2,\n"
          "     chunk: 64KB, iterations: 2, compute: 10us}\n"
          "  - {type: collective, tag: part, op: allreduce, algorithm: hierarchical,\n"
          "     servers: [1, 3], size: 777777B}\n");
  ExpectAllComplete(r);
  const StartCheck s = ExpectExactStarts(r);
  EXPECT_GT(s.joins, 0);
  EXPECT_GT(r.summary.value("nvlink_bytes", 0), 0);
  // m servers of k GPUs: reduce-scatter and all-gather inside (m k (k-1)
  // messages of S/k each way), a ring AllReduce of S/k across per rail.
  // Total: 2 m (k - 1) S inside + 2 (m - 1) S across.
  EXPECT_EQ(FirstIterationBytes(r, 0), 2 * 4 * (4 - 1) * 2'000'000 + 2 * (4 - 1) * 2'000'000);
  EXPECT_EQ(FirstIterationBytes(r, 1), 2 * 2 * (4 - 1) * 777'777 + 2 * (2 - 1) * 777'777);
}

// Small and odd collectives: two ranks, chunks larger than the data or
// smaller than a segment, ranks out of order, hierarchical with one GPU per
// server (no NVLink phase) and with one server (no fabric phase), a start
// offset with iterations; GPU servers of 2 on a leaf-spine.
TEST_F(DepsTest, EdgeCaseCollectivesCompleteAndStartExactly) {
  const SimRun r = Run(
      "duration: 100ms\n"
      "topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4, gpus_per_server: 2}\n"
      "switch: {pfc: {enabled: true, priorities: [3]}}\n"
      "host: {cc: dcqcn}\n"
      "traffic:\n"
      "  - {type: collective, op: allreduce, ranks: [0, 5], size: 4B, iterations: 2}\n"
      "  - {type: collective, op: allreduce, algorithm: tree, ranks: [6, 1], size: 100KB,\n"
      "     chunk: 1MB}\n"
      "  - {type: collective, op: allreduce, algorithm: tree, ranks: [2, 7, 4], size: 100KB,\n"
      "     chunk: 7KB, channels: 3}\n"
      "  - {type: collective, op: reducescatter, algorithm: halving_doubling, ranks: [3, 4],\n"
      "     size: 64KB}\n"
      "  - {type: collective, op: broadcast, ranks: [7, 0], size: 10KB, chunk: 3KB, start: 7us,\n"
      "     iterations: 3, compute: 1us}\n"
      "  - {type: collective, op: allreduce, algorithm: hierarchical, ranks: [0, 2, 4, 6],\n"
      "     size: 64KB, iterations: 2}\n"
      "  - {type: collective, op: allreduce, algorithm: hierarchical, servers: [3], size: 64KB,\n"
      "     iterations: 2, compute: 2us}\n");
  ExpectAllComplete(r);
  ExpectExactStarts(r);
  EXPECT_EQ(FirstIterationBytes(r, 0), 2 * 4);
  EXPECT_EQ(FirstIterationBytes(r, 1), 2 * 100'000);
  EXPECT_EQ(FirstIterationBytes(r, 2), 2 * 2 * 100'000);
  EXPECT_EQ(FirstIterationBytes(r, 3), 64'000 / 2 * 2);
  EXPECT_EQ(FirstIterationBytes(r, 4), 10'000);
  EXPECT_EQ(FirstIterationBytes(r, 5), 2 * 3 * 64'000);  // a ring across 4 servers
  EXPECT_EQ(FirstIterationBytes(r, 6), 2 * 64'000);      // inside one server: NVLink only
  const auto& e = r.sim->collectives();
  ASSERT_EQ(e.size(), 7u);
  EXPECT_EQ(e[4].instances.size(), 3u);
  EXPECT_EQ(e[4].instances[0].end_flow - e[4].instances[0].first_flow, 4u);  // 10 KB in 3 KB
  EXPECT_EQ(r.fabric().flows[e[4].first_flow].start, 7 * kMicrosecond);
  for (const nlohmann::json& j : r.summary["jobs"]) EXPECT_EQ(j["completed"], j["iterations"]);
}

// ---------------------------------------------------------------------------
// Found while writing these tests, fixed since: times past the end of
// simulated time, and the direct all-to-all's ideal.

// start + delay of a flow without predecessors beyond the end of simulated
// time: the flow never starts (the sum used to wrap to a negative start).
TEST_F(DepsTest, StartPlusDelayOverflowIsRefusedOrNeverStarts) {
  Write("ov.csv",
        "id,src,dst,size,depends_on,delay,start\n"
        "a,0,1,1KB,,9223372036854775807ps,9223372036854775807ps\n");
  const std::string yaml =
      "duration: 1ms\n"
      "topology: {type: star, hosts: 4}\n"
      "traffic: [{type: dependency_file, file: ov.csv}]\n";
  try {
    Parse(yaml);
  } catch (const ScenarioError& e) {
    SUCCEED() << e.what();
    return;
  }
  const SimRun r = Run(yaml);
  EXPECT_GE(r.fabric().flows[0].start, 0);
  EXPECT_LT(r.fabric().flows[0].finish, 0) << "due 2^64 ps into a 1 ms run";
}

// completion + delay beyond the end of simulated time (FlowDependencies::
// Release): b, due 9223372 s after a completes at 100 ms, never starts.
TEST_F(DepsTest, DependentDelayOverflowNeverStarts) {
  Write("ov.csv",
        "id,src,dst,size,depends_on,delay,start\n"
        "a,0,1,1KB,,,100ms\n"
        "b,1,2,1KB,a,9223372s,\n");
  const std::string yaml =
      "duration: 1s\n"
      "topology: {type: star, hosts: 4}\n"
      "traffic: [{type: dependency_file, file: ov.csv}]\n";
  try {
    Parse(yaml);
  } catch (const ScenarioError& e) {
    SUCCEED() << e.what();
    return;
  }
  const SimRun r = Run(yaml);
  EXPECT_GE(r.fabric().flows[0].finish, 0);
  EXPECT_EQ(r.fabric().flows[1].start, kTimeMax);
  EXPECT_LT(r.fabric().flows[1].finish, 0);
}

// The ideal of a direct all-to-all (stats/collective_ideal.h) is a lower
// bound: an idle star without congestion control takes at least as long
// (a list schedule with both NIC sides at once used to give 0.59).
TEST_F(DepsTest, DirectAllToAllIdealIsALowerBound) {
  const SimRun r =
      Run("topology: {type: star, hosts: 8}\n"
          "host: {cc: none}\n"
          "traffic: [{type: collective, op: alltoall, size: 1MB}]\n");
  ExpectAllComplete(r);
  EXPECT_GE(r.summary["jobs"][0]["slowdown_mean"].get<double>(), 1.0) << r.summary["jobs"].dump();
}

// ---------------------------------------------------------------------------
// A predecessor that never completes.

// Its successors never start: flows.csv leaves their start empty, and
// summary.json counts them as incomplete, as are the collective instances
// they belong to.
TEST_F(DepsTest, WaitingForAFlowThatNeverCompletesIsNeverStarted) {
  Write("deps.csv",
        "id,src,dst,size,depends_on,delay\n"
        "big,0,1,10MB,,\n"
        "after_big,1,2,1KB,big,1us\n"
        "after_after,2,3,1KB,after_big,\n"
        "free,2,3,1KB,,\n");
  const SimRun r =
      Run("duration: 100us\n"
          "topology: {type: star, hosts: 4}\n"
          "traffic:\n"
          "  - type: dependency_file\n"
          "    file: deps.csv\n");
  const FlowTable& fl = r.fabric().flows;
  ASSERT_EQ(fl.Count(), 4u);
  EXPECT_EQ(fl[0].start, 0);
  EXPECT_LT(fl[0].finish, 0);
  EXPECT_LT(fl[0].received, 0);
  EXPECT_EQ(fl[1].start, kTimeMax);
  EXPECT_EQ(fl[2].start, kTimeMax);
  EXPECT_GE(fl[3].finish, 0);
  EXPECT_FALSE(r.stats.all_flows_done);
  EXPECT_EQ(r.summary["flows"]["total"], 4);
  EXPECT_EQ(r.summary["flows"]["completed"], 1);
  EXPECT_EQ(r.summary["flows"]["incomplete"], 3);
  ExpectExactStarts(r);

  const std::string out = dir_ + "out";
  fs::create_directories(out);
  WriteResults(*r.sim, r.stats, out);
  const auto rows = CsvRows(ReadFile(out + "/flows.csv"));
  ASSERT_EQ(rows.size(), 5u);
  ASSERT_EQ(rows[0][4], "start_ps");
  ASSERT_EQ(rows[0][5], "finish_ps");
  for (size_t i = 1; i < rows.size(); ++i) ASSERT_EQ(rows[i].size(), rows[0].size()) << i;
  EXPECT_EQ(rows[1][4], "0");  // started, unfinished
  EXPECT_EQ(rows[1][5], "");
  for (int i : {2, 3}) {  // never started
    EXPECT_EQ(rows[i][0], std::to_string(i - 1));
    EXPECT_EQ(rows[i][4], "") << "flow " << i - 1;
    EXPECT_EQ(rows[i][5], "") << "flow " << i - 1;
    EXPECT_EQ(rows[i][6], "") << "flow " << i - 1;
    EXPECT_EQ(rows[i][8], "") << "flow " << i - 1;
    EXPECT_EQ(rows[i][10], "dependency");
  }
  EXPECT_NE(rows[4][5], "");  // free finished
}

// The same with the predecessor's receiver under a pause storm (it drops
// what arrives and pauses its ToR for the whole run).
TEST_F(DepsTest, WaitingBehindAPauseStormIsNeverStarted) {
  Write("deps.csv",
        "id,src,dst,size,depends_on\n"
        "stuck,0,1,100KB,\n"
        "waits_at_src,0,2,10KB,stuck\n"  // waits for stuck's final ACK at 0
        "waits_at_dst,1,3,10KB,stuck\n"  // waits for stuck's last byte at 1
        "free,2,3,100KB,\n");
  const SimRun r =
      Run("duration: 2ms\n"
          "topology: {type: star, hosts: 4}\n"
          "switch: {pfc: {enabled: true, priorities: [3]}}\n"
          "traffic:\n"
          "  - type: dependency_file\n"
          "    file: deps.csv\n"
          "faults:\n"
          "  - {type: nic_pause_storm, host: 1, at: 0us, priority: 3}\n");
  const FlowTable& fl = r.fabric().flows;
  ASSERT_EQ(fl.Count(), 4u);
  EXPECT_LT(fl[0].finish, 0);
  EXPECT_EQ(fl[1].start, kTimeMax);
  EXPECT_EQ(fl[2].start, kTimeMax);
  EXPECT_GE(fl[3].finish, 0);
  EXPECT_EQ(r.summary["flows"]["incomplete"], 3);
  const std::string out = dir_ + "out";
  fs::create_directories(out);
  WriteResults(*r.sim, r.stats, out);
  const auto rows = CsvRows(ReadFile(out + "/flows.csv"));
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[2][4], "");
  EXPECT_EQ(rows[3][4], "");
}

// A collective cut short: the instances not reached are incomplete in
// collectives.csv and summary.json, their unstarted messages left empty.
TEST_F(DepsTest, CollectiveCutShortIsIncomplete) {
  const SimRun r =
      Run("duration: 30us\n"
          "topology: {type: star, hosts: 4}\n"
          "traffic:\n"
          "  - {type: collective, op: allreduce, algorithm: ring, size: 4MB, iterations: 2}\n");
  EXPECT_GT(r.summary["flows"]["incomplete"].get<int>(), 0);
  int never = 0;
  for (const Flow& fl : r.fabric().flows) never += fl.start == kTimeMax;
  EXPECT_GT(never, 0);
  EXPECT_EQ(r.summary["jobs"][0]["completed"], 0);
  const std::string out = dir_ + "out";
  fs::create_directories(out);
  WriteResults(*r.sim, r.stats, out);
  const auto rows = CsvRows(ReadFile(out + "/collectives.csv"));
  ASSERT_EQ(rows.size(), 3u);
  ASSERT_EQ(rows[0][9], "complete");
  ASSERT_EQ(rows[0][10], "start_ps");
  ASSERT_EQ(rows[0][11], "finish_ps");
  EXPECT_EQ(rows[1][9], "0");
  EXPECT_EQ(rows[1][10], "0");  // the first iteration started at 0
  EXPECT_EQ(rows[1][11], "");
  EXPECT_EQ(rows[2][9], "0");
  EXPECT_EQ(rows[2][10], "");  // the second never started
  ExpectExactStarts(r);
}

// ---------------------------------------------------------------------------
// CSV and JSON: the same workload, the same results.

TEST_F(DepsTest, CsvAndJsonGiveTheSameFlowsCsv) {
  for (uint64_t seed : {21, 22}) {
    test::DagOptions o;
    o.hosts = 8;
    o.start_fraction = 0.2;
    o.tag_fraction = 0.3;
    const std::vector<DagFlow> dag = test::RandomDag(seed, o);
    Write("w.csv", test::DagCsv(dag, seed));
    Write("w.json", test::DagJson(dag, seed));
    std::string flows[2];
    nlohmann::json summary[2];
    for (int k = 0; k < 2; ++k) {
      const SimRun r =
          Run("duration: 100ms\n"
              "topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 4}\n"
              "host: {cc: dcqcn}\n"
              "traffic:\n"
              "  - type: dependency_file\n"
              "    file: " +
              std::string(k == 0 ? "w.csv" : "w.json") + "\n");
      ExpectAllComplete(r);
      const std::string out = dir_ + "out" + std::to_string(k);
      fs::create_directories(out);
      WriteResults(*r.sim, r.stats, out);
      flows[k] = ReadFile(out + "/flows.csv");
      summary[k] = r.summary;
      summary[k].erase("run");
    }
    EXPECT_GT(flows[0].size(), 1000u);
    EXPECT_TRUE(flows[0] == flows[1]) << "seed " << seed;
    EXPECT_EQ(summary[0]["slowdown"], summary[1]["slowdown"]);
    EXPECT_EQ(summary[0]["events"], summary[1]["events"]);
  }
}

// ---------------------------------------------------------------------------
// The reader's errors, with the scenario's file:line before the file's own.

TEST_F(DepsTest, CycleNamesEveryFlowOnIt) {
  // d waits for the cycle without being on it; the cycle is a -> c -> b -> a.
  const std::string msg = FileError("cyc.csv",
                                    "id,src,dst,size,depends_on\n"
                                    "d,1,3,1KB,a\n"
                                    "a,0,1,1KB,c\n"
                                    "b,1,2,1KB,a\n"
                                    "c,2,0,1KB,b\n");
  const std::string f = dir_ + "cyc.csv";
  EXPECT_EQ(msg, "s.yaml:4:11: traffic.0.file: the dependencies have a cycle: \"a\" (" + f +
                     ":3) waits for \"c\" (" + f + ":5) waits for \"b\" (" + f +
                     ":4) waits for \"a\" (" + f + ":3)");
  for (const char* id : {"\"a\"", "\"b\"", "\"c\""})
    EXPECT_NE(msg.find(id), std::string::npos) << id << ": " << msg;
  EXPECT_EQ(msg.find("\"d\""), std::string::npos) << msg;
}

TEST_F(DepsTest, SelfDependencyIsACycle) {
  const std::string f = dir_ + "self.csv";
  EXPECT_EQ(FileError("self.csv",
                      "id,src,dst,size,depends_on\n"
                      "x,0,1,1KB,\n"
                      "me,0,2,1KB,x;me\n"),
            "s.yaml:4:11: traffic.0.file: the dependencies have a cycle: \"me\" (" + f +
                ":3) waits for \"me\" (" + f + ":3)");
}

TEST_F(DepsTest, CsvErrors) {
  const std::string h = "id,src,dst,size,depends_on,delay\n";
  auto err = [&](const std::string& body) { return FileError("e.csv", h + body); };
  const std::string p = Prefix("e.csv");
  EXPECT_EQ(err("a,0,1,1KB,,\nb,1,2,1KB,zz,\n"), p + ":3: depends_on: no flow has id \"zz\"");
  EXPECT_EQ(err("a,0,1,1KB,,\nb,2,3,1KB,a,\n"),
            p + ":3: depends_on: flow \"a\" (0 -> 1) neither starts nor ends at host 2, the "
                "source of \"b\"; a flow can only wait for what its source host sends or "
                "receives");
  EXPECT_EQ(err("a,0,1,1KB,,\n# comment\n\nb,1,2,1KB,,\na,1,3,1KB,,\n"),
            p + ":6: id \"a\" is already used at " + dir_ + "e.csv:2");
  EXPECT_EQ(err("a,0,1,0,,\n"),
            p + ":2: size: expected from 1 byte to 1099511627776 bytes, got \"0\"");
  EXPECT_EQ(err("a,0,1,2TiB,,\n"),
            p + ":2: size: expected from 1 byte to 1099511627776 bytes, got \"2TiB\"");
  EXPECT_NE(err("a,0,1,12XB,,\n").find(p + ":2: size: "), std::string::npos);
  EXPECT_NE(err("a,0,1,,,\n").find(p + ":2: size: "), std::string::npos);
  EXPECT_EQ(err("a,0,4,1KB,,\n"), p + ":2: dst: expected a host id from 0 to 3, got \"4\"");
  EXPECT_EQ(err("a,-1,2,1KB,,\n"), p + ":2: src: expected a host id from 0 to 3, got \"-1\"");
  EXPECT_EQ(err("a,x,2,1KB,,\n"), p + ":2: src: expected a host id from 0 to 3, got \"x\"");
  EXPECT_EQ(err("a,1,1,1KB,,\n"), p + ":2: dst: expected a host other than src (1)");
  EXPECT_NE(err("a,0,1,1KB,,soon\n").find(p + ":2: delay: "), std::string::npos);
  EXPECT_EQ(err("a,0,1,1KB,\n"),
            p + ":2: expected 6 fields (id,src,dst,size,depends_on,delay), got 5");
  EXPECT_EQ(err("a b,0,1,1KB,,\n"),
            p + ":2: id: expected a name without ',', ';' or spaces, got \"a b\"");
  EXPECT_EQ(FileError("e.csv", "id,src,dst,size,size_bytes\na,0,1,1KB,1\n"),
            p + ":1: unknown column \"size_bytes\"; columns are id, src, dst, size, depends_on, "
                "delay, start, tag, priority");
  EXPECT_EQ(FileError("e.csv", "id,src,dst\na,0,1\n"),
            p + ":1: the header lacks column \"size\" (needed: id, src, dst, size)");
  EXPECT_EQ(FileError("e.csv", "id,src,dst,size,src\n"), p + ":1: column \"src\" appears twice");
  EXPECT_EQ(FileError("e.csv", ""),
            p + ": empty file: expected a header line like id,src,dst,size,depends_on,delay");
  EXPECT_EQ(FileError("e.csv", "# only a comment\n\n  \n"),
            p + ": empty file: expected a header line like id,src,dst,size,depends_on,delay");
  EXPECT_EQ(FileError("e.csv", "id,src,dst,size\n# nothing\n"), p + ": no flows after the header");
  EXPECT_EQ(FileError("e.csv", "id,src,dst,size,priority\na,0,1,1KB,8\n"),
            p + ":2: priority: expected 0-7, got \"8\"");
  // A missing file.
  EXPECT_EQ(ErrorOf(FileScenario("missing.csv")),
            "s.yaml:4:11: traffic.0.file: cannot open dependency file '" + dir_ +
                "missing.csv': No such file or directory");
}

TEST_F(DepsTest, JsonErrors) {
  auto err = [&](const std::string& body) { return FileError("e.json", body); };
  const std::string p = "s.yaml:4:11: traffic.0.file: " + dir_ + "e.json";
  EXPECT_EQ(err(R"({"flows": [{"id": "a", "src": 0, "dst": 1, "size": "1KB", "depends_on": ["c"]},
                             {"id": "b", "src": 1, "dst": 2, "size": 1000, "depends_on": ["a"]},
                             {"id": "c", "src": 2, "dst": 0, "size": 1000, "depends_on": ["b"]}]})"),
            "s.yaml:4:11: traffic.0.file: the dependencies have a cycle: \"a\" (" + dir_ +
                "e.json: flows[0]) waits for \"c\" (" + dir_ +
                "e.json: flows[2]) waits for \"b\" (" + dir_ +
                "e.json: flows[1]) waits for \"a\" (" + dir_ + "e.json: flows[0])");
  EXPECT_EQ(err(R"({"flows": [{"id": "a", "src": 0, "dst": 1, "size": 10},
                             {"id": "b", "src": 1, "dst": 2, "size": 10, "depends_on": ["zz"]}]})"),
            p + ": flows[1]: depends_on: no flow has id \"zz\"");
  EXPECT_EQ(err(R"({"flows": [{"id": "a", "src": 0, "dst": 1, "size": 10},
                             {"id": "b", "src": 3, "dst": 2, "size": 10, "depends_on": ["a"]}]})"),
            p + ": flows[1]: depends_on: flow \"a\" (0 -> 1) neither starts nor ends at host 3, "
                "the source of \"b\"; a flow can only wait for what its source host sends or "
                "receives");
  EXPECT_EQ(err(R"({"flows": [{"id": "a", "src": 0, "dst": 1, "size": 10},
                             {"id": "a", "src": 1, "dst": 2, "size": 10}]})"),
            p + ": flows[1]: id \"a\" is already used at " + dir_ + "e.json: flows[0]");
  EXPECT_EQ(err(R"({"flows": [{"id": "a", "src": 0, "dst": 9, "size": 10}]})"),
            p + ": flows[0]: dst: expected a host id from 0 to 3, got \"9\"");
  EXPECT_EQ(err(R"({"flows": [{"id": "a", "src": 0, "dst": 1, "size": 0}]})"),
            p + ": flows[0]: size: expected from 1 byte to 1099511627776 bytes, got \"0\"");
  EXPECT_EQ(err(R"({"flows": [{"id": "a", "src": 0, "dst": 1}]})"),
            p + ": flows[0]: missing field \"size\"");
  EXPECT_EQ(err(R"({"flows": [{"id": "a", "src": 0, "dst": 1, "size": 1, "bytes": 1}]})"),
            p + ": flows[0]: unknown field \"bytes\"; fields are id, src, dst, size, depends_on, "
                "delay, start, tag, priority");
  EXPECT_EQ(err(R"({"flows": [{"id": "a", "src": 0, "dst": 1, "size": 1, "depends_on": "b"}]})"),
            p + ": flows[0]: depends_on: expected a list of ids");
  EXPECT_EQ(err(R"({"flows": []})"), p + ": \"flows\" is empty");
  EXPECT_EQ(err(R"([])"), p + ": expected an object {\"flows\": [...]}");
  EXPECT_EQ(err(""), p + ":1: not valid JSON (byte 1): expected {\"flows\": [...]}");
  EXPECT_EQ(err("{\"flows\": [\n{\"id\": \"a\",,}]}"),
            p + ":2: not valid JSON (byte 24): expected {\"flows\": [...]}");
  // A number beyond a double escaped as the JSON library's out_of_range
  // (found by the fuzzer): now a file:line error.
  EXPECT_EQ(err("{\"flows\": [\n{\"id\": \"a\", \"src\": 0, \"dst\": 1,\n \"size\": -91e308}]}"),
            p + ":3: -91e308: a number beyond a double's range");
}

// The reader rejects an unknown key on the entry, and keys of other types.
TEST_F(DepsTest, EntryKeys) {
  Write("ok.csv", "id,src,dst,size\na,0,1,1KB\n");
  EXPECT_EQ(ErrorOf("topology: {type: star, hosts: 4}\n"
                    "traffic:\n"
                    "  - type: dependency_file\n"),
            "s.yaml:3:5: traffic.0: missing required key 'file' (a CSV or JSON dependency file)");
  const Scenario sc = Parse(
      "topology: {type: star, hosts: 4}\n"
      "traffic: [{type: dependency_file, file: ok.csv, priority: 5, tag: mine, cc: dctcp}]\n");
  ASSERT_EQ(sc.traffic.size(), 1u);
  ASSERT_EQ(sc.traffic[0].flows.size(), 1u);
  EXPECT_EQ(sc.traffic[0].flows[0].priority, 5);
  EXPECT_EQ(sc.traffic[0].flows[0].tag, "mine");
  EXPECT_EQ(sc.traffic[0].flows[0].cc, CcKind::kDctcp);
}

// ---------------------------------------------------------------------------
// FlowDependencies::Build on its own (what the readers cannot reach).

TEST(FlowDependenciesBuild, RejectsWhatCannotResolve) {
  FlowDependencies d;
  // Flows 0: 0 -> 1, 1: 1 -> 2, 2: 2 -> 0.
  const std::vector<uint32_t> src = {0, 1, 2}, dst = {1, 2, 0};
  const std::vector<Time> zero(3, 0);
  auto msg = [&](const std::vector<FlowDependencies::Edge>& e,
                 const std::vector<uint32_t>& joins = {}) -> std::string {
    std::vector<Time> z(3 + joins.size(), 0);
    try {
      FlowDependencies x;
      x.Build(src, dst, joins, e, z, z);
    } catch (const std::invalid_argument& ex) {
      return ex.what();
    }
    return "";
  };
  // Flow 2 (source 2) waits for flow 0 (0 -> 1).
  EXPECT_EQ(msg({{0, 2}}),
            "flow 2 waits for flow 0, which neither starts nor ends at host 2 where flow 2 is "
            "resolved (a dependency must be complete at the dependent flow's source host)");
  EXPECT_EQ(msg({{2, 0}, {0, 1}, {1, 2}}),
            "the dependencies have a cycle: flow 0 waits for flow 2 waits for flow 1 waits for "
            "flow 0");
  EXPECT_EQ(msg({{0, 5}}), "a dependency names node 5 of 3");
  EXPECT_EQ(msg({}, {1}), "join 0 waits for nothing");
  // A join at host 1 waiting for flow 0 (which ends there) and flow 1 (which
  // starts there); flow 1 waiting for the join.
  EXPECT_EQ(msg({{0, 3}, {3, 1}}, {1}), "");
  EXPECT_EQ(msg({{1, 3}, {3, 1}}, {1}),
            "the dependencies have a cycle: flow 1 waits for join 0 waits for flow 1");
  d.Build(src, dst, {}, {{0, 1}, {1, 2}}, zero, zero);
  EXPECT_FALSE(d.Empty());
  EXPECT_FALSE(d.Waits(0));
  EXPECT_TRUE(d.Waits(1));
  EXPECT_TRUE(d.Waits(2));
  EXPECT_EQ(d.NumEdges(), 2u);
  FlowDependencies none;
  none.Build(src, dst, {}, {}, zero, zero);
  EXPECT_TRUE(none.Empty());
  EXPECT_FALSE(none.Waits(1));
}

}  // namespace
}  // namespace test_flow_dependencies
}  // namespace rocesim
