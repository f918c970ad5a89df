// Coalesced ACKs under HPCC (host.ack_every > 1): an ACK echoes the INT stack
// of the newest in-order data packet it acknowledges (HPCC paper §3.2: the
// receiver copies the data packet's INT into its ACK). An ACK sent by the
// responder's deadline (host.ack_delay) rather than by a data packet must
// echo the stack of the last packet it covers, which has long been freed by
// then: before this was kept, the timer ACK carried whatever stack the pool
// slot it took had held last, so HPCC acted on another frame's telemetry and
// a partitioned run (whose pool slots are used in another order) disagreed
// with the serial one.
#include <gtest/gtest.h>

#include <memory>

#include "scenario/scenario_reader.h"
#include "sim/simulation.h"

namespace rocesim {
namespace test_coalesced_ack_int {
namespace {

constexpr const char* kHpccPair = R"(
duration: 1ms
topology: {type: star, hosts: 2}
host: {cc: hpcc, ack_every: 4, ack_delay: 2us}
traffic: [{type: flows, flows: [{src: 0, dst: 1, size: 100KB, start: 1ms}]}]
)";

IntStack StackOf(uint8_t hops, Time ts, uint32_t qlen) {
  IntStack s;
  s.count = hops;
  for (uint8_t h = 0; h < hops; ++h) {
    s.hops[h].ts = ts + h;
    s.hops[h].tx_bytes = 1000u * (h + 1);
    s.hops[h].qlen_bytes = qlen + h;
    s.hops[h].rate_bps = 100'000'000'000;
  }
  return s;
}

// A data packet of flow 0 (host 0 to host 1) with PSN `psn` and INT `stack`,
// as it reaches host 1.
PktId DataPacket(Fabric& f, uint32_t psn, const IntStack& stack) {
  const PktId id = f.pool.Alloc();
  Packet& p = f.pool[id];
  p.type = PktType::kData;
  p.flow = 0;
  p.src = 0;
  p.dst = 1;
  p.psn = psn;
  p.payload = 1000;
  p.size = 1062;
  p.priority = 3;
  p.ecn = kEct0;
  f.IntOf(id) = stack;
  f.counters.injected_frames++;  // as the sender's NIC counts it (conservation)
  f.counters.injected_payload_bytes += p.payload;
  return id;
}

// The ACK host 1 has sent: on its port's wire, or queued behind it.
PktId SentAck(const Fabric& f) {
  const Port& p = f.ports[f.nics[1].port()];
  PktId on_wire = kNoPkt;
  p.wire.ForEach(f.pool, [&](PktId id, Time) {
    if (on_wire == kNoPkt && f.pool[id].type == PktType::kAck) on_wire = id;
  });
  if (on_wire != kNoPkt) return on_wire;
  for (const PacketFifo& q : p.queue)
    for (PktId id = q.head; id != kNoPkt; id = f.pool[id].next)
      if (f.pool[id].type == PktType::kAck) return id;
  return kNoPkt;
}

TEST(CoalescedAckInt, TheDeadlineAckEchoesTheNewestCoveredPacketsStack) {
  Simulation sim(ParseScenarioText(kHpccPair, "t.yaml", "", {}, std::nullopt));
  Fabric& f = sim.fabric();
  ASSERT_TRUE(f.int_enabled);
  // Two in-order packets: fewer than ack_every, so neither is ACKed at once.
  f.nics[1].Receive(f, DataPacket(f, 0, StackOf(1, 111, 5)));
  f.nics[1].Receive(f, DataPacket(f, 1, StackOf(2, 222, 7)));
  ASSERT_EQ(SentAck(f), kNoPkt);
  // The slot the ACK will take last held a stranger's stack.
  const PktId stranger = f.pool.Alloc();
  f.IntOf(stranger) = StackOf(5, 999, 64'000);
  f.pool.Free(stranger);

  f.now = f.flows[0].ack_due;
  f.nics[1].OnAckTimer(f, 0);
  const PktId ack = SentAck(f);
  ASSERT_NE(ack, kNoPkt);
  EXPECT_EQ(f.pool[ack].psn, 2u);  // next expected PSN
  const IntStack& s = f.IntOf(ack);
  ASSERT_EQ(s.count, 2);
  EXPECT_EQ(s.hops[0].ts, 222);
  EXPECT_EQ(s.hops[1].ts, 223);
  EXPECT_EQ(s.hops[1].qlen_bytes, 8u);
}

TEST(CoalescedAckInt, AnAckAPacketTriggersEchoesThatPacketsStack) {
  Simulation sim(ParseScenarioText(kHpccPair, "t.yaml", "", {}, std::nullopt));
  Fabric& f = sim.fabric();
  for (uint32_t psn = 0; psn < 3; ++psn)
    f.nics[1].Receive(f, DataPacket(f, psn, StackOf(1, 10, 0)));
  ASSERT_EQ(SentAck(f), kNoPkt);
  f.nics[1].Receive(f, DataPacket(f, 3, StackOf(3, 444, 9)));  // the 4th: ACKed at once
  const PktId ack = SentAck(f);
  ASSERT_NE(ack, kNoPkt);
  EXPECT_EQ(f.pool[ack].psn, 4u);
  EXPECT_EQ(f.IntOf(ack).count, 3);
  EXPECT_EQ(f.IntOf(ack).hops[2].ts, 446);
}

}  // namespace
}  // namespace test_coalesced_ack_int
}  // namespace rocesim
