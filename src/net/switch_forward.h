// The per-frame half of the shared-buffer switch (net/switch.h): Receive and
// Forward, inline so that the fabric's landing path (Fabric::OnLinkArrive)
// runs a hop without a call; the rest of the switch is in switch.cpp.
// Included, after the Fabric is complete, by the files that land frames on a
// switch.
#pragma once

#include "net/egress_inl.h"
#include "net/fabric.h"
#include "net/switch.h"
#include "ops/watchdog.h"

namespace rocesim {

[[gnu::always_inline]] inline void Switch::Forward(Fabric& f, PortId in, PktId id, Packet& pkt,
                                                   int prio, PortId out, uint16_t uncharged) {
  const int local_in = static_cast<int>(in - first_port_);
  Port& egress = f.ports[out];
  const PacketFifo& q = egress.queue[prio];
  if (egress.drop_mask) [[unlikely]] {
    if (egress.drop_mask >> prio & 1) {  // link down, or PFC watchdog with action drop
      f.CountDrop(id, egress.link_down ? DropCause::kLinkDown : DropCause::kWatchdog, in);
      return;
    }
  }

  if (queue_limits_) [[unlikely]] {  // neither configured by default: one test per frame
    if (cfg_->ecn.wred_drop_bytes > 0 && pkt.type == PktType::kData && pkt.ecn == kNotEct &&
        q.bytes > cfg_->ecn.wred_drop_bytes) {
      f.CountDrop(id, DropCause::kWred, in);
      return;
    }
    // buf_max (seed 001 §2.1): the egress queue's hard cap, whatever the class.
    if (cfg_->ecn.buf_max_bytes > 0 && q.bytes + pkt.size > cfg_->ecn.buf_max_bytes) {
      f.CountDrop(id, DropCause::kBufferFull, in);
      return;
    }
  }
  // The common case (70% of hops on the k8 benchmark): the egress port is idle
  // with nothing queued, so the frame would be enqueued, dequeued at once and
  // put on the wire, its buffer taken and given back. Doing only the last
  // step gives the same state, counters and events.
  if (cut_through_ && f.CanCutThrough(egress) && !egress.Paused(prio, f.now) && !f.int_enabled &&
      mmu_.PassesThrough(local_in, prio, pkt.size - uncharged)) [[likely]] {
    pkt.in_port = static_cast<uint16_t>(local_in);
    pkt.priority = static_cast<uint8_t>(prio);
    pkt.uncharged = 0;
    egress_.PassThrough(egress, prio);
    f.Launch(out, egress, id, pkt.size);
    return;
  }
  const Admission a = mmu_.Admit(local_in, prio, pkt.size - uncharged);
  if (a != Admission::kAdmitted) {
    // A lossless PG that overflows (e.g. configured with no headroom) must
    // still pause its upstream.
    if (lossless_[prio] && !mmu_.Xoff(local_in, prio)) {
      mmu_.Xoff(local_in, prio) = 1;
      pfc_.SendXoff(f, in, prio);
    }
    f.CountDrop(
        id, a == Admission::kDropHeadroom ? DropCause::kHeadroomOverflow : DropCause::kBufferFull,
        in);
    return;
  }
  pkt.in_port = static_cast<uint16_t>(local_in);
  pkt.priority = static_cast<uint8_t>(prio);
  egress_.Arrive(f, egress, static_cast<int>(out - first_port_), pkt, prio);
  // The watchdog's stall clock starts when a paused queue first holds a frame.
  const bool fills_paused =
      f.switch_watchdog && ((egress.pause_mask & ~egress.nonempty) >> prio & 1);
  egress.Enqueue(f.pool, prio, id);
  if (fills_paused) [[unlikely]]
    ops::OnPausedQueueFilled(f, out, prio);

  if (lossless_[prio] && !mmu_.Xoff(local_in, prio) && mmu_.ShouldPause(local_in, prio)) {
    mmu_.Xoff(local_in, prio) = 1;
    pfc_.SendXoff(f, in, prio);
  }
  f.KickPort(out);
}

[[gnu::always_inline]] inline void Switch::Receive(Fabric& f, PortId in, PktId id) {
  Packet& pkt = f.pool[id];
  if (pkt.type == PktType::kPause) {
    f.OnPauseFrame(in, id);
    return;
  }
  const int prio = dscp_to_priority_[pkt.dscp];
  // The IP TTL and the MAC table (SIGCOMM'16 §4.2) matter only on rare paths,
  // so one compare covers both: slow_ttl_ is 0 (an expired TTL) unless some
  // MAC entry is missing here, then 255 (every packet; src/net/switch_flood.cpp).
  if (--pkt.ttl <= slow_ttl_) [[unlikely]] {
    ReceiveUnusual(f, in, id, prio);
    return;
  }
  // The flow's cached route (net/flow_routes.h) says where a frame of a known
  // flow goes: its hop index is the hops its TTL lost before this one.
  PortId out;
  if (!f.routes.Lookup(pkt.route, kDefaultTtl - 1u - pkt.ttl, first_port_, num_ports_, &out))
      [[unlikely]]
    out = first_port_ + f.routing.SelectByKey(route_index_, route_salt_, pkt.dst, pkt.flow_key);
  Forward(f, in, id, pkt, prio, out, 0);
}

}  // namespace rocesim
