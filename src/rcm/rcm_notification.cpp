// Seed 002 §3.2 congestion notification contents; see the header.
#include "rcm/rcm_notification.h"

#include <algorithm>

namespace rocesim {

RcmNotification RcmMakeNotification(uint8_t regional_fb_q, const RcmFlowCam& cam, RcmRole role,
                                    int max_ids) {
  RcmNotification n;
  n.fb_q = std::min(regional_fb_q, kRcmFbMaxQ);
  const int cap = std::clamp(max_ids, 0, kRcmMaxNotifyIds);
  n.num_ids = static_cast<uint8_t>(cam.HarmfulIds(role, n.ids.data(), cap));
  return n;
}

}  // namespace rocesim
