// Unknown unicast and the IP TTL (SIGCOMM'16 §4.2; src/net/switch_flood.cpp,
// src/ops/mac_entry_loss.h), at the level of one forwarding decision: frames
// handed straight to a switch of a 2x2 leaf-spine (hosts 0-2 on ToR node 6,
// 3-5 on ToR node 7, Leafs 8 and 9; ToR ports 0-2 face the hosts, 3 and 4 the
// Leafs):
//  - a packet to a host whose MAC entry is gone is flooded out of every port
//    but the ingress, one frame each (new pool ids), in the packet's class,
//    with the TTL decremented; the ingress is charged the packet once;
//  - a known destination at the same switch is forwarded to one port;
//  - every hop decrements the TTL; a packet whose TTL reaches 0 is dropped
//    (ttl_expired);
//  - unknown_unicast: drop drops lossless packets (unknown_mac) and still
//    floods lossy ones;
//  - mac_entry_loss kills the server (its NIC drops what arrives and holds
//    what it would send) and turns on the MAC filter of every NIC (a frame
//    for another host: wrong_host); `until` brings both back;
//  - the reader: the fault and the switch option, with file:line errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "net/switch_forward.h"
#include "ops/mac_entry_loss.h"
#include "scenario/scenario_reader.h"
#include "sim/simulation.h"
#include "tests/sim_test_support.h"

namespace rocesim {
namespace test_flooding {
namespace {

constexpr const char* kClos = R"(
duration: 1ms
topology: {type: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 3}
switch: {pfc: {enabled: true, priorities: [3]}}
host: {cc: none}
)";

constexpr uint32_t kTor1 = 7;      // hosts 3, 4, 5
constexpr uint16_t kFromLa = 3;    // ToR port facing Leaf node 8
constexpr int kLosslessDscp = 24;  // priority 3
constexpr int kLossyDscp = 0;      // priority 0
constexpr uint32_t kFrame = 1062;  // 1000 B payload + headers

std::unique_ptr<Simulation> Build(const std::vector<std::string>& sets = {}) {
  return std::make_unique<Simulation>(ParseScenarioText(kClos, "t.yaml", "", sets, std::nullopt));
}

Switch& SwitchAt(Fabric& f, uint32_t node) {
  return f.switches[f.nodes[node].index];
}
PortId PortOf(const Fabric& f, uint32_t node, uint16_t local) {
  return f.nodes[node].first_port + local;
}

PktId MakeData(Fabric& f, uint32_t dst, int dscp, uint8_t ttl) {
  const PktId id = f.pool.Alloc();
  Packet& p = f.pool[id];
  p.type = PktType::kData;
  p.dscp = static_cast<uint8_t>(dscp);
  p.src = 0;
  p.dst = dst;
  p.size = kFrame;
  p.payload = 1000;
  p.ttl = ttl;
  p.flow_key = Routing::FlowKey(0, dst, 49152);
  // Counted as a NIC counts what it injects, so that conservation (and a
  // checks build's invariants, stats/invariants.h) hold for frames made here.
  f.counters.injected_frames++;
  f.counters.injected_payload_bytes += p.payload;
  return id;
}

// Frames a port holds: queued for it or already on its wire.
std::vector<PktId> FramesAt(const Fabric& f, PortId port) {
  std::vector<PktId> ids;
  const Port& p = f.ports[port];
  p.wire.ForEach(f.pool, [&](PktId id, Time) { ids.push_back(id); });
  for (const PacketFifo* fifo : {&p.queue[0], &p.queue[3]})
    for (PktId id = fifo->head; id != kNoPkt; id = f.pool[id].next) ids.push_back(id);
  return ids;
}

uint64_t Drops(const Fabric& f, DropCause c) {
  return f.counters.drops[static_cast<size_t>(c)];
}

TEST(Flooding, CopiesGoOutOfEveryPortButTheIngressInTheSameClass) {
  auto sim = Build();
  Fabric& f = sim->fabric();
  SwitchAt(f, kTor1).SetMacEntryMissing(3, true);
  // Hold the copies in their queues (the peers paused them) to see the buffer charge.
  for (uint16_t l = 0; l < 5; ++l) f.ports[PortOf(f, kTor1, l)].SetPausedUntil(3, kTimeMax, f.now);
  const PktId orig = MakeData(f, 3, kLosslessDscp, 10);
  SwitchAt(f, kTor1).Receive(f, PortOf(f, kTor1, kFromLa), orig);

  EXPECT_TRUE(FramesAt(f, PortOf(f, kTor1, kFromLa)).empty());
  std::vector<PktId> seen;
  for (uint16_t l : {0, 1, 2, 4}) {
    const std::vector<PktId> at = FramesAt(f, PortOf(f, kTor1, l));
    ASSERT_EQ(at.size(), 1u) << "port " << l;
    const Packet& p = f.pool[at[0]];
    EXPECT_EQ(f.ports[PortOf(f, kTor1, l)].queue[3].count, 1u);  // the lossless class
    EXPECT_EQ(p.priority, 3);
    EXPECT_EQ(p.dst, 3u);
    EXPECT_EQ(p.ttl, 9);
    EXPECT_EQ(p.size, kFrame);
    EXPECT_EQ(p.in_port, kFromLa);
    seen.push_back(at[0]);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end()) << "one pool id per copy";
  EXPECT_NE(std::find(seen.begin(), seen.end(), orig), seen.end());
  EXPECT_EQ(f.counters.replicated_frames, 3u);
  EXPECT_EQ(f.counters.replicated_payload_bytes, 3000u);
  // Charged once to the ingress (port, priority), not once per copy.
  EXPECT_EQ(SwitchAt(f, kTor1).mmu().PgBytes(kFromLa, 3), kFrame);
  EXPECT_EQ(SwitchAt(f, kTor1).mmu().TotalBytes(), kFrame);
  EXPECT_EQ(f.counters.TotalDrops(), 0u);
}

TEST(Flooding, CopiesReleaseExactlyTheirCharge) {
  auto sim = Build();
  Fabric& f = sim->fabric();
  Switch& tor = SwitchAt(f, kTor1);
  ops::StartMacEntryLoss(f, 3);
  // From host 4's port: four other ports (host 5, dead host 3, both Leafs).
  const PortId in = PortOf(f, kTor1, 1);
  for (int i = 0; i < 7; ++i) tor.Receive(f, in, MakeData(f, 3, kLosslessDscp, 64));
  EXPECT_EQ(f.counters.replicated_frames, 7u * 3);
  // Until every copy is gone: the NICs drop theirs, the Leafs send theirs
  // back and the ToR floods them again until their TTL runs out.
  sim->Advance(500 * kMicrosecond);
  EXPECT_GT(f.counters.replicated_frames, 7u * 3 * 31);
  EXPECT_EQ(Drops(f, DropCause::kTtlExpired), 7u * 2);  // one per uplink copy of the first flood
  for (const Switch& s : f.switches) {
    EXPECT_EQ(s.mmu().TotalBytes(), 0) << "node " << s.node();
    EXPECT_EQ(s.mmu().SharedUsed(), 0) << "node " << s.node();
  }
  EXPECT_EQ(f.FramesInNetwork(nullptr), 0u);
}

TEST(Flooding, KnownDestinationIsForwardedToOnePort) {
  auto sim = Build();
  Fabric& f = sim->fabric();
  SwitchAt(f, kTor1).SetMacEntryMissing(3, true);
  SwitchAt(f, kTor1).Receive(f, PortOf(f, kTor1, kFromLa), MakeData(f, 4, kLosslessDscp, 10));
  const std::vector<PktId> at = FramesAt(f, PortOf(f, kTor1, 1));  // host 4's port
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(f.pool[at[0]].ttl, 9);
  for (uint16_t l : {0, 2, 3, 4}) EXPECT_TRUE(FramesAt(f, PortOf(f, kTor1, l)).empty());
  EXPECT_EQ(f.counters.replicated_frames, 0u);
}

TEST(Flooding, EveryHopDecrementsTheTtlAndZeroIsDropped) {
  auto sim = Build();
  Fabric& f = sim->fabric();
  Switch& tor = SwitchAt(f, kTor1);  // no MAC entry missing anywhere
  const PortId in = PortOf(f, kTor1, kFromLa);
  tor.Receive(f, in, MakeData(f, 4, kLosslessDscp, 2));
  const std::vector<PktId> at = FramesAt(f, PortOf(f, kTor1, 1));
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(f.pool[at[0]].ttl, 1);
  tor.Receive(f, in, MakeData(f, 4, kLosslessDscp, 1));
  EXPECT_EQ(Drops(f, DropCause::kTtlExpired), 1u);
  EXPECT_EQ(FramesAt(f, PortOf(f, kTor1, 1)).size(), 1u);  // only the first
  EXPECT_EQ(tor.mmu().TotalBytes(), 0);

  // A looping flooded packet: 10 packets of a flow to dead host 3 flood at
  // its ToR on every pass (TTL 61, 59, ..., 1 after the decrement: 31
  // floods of 3 copies each) and die at a Leaf with TTL 0.
  const test::SimRun r = test::RunYaml(std::string(kClos) + R"(
faults: [{type: mac_entry_loss, host: 3, at: 0us}]
traffic: [{type: flows, flows: [{src: 0, dst: 3, size: 10000B}]}]
)",
                                       {"duration=900us"});
  EXPECT_EQ(r.summary["drops"]["ttl_expired"].get<uint64_t>(), 10u);
  EXPECT_EQ(r.fabric().counters.replicated_frames, 10u * 31 * 3);
  EXPECT_EQ(r.summary["drops"]["wrong_host"].get<uint64_t>(), 10u * 31 * 2);
  EXPECT_EQ(r.summary["drops"]["receiver_down"].get<uint64_t>(), 10u * 31);
  EXPECT_EQ(r.summary["conservation"]["in_network_frames"].get<uint64_t>(), 0u);
  // Every copy ends at a server; the originals end at the Leaf: dropped
  // frames are the copies plus the 10 originals.
  EXPECT_EQ(r.summary["conservation"]["dropped_frames"].get<uint64_t>(), 10u * 31 * 3 + 10);
  EXPECT_FALSE(r.fabric().flows[0].Finished());
  test::ExpectConserved(r.summary);
}

TEST(Flooding, DropModeDropsLosslessAndStillFloodsLossy) {
  auto sim = Build({"switch.unknown_unicast=drop"});
  Fabric& f = sim->fabric();
  Switch& tor = SwitchAt(f, kTor1);
  tor.SetMacEntryMissing(3, true);
  const PortId in = PortOf(f, kTor1, kFromLa);
  tor.Receive(f, in, MakeData(f, 3, kLosslessDscp, 10));
  EXPECT_EQ(Drops(f, DropCause::kUnknownMac), 1u);
  EXPECT_EQ(f.counters.replicated_frames, 0u);
  for (uint16_t l = 0; l < 5; ++l) EXPECT_TRUE(FramesAt(f, PortOf(f, kTor1, l)).empty());
  tor.Receive(f, in, MakeData(f, 3, kLossyDscp, 10));
  EXPECT_EQ(f.counters.replicated_frames, 3u);
  for (uint16_t l : {0, 1, 2, 4}) {
    const std::vector<PktId> at = FramesAt(f, PortOf(f, kTor1, l));
    ASSERT_EQ(at.size(), 1u);
    EXPECT_EQ(f.pool[at[0]].priority, 0);
  }
  EXPECT_EQ(Drops(f, DropCause::kUnknownMac), 1u);
  // The flag goes with the last missing entry.
  tor.SetMacEntryMissing(3, false);
  EXPECT_FALSE(tor.MacEntryMissing(3));
  tor.Receive(f, in, MakeData(f, 3, kLosslessDscp, 10));
  EXPECT_EQ(Drops(f, DropCause::kUnknownMac), 1u);
  EXPECT_EQ(FramesAt(f, PortOf(f, kTor1, 0)).size(), 2u);  // host 3's port: the lossy copy, this
}

TEST(MacEntryLoss, KillsTheServerAndFiltersOtherHostsFrames) {
  auto sim = Build();
  Fabric& f = sim->fabric();
  ops::StartMacEntryLoss(f, 3);
  EXPECT_TRUE(SwitchAt(f, kTor1).MacEntryMissing(3));
  EXPECT_FALSE(SwitchAt(f, 6).MacEntryMissing(3));  // only its own ToR lost it
  EXPECT_TRUE(f.ports[f.nics[3].port()].tx_hold);
  // The dead server drops what arrives, pause frames included.
  f.nics[3].Receive(f, MakeData(f, 3, kLosslessDscp, 60));
  EXPECT_EQ(Drops(f, DropCause::kReceiverDown), 1u);
  // A live server's MAC filter discards another host's frame, anywhere in the fabric.
  f.nics[4].Receive(f, MakeData(f, 3, kLosslessDscp, 60));
  f.nics[1].Receive(f, MakeData(f, 3, kLosslessDscp, 60));
  EXPECT_EQ(Drops(f, DropCause::kWrongHost), 2u);
  EXPECT_EQ(f.counters.delivered_frames, 0u);

  ops::StopMacEntryLoss(f, 3);
  EXPECT_FALSE(SwitchAt(f, kTor1).MacEntryMissing(3));
  EXPECT_FALSE(f.ports[f.nics[3].port()].tx_hold);
  EXPECT_FALSE(f.nics[3].fault.dead);
  EXPECT_TRUE(f.nics[4].fault.mac_filter);  // copies may still be on their way
  EXPECT_EQ(f.ops.events.size(), 2u);
  EXPECT_EQ(f.ops.events[0].event, "mac_entry_loss_start");
  EXPECT_EQ(f.ops.events[0].node, kTor1);
  EXPECT_EQ(f.ops.events[0].port, 0);  // the ToR's port to host 3
  EXPECT_EQ(f.ops.events[1].event, "mac_entry_loss_end");
}

TEST(MacEntryLoss, UntilBringsTheServerBackAndItsFlowCompletes) {
  const std::string yaml = std::string(kClos) + R"(
faults: [{type: mac_entry_loss, host: 3, at: 0us, until: 300us}]
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 3, size: 100KB, start: 0us}
      - {src: 3, dst: 1, size: 100KB, start: 0us}
)";
  const test::SimRun r = test::RunYaml(yaml, {"duration=5ms"});
  const Fabric& f = r.fabric();
  // Both wait for the server: to it, by retransmission after the 1 ms RTO;
  // from it, held until it is back.
  ASSERT_TRUE(f.flows[0].Finished());
  ASSERT_TRUE(f.flows[1].Finished());
  EXPECT_GT(f.flows[0].finish, kMillisecond);
  EXPECT_GT(f.flows[1].finish, 300 * kMicrosecond);
  EXPECT_GT(f.counters.replicated_frames, 0u);
  EXPECT_GT(f.counters.timeouts, 0u);
  test::ExpectConserved(r.summary);
}

TEST(MacEntryLoss, SameSeedSameResults) {
  const std::string yaml = std::string(kClos) + R"(
faults:
  - {type: mac_entry_loss, host: 3, at: 0us}
  - {type: mac_entry_loss, host: 2, at: 0us}
traffic:
  - type: flows
    flows:
      - {src: 0, dst: 3, size: 2MB}
      - {src: 4, dst: 2, size: 2MB}
      - {src: 1, dst: 5, size: 2MB}
)";
  const test::SimRun a = test::RunYaml(yaml);
  const test::SimRun b = test::RunYaml(yaml);
  nlohmann::json sa = a.summary, sb = b.summary;
  sa.erase("run");
  sb.erase("run");
  EXPECT_EQ(sa, sb);
  EXPECT_GT(sa["conservation"]["replicated_frames"].get<uint64_t>(), 0u);
}

// ---------------------------------------------------------------------------
// Reader

std::string FloodingScenarioError(const std::string& yaml) {
  return test::ScenarioErrorOf(yaml, "f.yaml");
}

TEST(FloodingReader, ReadsTheFaultAndTheSwitchOption) {
  const Scenario s = ParseScenarioText(std::string(kClos) + R"(
faults:
  - {type: mac_entry_loss, host: 3, at: 10us, until: 2ms}
  - {type: mac_entry_loss, host: 5, at: 0us}
)",
                                       "f.yaml", "", {"switch.unknown_unicast=drop"}, std::nullopt);
  EXPECT_EQ(s.sw.unknown_unicast, UnknownUnicast::kDrop);
  ASSERT_EQ(s.faults.size(), 2u);
  EXPECT_EQ(s.faults[0].kind, FaultKind::kMacEntryLoss);
  EXPECT_EQ(s.faults[0].host, 3);
  EXPECT_EQ(s.faults[0].at, 10 * kMicrosecond);
  EXPECT_EQ(s.faults[0].until, 2 * kMillisecond);
  EXPECT_EQ(s.faults[1].host, 5);
  EXPECT_EQ(s.faults[1].until, kTimeMax);
  // Default: flood, as commodity switches do (SIGCOMM'16 §4.2).
  EXPECT_EQ(ParseScenarioText(kClos, "f.yaml", "", {}, std::nullopt).sw.unknown_unicast,
            UnknownUnicast::kFlood);
}

TEST(FloodingReader, RejectsBadValuesWithFileLineAndField) {
  const std::string base(kClos);
  EXPECT_EQ(FloodingScenarioError(base + "faults:\n  - {type: mac_entry_lost, host: 3, at: 0us}\n"),
            "f.yaml:7:12: faults.0.type: expected one of nic_pause_storm, slow_receiver, "
            "link_down, packet_loss, mac_entry_loss, got \"mac_entry_lost\"; did you mean "
            "'mac_entry_loss'?");
  EXPECT_NE(FloodingScenarioError(base + "faults:\n  - {type: mac_entry_loss, host: 6, at: 0us}\n")
                .find("f.yaml:7:34: faults.0.host: expected a host id from 0 to 5"),
            std::string::npos);
  EXPECT_NE(
      FloodingScenarioError(base + "faults:\n  - {type: mac_entry_loss, at: 0us}\n").find("host"),
      std::string::npos);
  EXPECT_NE(
      FloodingScenarioError(base + "faults:\n  - {type: mac_entry_loss, host: 3}\n").find("at"),
      std::string::npos);
  // Keys of other fault types are named as such.
  EXPECT_NE(FloodingScenarioError(
                base + "faults:\n  - {type: mac_entry_loss, host: 3, at: 0us, priority: 3}\n")
                .find("faults.0.priority"),
            std::string::npos);
  const std::string bad_switch =
      "duration: 1ms\ntopology: {type: star, hosts: 2}\nswitch:\n  unknown_unicast: broadcast\n";
  EXPECT_EQ(FloodingScenarioError(bad_switch),
            "f.yaml:4:20: switch.unknown_unicast: expected one of flood, drop, got "
            "\"broadcast\"");
}

}  // namespace
}  // namespace test_flooding
}  // namespace rocesim
