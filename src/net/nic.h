// A host's RoCEv2 NIC (DESIGN.md §3, seed 000 §4-5): requester and responder
// of RC queue pairs, one per flow.
//  - Transmit: control frames (ACK/NAK/CNP) in their own strict-priority class
//    first, then round-robin among ready QPs; a QP is ready when its rate
//    limiter allows (next_avail), its window has room and its priority is
//    not paused by the ToR.
//  - Responder: ACK every `ack_every` in-order packets (and the last one, a
//    CE-marked one at once, and whatever is pending `ack_delay` after the
//    first unacknowledged packet),
//    one NAK per gap, re-ACK of duplicates; as notification point (NP), at
//    most one CNP per QP per `cnp_interval` for CE-marked packets.
//  - Requester: cumulative ACKs, go-back-N on NAK or retransmission timeout
//    (or go-back-0: the whole message again, host.loss_recovery, seed 003 §4.2).
// Congestion control (rate / window per QP) attaches at OnAck/OnCnp; without
// it every QP sends at line rate.
#pragma once

#include <cstdint>
#include <vector>

#include "core/packet.h"
#include "net/port.h"
#include "ops/nic_fault_state.h"
#include "scenario/scenario.h"

namespace rocesim {

struct Fabric;
struct Flow;

class Nic {
 public:
  void Init(uint32_t host, PortId port, const HostConfig& cfg);

  void Receive(Fabric& f, PktId pkt);
  // Processes a received frame (Receive, or the ops receive pipeline later).
  void Deliver(Fabric& f, PktId pkt);
  PktId Dequeue(Fabric& f);
  bool HasDataToSend() const { return !active_.empty(); }

  void StartFlow(Fabric& f, uint32_t flow);
  void OnTimeout(Fabric& f, uint32_t flow);
  // The responder's coalesced-ACK deadline for `flow` passes.
  void OnAckTimer(Fabric& f, uint32_t flow);
  // A congestion-control timer the flow's algorithm asked for fires.
  void OnCcTimer(Fabric& f, uint32_t flow, int timer);

  PortId port() const { return port_; }

  // Injected faults and the host watchdog (src/ops/).
  NicFaultState fault;

 private:
  void DeliverFrame(Fabric& f, PktId pkt);
  void OnData(Fabric& f, PktId pkt);
  void OnAck(Fabric& f, PktId pkt);
  void OnNak(Fabric& f, PktId pkt);
  void OnCnp(Fabric& f, PktId pkt);
  // `data` is the packet being answered (its send time and INT are echoed).
  void SendControl(Fabric& f, const Flow& flow, PktType type, uint32_t psn, bool ecn_echo,
                   Time echo_ts, PktId data);
  // ACKs every in-order packet so far; `data` (or kNoPkt) is the packet whose INT it echoes.
  void SendAck(Fabric& f, Flow& flow, PktId data);
  // Dequeue when no control frame can go: the next data packet of a ready QP.
  PktId DequeueData(Fabric& f, Port& p);
  PktId MakeDataPacket(Fabric& f, Flow& flow);
  // Rate limiter: sets flow.next_avail after a data packet of `wire` bytes.
  void Pace(Fabric& f, Flow& flow, uint32_t wire, uint32_t payload);
  void Activate(Fabric& f, Flow& flow);
  void Deactivate(Flow& flow);
  void Complete(Fabric& f, Flow& flow);
  // Go-back-0 (host.loss_recovery, seed 003 §4.2): resend the message from PSN 0.
  void RestartMessage(Fabric& f, Flow& flow);
  // Runs one congestion-control callback and applies what it set: rate
  // (re-pacing the next packet), window, and timer requests.
  template <typename Call>
  void RunCc(Fabric& f, Flow& flow, Call&& call);

  uint32_t host_ = 0;
  PortId port_ = 0;
  const HostConfig* cfg_ = nullptr;
  // From cfg_, for the per-ACK path (SendControl).
  uint8_t ctrl_prio_ = 0;
  uint8_t ctrl_dscp_ = 0;
  uint32_t ack_bytes_ = 0;        // ACK / NAK frame: headers + AETH
  uint32_t cnp_bytes_ = 0;        // CNP frame: headers + reserved bytes
  std::vector<uint32_t> active_;  // flows with packets to send, in round-robin order
  size_t rr_ = 0;  // the QP to try first: below active_.size(), or 0 (Deactivate keeps it so)
};

}  // namespace rocesim
