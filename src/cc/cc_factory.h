// Builds the congestion-control state machine a flow runs, from the host's
// configuration (scenario `host.cc` and its parameter block).
#pragma once

#include <memory>
#include <string_view>

#include "cc/congestion_control.h"
#include "scenario/scenario.h"

namespace rocesim {

std::string_view CcName(CcKind kind);
// nullptr for CcKind::kNone (line rate, PFC only).
std::unique_ptr<CongestionControl> MakeCongestionControl(CcKind kind, const HostConfig& host);
// Whether the receiver's notification point sends CNPs for this algorithm:
// only DCQCN and LDCP's event-API variant read them (not in its ACK-ECN-echo mode, the HPCC
// simulator's); with no congestion control the NP stays on as on a RoCE NIC by default.
bool UsesCnps(CcKind kind, const HostConfig& host);
// Whether switches must stamp INT telemetry (HPCC).
inline bool NeedsInt(CcKind kind) {
  return kind == CcKind::kHpcc;
}

}  // namespace rocesim
