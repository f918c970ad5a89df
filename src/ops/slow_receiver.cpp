#include "ops/slow_receiver.h"

#include "net/fabric.h"
#include "ops/nic_pause.h"

namespace rocesim::ops {

namespace {

uint8_t LosslessMask(const Fabric& f) {
  uint8_t mask = 0;
  if (f.scenario->sw.pfc.enabled)
    for (int p : f.scenario->sw.pfc.priorities) mask |= static_cast<uint8_t>(1u << p);
  return mask;
}

// Schedules the completion of the frame at the head of the receive buffer.
void ScheduleDrain(Fabric& f, uint32_t host) {
  Nic& nic = f.nics[host];
  NicFaultState& st = nic.fault;
  Time start = f.now;
  if (st.stall_period > 0) {
    const Time phase = (start - st.stall_origin) % st.stall_period;
    if (phase < st.stall) start += st.stall - phase;
  }
  const int64_t rate = st.slow_rate_bps > 0 ? st.slow_rate_bps : f.ports[nic.port()].rate_bps;
  const Time done = start + SerializationTime(f.pool[st.rx_queue.head].size, rate);
  st.rx_drain_at = done;
  f.Schedule(done, EventKind::kRxDrain, host);
}

}  // namespace

void StartSlowReceiver(Fabric& f, const FaultSpec& fault) {
  const auto host = static_cast<uint32_t>(fault.host);
  Nic& nic = f.nics[host];
  NicFaultState& st = nic.fault;
  st.slow = true;
  st.UpdateIntercept();
  st.slow_rate_bps = fault.rate_bps;
  st.stall_period = fault.period;
  st.stall = fault.stall;
  st.stall_origin = f.now;
  const Port& p = f.ports[nic.port()];
  f.ops.Add(f.now, p.node, p.local, 0, "slow_receiver_start");
}

void StopSlowReceiver(Fabric& f, uint32_t host) {
  Nic& nic = f.nics[host];
  NicFaultState& st = nic.fault;
  if (!st.slow) return;
  st.slow = false;
  st.UpdateIntercept();
  st.rx_drain_at = kTimeMax;
  while (!st.rx_queue.Empty()) nic.Deliver(f, st.rx_queue.Pop(f.pool));
  if (!st.storming) StopNicPausing(f, host);
  const Port& p = f.ports[nic.port()];
  f.ops.Add(f.now, p.node, p.local, 0, "slow_receiver_end");
}

bool InterceptReceive(Fabric& f, uint32_t host, PktId id) {
  Nic& nic = f.nics[host];
  NicFaultState& st = nic.fault;
  const Packet& pkt = f.pool[id];
  if (st.rx_down || st.dead) {
    // A failed receive pipeline (nic_pause_storm) or a dead server
    // (mac_entry_loss): nothing gets in, pauses neither.
    if (pkt.type == PktType::kPause) {
      f.pool.Free(id);
    } else {
      f.CountDrop(id, DropCause::kReceiverDown, nic.port());
    }
    return true;
  }
  if (pkt.type == PktType::kPause) return false;  // MAC control bypasses the pipeline
  if (st.mac_filter && pkt.dst != host) {
    // A flooded copy addressed to another host (src/net/switch_flood.cpp).
    f.CountDrop(id, DropCause::kWrongHost, nic.port());
    return true;
  }
  if (!st.slow) return false;
  const RxBufferConfig& rb = f.scenario->host.rx_buffer;
  if (st.rx_queue.bytes + pkt.size > rb.size_bytes) {
    f.CountDrop(id, DropCause::kRxBufferFull, nic.port());
    return true;
  }
  st.rx_queue.Push(f.pool, id);
  if (!st.pausing && st.rx_queue.bytes >= rb.xoff_bytes) {
    if (const uint8_t mask = LosslessMask(f)) StartNicPausing(f, host, mask);
  }
  if (st.rx_drain_at == kTimeMax) ScheduleDrain(f, host);
  return true;
}

void OnRxDrain(Fabric& f, uint32_t host) {
  Nic& nic = f.nics[host];
  NicFaultState& st = nic.fault;
  if (f.now != st.rx_drain_at) return;  // stale: the fault ended meanwhile
  st.rx_drain_at = kTimeMax;
  const PktId id = st.rx_queue.Pop(f.pool);
  if (st.pausing && !st.storming && st.rx_queue.bytes <= f.scenario->host.rx_buffer.xon_bytes)
    StopNicPausing(f, host);
  if (!st.rx_queue.Empty()) ScheduleDrain(f, host);
  nic.Deliver(f, id);
}

}  // namespace rocesim::ops
