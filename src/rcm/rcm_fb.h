// The congestion degree F_b of seed 002 (§3.2, eq. 1) in bytes and as the 6-bit
// value carried by notifications and used by RCC (§3.4, eqs. 4-5).
//
// Sign: the seed's F_b = Q_off + w_q Q_delta is positive under congestion; QCN's
// Fb = -(Q_off + w Q_delta) is the negative of it. Everything in src/rcm uses the
// seed's sign, so the quantised degree is just F_b scaled, not |Fb|.
//
// Full scale F_bmax: QCN quantises |Fb| over Q_eq (2w + 1) bytes to 6 bits
// (HPE QCN guide: QntzFb = |Fb| * 63 / (Q_eq (2w+1)), 63 above it), i.e. the
// value F_b reaches with the queue at Q_eq above equilibrium and grown by Q_eq
// since the last sample. In quantised units F_bmax = 63, so eq. 4's
// F_bmax G_d = 1/2 gives G_d = 1/126 (see rcm_rcc_window.h).
//
// Rounding (ours): QCN keeps the top bits (rounds down); we round up, so that
// the quantised degree is 0 exactly when F_b <= 0. The seed defines congestion
// as F_b > 0, and a notification or window cut with degree 0 would be a no-op,
// so a congested sample must never quantise to 0.
#pragma once

#include <cstdint>

#include "rcm/rcm_params.h"

namespace rocesim {

// F_bmax in bytes for eq. 1's Q_eq and w_q: Q_eq (2 w_q + 1).
constexpr int64_t RcmFbMaxBytes(int64_t q_eq_bytes, int64_t w_q) {
  return q_eq_bytes * (2 * w_q + 1);
}

// F_b in bytes -> 0..63: 0 when F_b <= 0, ceil(F_b * 63 / F_bmax) capped at 63.
constexpr uint8_t RcmQuantizeFb(int64_t fb_bytes, int64_t fb_max_bytes) {
  if (fb_bytes <= 0) return 0;
  if (fb_bytes >= fb_max_bytes) return kRcmFbMaxQ;
  const int64_t q = (fb_bytes * kRcmFbMaxQ + fb_max_bytes - 1) / fb_max_bytes;
  return static_cast<uint8_t>(q);
}

// 0..63 -> bytes: the top of the quantisation step, q * F_bmax / 63 (floored),
// so RcmQuantizeFb(RcmDequantizeFb(q)) == q for any F_bmax > 63.
constexpr int64_t RcmDequantizeFb(uint8_t q, int64_t fb_max_bytes) {
  const int64_t qq = q > kRcmFbMaxQ ? kRcmFbMaxQ : q;
  return qq * fb_max_bytes / kRcmFbMaxQ;
}

}  // namespace rocesim
