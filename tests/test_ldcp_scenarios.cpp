// LDCP scenario tests against what the draft claims (seed 001,
// draft-dai-tsvwg-pfc-free-congestion-control-01), each a small scenario run
// through the library with PFC off:
//  1. §2.2: a handful of long flows keep the bottleneck queue far below K_max
//     at high utilisation;
//  2. §2.3: a new BDP-sized flow on an idle path finishes in about its ideal
//     FCT (zero-RTT fast start at line rate);
//  3. §2.3 / §3.1 switch side: fast-start packets (ECN-incapable) are
//     WRED-dropped above K while ECN-capable ones are queued; the ECN-capable
//     last fast-start packet exposes the loss, so nobody waits for a timeout;
//  4. §2.2: a 256-to-1 incast on a 257-host star drives windows below one
//     packet and completes with a bounded queue and no stable-stage drops;
//  5. PFC-free: LDCP alone on a fat tree without PFC, with a buffer small
//     enough to overflow, loses nothing permanently (every flow completes);
//  6. the NIC ACKs a CE-marked packet at once even when coalescing (§2.2);
//  7. §3.2 event-API variant: bounded queue, busy link;
//  8. examples/ldcp-vs-dcqcn.yaml parses under both of its configurations.
// Measured values are quoted per test (Release build).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cc/ldcp.h"
#include "scenario/scenario_reader.h"
#include "sim/simulation.h"

namespace rocesim {
namespace test_ldcp_scenarios {
namespace {

constexpr int kDataPrio = 3;
constexpr double kCeiling100G = 100e9 * 1000.0 / 1082.0;  // goodput ceiling, b/s

std::unique_ptr<Simulation> Build(const std::string& yaml,
                                  const std::vector<std::string>& sets = {}) {
  return std::make_unique<Simulation>(ParseScenarioText(yaml, "test.yaml", "", sets, std::nullopt));
}

// The egress port of the switch towards `host`.
PortId EgressTo(const Fabric& f, uint32_t host) {
  return f.ports[f.nics[host].port()].peer;
}

const Ldcp* LdcpOf(const Fabric& f, uint32_t flow) {
  return dynamic_cast<const Ldcp*>(f.cc[flow].get());
}

// PFC off; one priority queue with RED/ECN for ECN-capable packets and WRED
// drop above K for ECN-incapable ones (§2.1, §2.3).
constexpr char kSwitch[] = R"(
switch:
  pfc: {enabled: false}
  ecn: {enabled: true, kmin: 5KB, kmax: 100KB, pmax: 1, wred_drop: 30KB}
host: {cc: ldcp}
)";

// Four long flows into one 100G port, for 2 ms.
constexpr const char* kFourLongFlows = R"(
duration: 2ms
topology: {type: star, hosts: 5, host_link: {rate: 100Gbps, delay: 1us}}
traffic:
  - type: flows
    flows:
      - {src: 1, dst: 0, size: 100MB}
      - {src: 2, dst: 0, size: 100MB}
      - {src: 3, dst: 0, size: 100MB}
      - {src: 4, dst: 0, size: 100MB}
)";

// 1. Four long flows into one 100G port. Measured over the second
// millisecond: queue mean 16.0 KB, max 21.2 KB (K_max 100 KB); goodput
// 92.4 Gb/s, the ceiling; no drops.
TEST(LdcpScenario, LongFlowsKeepTheQueueFarBelowKmaxAtHighUtilisation) {
  auto sim = Build(std::string(kFourLongFlows) + kSwitch);
  Fabric& f = sim->fabric();
  const PortId bn = EgressTo(f, 0);
  ASSERT_TRUE(sim->Advance(1 * kMillisecond));
  std::vector<uint32_t> una0;
  for (const Flow& fl : f.flows) una0.push_back(fl.snd_una);
  const uint64_t drops0 = f.counters.TotalDrops();
  double sum = 0, qmax = 0;
  int samples = 0;
  for (Time t = 1 * kMillisecond + 5 * kMicrosecond; t <= 2 * kMillisecond; t += 5 * kMicrosecond) {
    ASSERT_TRUE(sim->Advance(t));
    const double q = static_cast<double>(f.ports[bn].queue[kDataPrio].bytes);
    sum += q;
    qmax = std::max(qmax, q);
    ++samples;
  }
  double goodput = 0;
  for (size_t i = 0; i < f.flows.Count(); ++i) {
    goodput += static_cast<double>(f.flows[i].snd_una - una0[i]) * 1000 * 8 / 1e-3;
    EXPECT_FALSE(LdcpOf(f, static_cast<uint32_t>(i))->in_fast_start());
  }
  const double mean = sum / samples;
  EXPECT_LT(mean, 25'000) << "queue mean " << mean;
  EXPECT_LT(qmax, 60'000) << "queue max " << qmax;
  EXPECT_GT(goodput, 0.95 * kCeiling100G) << goodput / 1e9 << " Gb/s";
  EXPECT_EQ(f.counters.TotalDrops(), drops0) << "stable-stage packets were dropped";
}

// 2. Zero-RTT fast start: a flow of one BDP (line rate x base RTT) alone on
// its path is sent at line rate from the first packet and finishes at its
// ideal FCT, as do a 3-packet flow and a 2-BDP one (the second BDP rides on
// the ACKs of the first). Measured: slowdown 1.000 for all three, no loss
// (on an idle path the first-RTT packets never meet a queue above K).
TEST(LdcpScenario, ShortFlowOnAnIdlePathFinishesNearItsIdealFct) {
  auto probe = Build(std::string(R"(
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
traffic: [{type: flows, flows: [{src: 1, dst: 0, size: 1KB}]}]
)") + kSwitch);
  const Time rtt = probe->fabric().flows[0].cc.base_rtt;
  const int64_t bdp = 100'000'000'000 / 8 * rtt / kSecond;
  auto sim = Build(std::string(R"(
duration: 1ms
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
traffic:
  - type: flows
    flows:
      - {src: 1, dst: 0, size: )") +
                   std::to_string(bdp) + R"(B}
      - {src: 2, dst: 0, size: 3KB, start: 100us}
      - {src: 1, dst: 0, size: )" +
                   std::to_string(2 * bdp) +
                   R"(B, start: 200us}
)" + kSwitch);
  const RunStats st = sim->Run();
  ASSERT_TRUE(st.all_flows_done);
  const Fabric& f = sim->fabric();
  for (const Flow& fl : f.flows) {
    const Time fct = fl.finish - fl.start;
    EXPECT_LT(static_cast<double>(fct) / static_cast<double>(fl.ideal_fct), 1.05)
        << "flow " << fl.id << " fct " << fct << " ideal " << fl.ideal_fct;
    EXPECT_LT(fct - fl.ideal_fct, rtt) << "flow " << fl.id;
  }
  EXPECT_EQ(f.counters.TotalDrops(), 0u);
  EXPECT_EQ(f.counters.retransmitted_packets, 0u);
}

// 3. Eight senders start 200 KB each at once into one port (K = 30 KB): the
// switch WRED-drops their ECN-incapable fast-start packets once the queue
// exceeds K, never an ECN-capable one (no buffer drops), and the ECN-capable
// IW-th packet reaches the receiver and triggers the NAK, so go-back-N
// recovers without a retransmission timeout.
// Measured: ECN-incapable bytes queued <= 30.8 KB while the queue reaches
// 43.5 KB; 335 WRED drops, 8 NAKs, 0 timeouts, done at 160 us.
TEST(LdcpScenario, FastStartPacketsAreWredDroppedAndLossIsDetectedWithoutTimeout) {
  auto sim = Build(std::string(R"(
duration: 5ms
topology: {type: star, hosts: 9, host_link: {rate: 100Gbps, delay: 1us}}
traffic: [{type: incast, senders: "1-8", receiver: 0, size: 200KB}]
)") + kSwitch);
  Fabric& f = sim->fabric();
  const PortId bn = EgressTo(f, 0);
  // Both policies on the one queue: ECN-incapable (first-RTT) packets are
  // admitted only while the queue is at most K, so they never hold more than
  // K plus the one frame admitted at K; ECN-capable packets (each sender's
  // IW-th and those clocked out by ACKs) are queued beyond K.
  int64_t max_not_ect = 0, max_total = 0;
  for (Time t = 100 * kNanosecond; t <= 60 * kMicrosecond; t += 100 * kNanosecond) {
    ASSERT_TRUE(sim->Advance(t));
    const PacketFifo& q = f.ports[bn].queue[kDataPrio];
    int64_t not_ect = 0;
    for (PktId id = q.head; id != kNoPkt; id = f.pool[id].next)
      if (f.pool[id].ecn == kNotEct) not_ect += f.pool[id].size;
    max_not_ect = std::max(max_not_ect, not_ect);
    max_total = std::max(max_total, q.bytes);
  }
  EXPECT_GT(max_not_ect, 25'000);
  EXPECT_LE(max_not_ect, 30'000 + 1062);
  EXPECT_GT(max_total, 30'000 + 1062);
  while (sim->Advance(sim->fabric().now + 100 * kMicrosecond)) {
  }
  const Counters& c = f.counters;
  EXPECT_GT(c.drops[static_cast<size_t>(DropCause::kWred)], 0u);
  EXPECT_EQ(c.TotalDrops(), c.drops[static_cast<size_t>(DropCause::kWred)]);
  EXPECT_GT(c.naks_sent, 0u);
  EXPECT_EQ(c.timeouts, 0u);
  for (const Flow& fl : f.flows) {
    EXPECT_TRUE(fl.Finished()) << fl.id;
    EXPECT_FALSE(LdcpOf(f, fl.id)->in_fast_start());
  }
}

// 4. 256-to-1 incast of 64 KB each on a 257-host star (BDP ~ 53 packets, so
// 256 windows of one packet would still queue ~200 KB): windows fall below
// one packet, the queue stays bounded once the fast-start burst has drained,
// no packet is lost after fast start, and the 16.4 MB arrive at ~95% of the
// link. Measured: min cw 1/8 (gamma), queue max 76 KB after 100 us (291 KB
// in the first 10 us: K plus the 256 ECN-capable IW-th packets), 13231 WRED
// drops (fast-start packets only), 0 timeouts, done at 1.508 ms (all 16.4 MB
// at the goodput ceiling: 1.418 ms).
TEST(LdcpScenario, Incast256DrivesWindowsBelowOnePacketWithBoundedQueue) {
  auto sim = Build(std::string(R"(
duration: 20ms
topology: {type: star, hosts: 257, host_link: {rate: 100Gbps, delay: 1us}}
traffic: [{type: incast, senders: "1-256", receiver: 0, size: 64KB}]
)") + kSwitch);
  Fabric& f = sim->fabric();
  const PortId bn = EgressTo(f, 0);
  double min_cw = 1e9;
  int64_t qmax_late = 0;
  uint64_t drops_after_fast_start = 0;
  bool all_stable = false;
  uint64_t drops_at_stable = 0;
  bool running = true;
  for (Time t = 2 * kMicrosecond; running; t += 2 * kMicrosecond) {
    running = sim->Advance(t);
    bool any_fast = false;
    for (const Flow& fl : f.flows) {
      if (fl.Finished()) continue;
      const Ldcp* cc = LdcpOf(f, fl.id);
      any_fast |= cc->in_fast_start();
      min_cw = std::min(min_cw, cc->cw());
    }
    if (!any_fast && !all_stable) {
      all_stable = true;
      drops_at_stable = f.counters.TotalDrops();
    }
    if (all_stable) drops_after_fast_start = f.counters.TotalDrops() - drops_at_stable;
    if (t >= 100 * kMicrosecond)
      qmax_late = std::max(qmax_late, f.ports[bn].queue[kDataPrio].bytes);
  }
  for (const Flow& fl : f.flows) ASSERT_TRUE(fl.Finished()) << fl.id;
  EXPECT_LT(min_cw, 1.0);
  EXPECT_DOUBLE_EQ(min_cw, 1.0 / 8);  // gamma, the minimum window
  EXPECT_LT(qmax_late, 120'000) << qmax_late;
  EXPECT_TRUE(all_stable);
  EXPECT_EQ(drops_after_fast_start, 0u);
  EXPECT_EQ(f.counters.drops[static_cast<size_t>(DropCause::kBufferFull)], 0u);
  EXPECT_EQ(f.counters.timeouts, 0u);
  Time last = 0;
  for (const Flow& fl : f.flows) last = std::max(last, fl.finish);
  const double ideal = 256.0 * 64000 * 8 / kCeiling100G;  // seconds at the goodput ceiling
  EXPECT_LT(ToSeconds(last), 1.2 * ideal) << ToSeconds(last) << " s vs " << ideal;
}

// 5. PFC-free: all-to-all of 64 KB among the 16 hosts of a k=4 fat tree plus
// a 15-to-1 incast of 500 KB, PFC off and a 300 KB shared buffer per switch
// (so that buffers overflow, not only WRED): go-back-N and the RTO recover
// every loss. Measured: 2036 drops (1598 buffer overflows, the rest WRED),
// 68 retransmission timeouts, every flow done at 1.48 ms.
TEST(LdcpScenario, PfcFreeFabricLosesNothingPermanently) {
  auto sim = Build(R"(
duration: 50ms
topology: {type: fat_tree, k: 4, host_link: {rate: 100Gbps, delay: 1us},
           fabric_link: {rate: 100Gbps, delay: 1us}, core_link: {rate: 100Gbps, delay: 1us}}
switch:
  buffer: 300KB
  reserved: 1KB
  pfc: {enabled: false}
  ecn: {enabled: true, kmin: 5KB, kmax: 100KB, pmax: 1, wred_drop: 30KB}
host: {cc: ldcp}
traffic:
  - {type: all_to_all, size: 64KB}
  - {type: incast, senders: "1-15", receiver: 0, size: 500KB, start: 20us}
)");
  const RunStats st = sim->Run();
  const Fabric& f = sim->fabric();
  EXPECT_TRUE(st.all_flows_done);
  uint32_t done = 0;
  for (const Flow& fl : f.flows) done += fl.Finished() ? 1 : 0;
  EXPECT_EQ(done, f.flows.Count());
  EXPECT_GT(f.counters.TotalDrops(), 0u) << "the scenario should lose packets";
  EXPECT_GT(f.counters.drops[static_cast<size_t>(DropCause::kBufferFull)], 0u);
  EXPECT_EQ(f.counters.pause_sent, 0u);
  uint64_t payload = 0;
  for (const Flow& fl : f.flows) payload += static_cast<uint64_t>(fl.size_bytes);
  EXPECT_GE(f.counters.delivered_payload_bytes, payload);
}

// 6. The responder ACKs a CE-marked packet at once even when it coalesces
// (host.ack_every 16), so every mark reaches the sender in its own ACK
// (§2.2), while unmarked packets are still coalesced. Two line-rate flows (no
// congestion control) into one port, marked with probability queue / 1 MB.
// Measured: 178 of 800 packets marked, 220 ACKs (coalescing alone: ~52).
TEST(LdcpScenario, CeMarkedPacketsAreAckedAtOnceWhenCoalescing) {
  auto sim = Build(R"(
duration: 2ms
topology: {type: star, hosts: 3, host_link: {rate: 100Gbps, delay: 1us}}
switch: {pfc: {enabled: false}, ecn: {enabled: true, kmin: 0B, kmax: 1MB, pmax: 1}}
host: {cc: none, ack_every: 16}
traffic:
  - type: flows
    flows: [{src: 1, dst: 0, size: 400KB}, {src: 2, dst: 0, size: 400KB}]
)");
  ASSERT_TRUE(sim->Run().all_flows_done);
  const Fabric& f = sim->fabric();
  uint64_t marked = 0, packets = 0;
  for (const Flow& fl : f.flows) marked += fl.ecn_marked, packets += fl.packets;
  ASSERT_GT(marked, packets / 10) << "too few marks to tell";
  // Each marked packet got its own ACK; unmarked ones share ACKs of <= 16.
  EXPECT_GE(f.counters.acks_sent, marked);
  EXPECT_LE(f.counters.acks_sent, marked + (packets - marked) / 16 + 2 * f.flows.Count() + 2);
}

// 7. §3.2 event-API variant, a CNP per CE-marked packet (cnp_interval 0):
// the four long flows of test 1. Measured: queue mean 18.2 KB, max 65.8 KB,
// goodput 81.4 Gb/s (rate-based AIMD on CNPs oscillates more than per-ACK
// windows), no drops.
TEST(LdcpScenario, EventApiVariantBoundsTheQueue) {
  auto sim = Build(std::string(kFourLongFlows) + kSwitch,
                   {"host.ldcp.variant=event_api", "host.cnp_interval=0us"});
  Fabric& f = sim->fabric();
  const PortId bn = EgressTo(f, 0);
  ASSERT_TRUE(sim->Advance(1 * kMillisecond));
  uint32_t una0 = 0;
  for (const Flow& fl : f.flows) una0 += fl.snd_una;
  double sum = 0, qmax = 0;
  int samples = 0;
  for (Time t = 1 * kMillisecond + 5 * kMicrosecond; t <= 2 * kMillisecond; t += 5 * kMicrosecond) {
    ASSERT_TRUE(sim->Advance(t));
    const double q = static_cast<double>(f.ports[bn].queue[kDataPrio].bytes);
    sum += q;
    qmax = std::max(qmax, q);
    ++samples;
  }
  uint32_t una1 = 0;
  for (const Flow& fl : f.flows) una1 += fl.snd_una;
  const double goodput = static_cast<double>(una1 - una0) * 1000 * 8 / 1e-3;
  EXPECT_LT(sum / samples, 50'000);
  EXPECT_LT(qmax, 100'000);
  EXPECT_GT(goodput, 0.75 * kCeiling100G) << goodput / 1e9;
  EXPECT_GT(f.counters.cnps_received, 0u);
  EXPECT_EQ(f.counters.TotalDrops(), 0u);
}

// 8. The comparison example parses and builds as written (LDCP, PFC off) and
// with its documented DCQCN + PFC overrides.
TEST(LdcpScenario, ComparisonExampleParsesInBothConfigurations) {
  const std::string path = std::string(ROCESIM_SOURCE_DIR) + "/examples/ldcp-vs-dcqcn.yaml";
  const Scenario ldcp = LoadScenario(path, {}, std::nullopt);
  EXPECT_EQ(ldcp.host.cc, CcKind::kLdcp);
  EXPECT_FALSE(ldcp.sw.pfc.enabled);
  EXPECT_GT(ldcp.sw.ecn.wred_drop_bytes, 0);
  const Scenario dcqcn =
      LoadScenario(path,
                   {"host.cc=dcqcn", "switch.pfc.enabled=true", "switch.ecn.kmin=100KB",
                    "switch.ecn.kmax=400KB", "switch.ecn.pmax=0.2", "switch.ecn.wred_drop=0"},
                   std::nullopt);
  EXPECT_EQ(dcqcn.host.cc, CcKind::kDcqcn);
  EXPECT_TRUE(dcqcn.sw.pfc.enabled);
  EXPECT_EQ(dcqcn.sw.ecn.wred_drop_bytes, 0);
  Simulation a(ldcp), b(dcqcn);
  EXPECT_GT(a.fabric().flows.Count(), 100u);
  EXPECT_EQ(a.fabric().flows.Count(), b.fabric().flows.Count());
}

}  // namespace
}  // namespace test_ldcp_scenarios
}  // namespace rocesim
