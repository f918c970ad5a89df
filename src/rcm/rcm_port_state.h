// Per-port congestion state of seed 002 §3.2: "each switch port maintains three
// parameters: congestion degree, local congestion flag and remote congestion
// flag", the role those flags give the port, and the regional degree of eq. 2.
//
//   local  remote  role
//   0      0       none
//   1      0       root  (root congestion point: CFR recognises harmful flows)
//   0      1       edge  (edge of the region: acts on the IDs it received)
//   1      1       inner (inside the region: also acts on the received IDs)
//
// The local flag and degree mirror this port's congestion detector (SetLocal);
// the remote flag is set by a received notification and, because the seed gives
// no "congestion over" message, expires remote_expiry after the last one (ours;
// every congested sample downstream renews it). The received degree F_br is
// only valid while the remote flag is.
//
// Eq. 2, the regional degree (sent upstream as F_b' and used by SAR):
//   F_b' = (1 - w) F_b + w F_br   with a valid remote notification,
//   F_b' = F_b                    without one ("If there is a valid congestion
//                                  notification ... F_b' will be updated as").
// computed on quantised degrees and rounded to nearest (half up).
//
// Which queue feeds SetLocal is the integration's choice; the natural mapping
// is one state per output port (local = its output-queue detector, remote =
// notifications arriving on that port from the downstream neighbour), which is
// what RCC (the port's window) and SAR (the candidate ports' degrees) read.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/time.h"
#include "rcm/rcm_params.h"

namespace rocesim {

enum class RcmRole : uint8_t { kNone, kRoot, kEdge, kInner };

constexpr RcmRole RcmRoleOf(bool local, bool remote) {
  if (local) return remote ? RcmRole::kInner : RcmRole::kRoot;
  return remote ? RcmRole::kEdge : RcmRole::kNone;
}

// Eq. 2 on quantised degrees (0..63), rounded to nearest.
inline uint8_t RcmRegionalDegree(uint8_t fb, uint8_t fbr, bool remote_valid, double w) {
  if (!remote_valid) return fb;
  const double v = (1.0 - w) * fb + w * fbr;
  return static_cast<uint8_t>(std::lround(v));
}

class RcmPortState {
 public:
  RcmPortState() : RcmPortState(RcmPortParams{}) {}
  explicit RcmPortState(const RcmPortParams& p) : p_(p) {}

  // Mirror of the local detector: its flag and its last quantised F_b.
  void SetLocal(bool flag, uint8_t fb_q) {
    local_ = flag;
    fb_ = flag ? fb_q : 0;
  }
  // A notification with quantised degree F_br arrived at `now`: (re)arms the
  // remote flag until now + remote_expiry.
  void OnNotification(Time now, uint8_t fbr_q) {
    fbr_ = fbr_q;
    remote_until_ = now + p_.remote_expiry;
  }
  // Drop the remote flag at once (e.g. the link went down).
  void ClearRemote() { remote_until_ = kNeverArmed; }

  bool local() const { return local_; }
  bool remote(Time now) const { return now < remote_until_; }
  RcmRole Role(Time now) const { return RcmRoleOf(local_, remote(now)); }
  bool InRegion(Time now) const { return local_ || remote(now); }
  uint8_t fb() const { return fb_; }                              // local F_b
  uint8_t fbr(Time now) const { return remote(now) ? fbr_ : 0; }  // valid F_br
  Time remote_until() const { return remote_until_; }
  uint8_t RegionalDegree(Time now) const { return RcmRegionalDegree(fb_, fbr_, remote(now), p_.w); }
  const RcmPortParams& params() const { return p_; }

 private:
  static constexpr Time kNeverArmed = -1;

  RcmPortParams p_;
  Time remote_until_ = kNeverArmed;
  uint8_t fb_ = 0;
  uint8_t fbr_ = 0;
  bool local_ = false;
};

}  // namespace rocesim
