// Fault `packet_loss` (seed 003 §4.2 transport livelock: "we dropped every
// 256th packet" to show that go-back-0 never completes a message while
// go-back-N barely slows down): the data frames a port transmits onto its
// link are lost at the far end, at random with `probability` (its own
// random stream of the scenario seed) or deterministically every `every_nth`
// data frame (counted from the fault's start). ACKs, NAKs, CNPs and PFC
// frames pass. Counted as injected_loss drops. host.loss_recovery selects
// go-back-N or go-back-0 (src/net/nic.cpp).
#pragma once

#include <cstdint>

#include "core/packet.h"
#include "core/rng.h"
#include "net/port.h"

namespace rocesim {

struct Fabric;

// A packet_loss fault's running state (Fabric::loss_faults, by Port::loss_fault - 1).
struct LossFaultState {
  double probability = 0;
  uint32_t every_nth = 0;
  uint64_t seen = 0;  // data frames seen since the fault started
  Rng rng;            // its own stream (fault index): draws do not depend on other links
};

namespace ops {

void StartPacketLoss(Fabric& f, PortId port, uint32_t fault, double probability,
                     uint32_t every_nth);
void StopPacketLoss(Fabric& f, PortId port);
// From Fabric::OnLinkArrive while Port::link_ops is set: true if it handled
// the event (a stale one after a link failure, or the frame lost).
bool OnFaultyLinkArrive(Fabric& f, PortId port);

}  // namespace ops
}  // namespace rocesim
