// The congestion notification (CN) of seed 002 §3.1-§3.2: sent by a congested
// port to its upstream neighbour only, carrying the quantised regional degree
// F_b' (eq. 2, 6 bits like QCN's CNM) and "IDs (e.g. TCP/IP five tuple) of
// harmful flows". The receiver sets its remote flag and F_br
// (RcmPortState::OnNotification), replaces its remote harmful set
// (RcmFlowCam::SetRemote) and feeds RCC (RcmRccWindow::OnCongestion).
// Quantisation and dequantisation of F_b are in rcm_fb.h.
//
// A fixed-size value type (no allocation) so it can ride inside a simulated
// frame or event.
#pragma once

#include <array>
#include <cstdint>

#include "rcm/rcm_fb.h"
#include "rcm/rcm_flow_cam.h"
#include "rcm/rcm_params.h"
#include "rcm/rcm_port_state.h"

namespace rocesim {

// Frame size model (ours; the seed defines no format): a 64-byte minimum
// Ethernet frame holds the header and degree (as QCN's CNM and PFC frames do),
// plus 13 bytes per IPv4 five-tuple ID.
inline constexpr int kRcmNotifyBaseBytes = 64;
inline constexpr int kRcmNotifyBytesPerId = 13;

struct RcmNotification {
  uint8_t fb_q = 0;     // quantised F_b' (1..63 when sent for a congested sample)
  uint8_t num_ids = 0;  // valid entries of ids
  std::array<uint64_t, kRcmMaxNotifyIds> ids{};

  // Append a harmful flow ID unless present or full; false if not added.
  bool AddId(uint64_t key) {
    if (num_ids >= kRcmMaxNotifyIds) return false;
    for (int i = 0; i < num_ids; ++i)
      if (ids[i] == key) return false;
    ids[num_ids++] = key;
    return true;
  }
  const uint64_t* begin() const { return ids.data(); }
  const uint64_t* end() const { return ids.data() + num_ids; }
  int WireBytes() const { return kRcmNotifyBaseBytes + kRcmNotifyBytesPerId * num_ids; }
};

// A notification with degree `regional_fb_q` and up to `max_ids` (capped at
// kRcmMaxNotifyIds) harmful IDs from `cam` for a port in `role`: the sampled
// IDs at a root, the IDs received from downstream at an edge or inner point.
RcmNotification RcmMakeNotification(uint8_t regional_fb_q, const RcmFlowCam& cam, RcmRole role,
                                    int max_ids);

}  // namespace rocesim
