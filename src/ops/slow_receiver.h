// Fault `slow_receiver` (seed 003 §4.4 "slow-receiver symptom", §6.1): the
// NIC's receive pipeline runs below line rate — at `rate`, or at line rate
// but stalled for `stall` at the start of every `period` (a NIC waiting on
// host memory translations) — so frames wait in its receive buffer
// (host.rx_buffer). Above the buffer's XOFF threshold the NIC pauses its ToR
// on the lossless priorities (src/ops/nic_pause.h), below XON it releases;
// a frame that does not fit is dropped (cause nic_buffer_full). Pause frames
// bypass the pipeline (MAC control). When the fault ends the pipeline is back
// to full speed and the buffer is processed at once.
#pragma once

#include <cstdint>

#include "core/packet.h"
#include "scenario/scenario.h"

namespace rocesim {

struct Fabric;

namespace ops {

void StartSlowReceiver(Fabric& f, const FaultSpec& fault);
void StopSlowReceiver(Fabric& f, uint32_t host);
// From Nic::Receive while NicFaultState::intercept: true if the frame was
// consumed (dropped or buffered), false to deliver it now. Also drops what a
// dead server receives and what the MAC filter rejects (mac_entry_loss,
// src/ops/mac_entry_loss.h).
bool InterceptReceive(Fabric& f, uint32_t host, PktId pkt);
// kRxDrain: the receive pipeline finishes the frame at the buffer's head.
void OnRxDrain(Fabric& f, uint32_t host);

}  // namespace ops
}  // namespace rocesim
