// Fault `mac_entry_loss` (SIGCOMM'16 "RDMA over Commodity Ethernet at Scale"
// §4.2, the PFC deadlock; seed 003 §6.3): a server is dead and its ToR's
// MAC-table entry for it has timed out (5 minutes) while the ARP entry has
// not (4 hours). From `at`:
//  - the server's NIC takes no frames (dropped, cause receiver_down, pause
//    frames included) and sends none (its transmitter holds, Port::tx_hold);
//  - its ToR — the switch it is attached to — treats packets to it as
//    unknown unicast: flooded out of every other port in their class, or,
//    lossless ones, dropped with switch.unknown_unicast: drop
//    (src/net/switch_flood.cpp);
//  - every NIC's MAC filter discards flooded copies addressed to another host
//    (cause wrong_host), from then to the end of the run (copies may still be
//    on their way after the fault ends).
// The minutes between the death and the timeout are not simulated: `at` is
// the moment the entry is gone. At `until` the server is back: its NIC
// receives and sends again and its ToR has relearned its MAC. Costs nothing
// per packet beyond the switch's one TTL-or-missing-MAC branch.
#pragma once

#include <cstdint>

namespace rocesim {

struct Fabric;

namespace ops {

void StartMacEntryLoss(Fabric& f, uint32_t host);
void StopMacEntryLoss(Fabric& f, uint32_t host);

}  // namespace ops
}  // namespace rocesim
