// The ideal flow completion time: the FCT of the flow alone on an idle
// network. Data leaves the NIC back to back at line rate, each switch
// stores and forwards, and the flow completes when the ACK of its last packet
// reaches the sender (RC completion at the requester). Computed exactly for
// that idealised run: full packets pace at the slowest hop seen so far, the
// last (shorter) packet queues behind them where it must, then the last
// ACK returns over the reverse path. slowdown = FCT / ideal FCT (>= 1 up to
// rounding of picoseconds).
#pragma once

#include <cstdint>
#include <vector>

#include "core/time.h"

namespace rocesim {

struct Hop {
  int64_t rate_bps = 0;
  Time delay = 0;
};

struct IdealFctInput {
  std::vector<Hop> forward;  // host -> ... -> host
  std::vector<Hop> reverse;  // the ACK's path back
  uint32_t packets = 0;
  int64_t full_frame = 0;  // bytes of a full data frame (payload + headers)
  int64_t last_frame = 0;  // bytes of the last data frame
  int64_t ack_frame = 0;
  int ifg_bytes = 0;
};

// When the last byte reaches the receiver, and when its ACK reaches the
// sender (the ideal FCT), on the idle path.
struct IdealTimes {
  Time delivered = 0;
  Time fct = 0;
};
IdealTimes IdealFlowTimes(const IdealFctInput& in);
inline Time IdealFct(const IdealFctInput& in) {
  return IdealFlowTimes(in).fct;
}

}  // namespace rocesim
