// Parameters of seed 002's Regional Congestion Mitigation (RCM) building blocks,
// one plain struct per component, every constant with its default and where the
// default comes from. Nothing here depends on the fabric or the switch, so each
// component can be built and unit-tested alone.
//
// Sources quoted below:
//  [S]   seed 002 (Regional Congestion Mitigation), §3.2-§3.4, eqs. 1-6. It fixes
//        the formulas but gives no numeric constant except the 100 KB queue size
//        of its evaluation (§4.1).
//  [QCN] Alizadeh et al., "Data Center Transport Mechanisms: Congestion Control
//        Theory and IEEE Standardization" (Allerton 2008) and IEEE 802.1Qau: the
//        congestion point (CP) computes Fb = -(Q_off + w Q_delta) at sampled
//        arrivals, with w = 2 and Fb quantised to 6 bits. (Only the paper's
//        abstract was readable to us; the numbers below are as confirmed by the
//        three implementation sources that follow.)
//  [HPE] HPE FlexFabric 5940 QoS configuration guide, "QCN algorithm / CP
//        algorithm": Q_off = Q - Q_eq, Q_delta = Q - Q_old, Fb = -(Q_off + w Q_delta);
//        QntzFb = |Fb| * 63 / (Q_eq (2w + 1)), 63 when |Fb| exceeds Q_eq (2w + 1).
//        So the full scale of |Fb| in bytes is F_bmax = Q_eq (2w + 1).
//  [LNX] A research Linux QCN CP (sch_fifo.c with QCN_Q_EQ = 34000 bytes,
//        QCN_W = 2) following the QCN pseudo-code: the byte count to the next
//        sample is looked up by qntz_Fb >> 3 (eight bands of the 6-bit value):
//        150, 75, 50, 37.5, 30, 25, ~21.5, ~18.5 KB, i.e. about base / (1 + band).
//  [BCM] Broadcom Petra CP register description: "CpSampleBase ... selected when
//        CpQntFb[5:3] = 0 ... the actual value is randomized in the range of
//        0.75->1.25 of this value" (hardware jitters the interval).
// Values marked "ours" are choices the seed leaves open; the reason is given.
#pragma once

#include <cstdint>

#include "core/time.h"

namespace rocesim {

// 6-bit quantised congestion degree: 0 = no congestion, 63 = F_bmax ([QCN], [HPE]).
inline constexpr int kRcmFbBits = 6;
inline constexpr uint8_t kRcmFbMaxQ = (1u << kRcmFbBits) - 1;  // 63

// Most harmful-flow IDs one notification carries (array bound, see
// RcmCamParams::notify_max_ids for the configured K).
inline constexpr int kRcmMaxNotifyIds = 32;
// Deepest flow CAM (array bound, see RcmCamParams::depth).
inline constexpr int kRcmCamMaxDepth = 64;

// §3.2, eq. 1: one congestion detector per input or output queue.
struct RcmDetectorParams {
  // Q_eq, the equilibrium queue length in bytes. 34,000 B as in [LNX] (QCN's
  // ~1/3-of-buffer operating point); for the seed's 100 KB queues it leaves a
  // third of the queue before F_b turns positive on a steady queue.
  int64_t q_eq_bytes = 34'000;
  // w_q, the weight of Q_delta in eq. 1: 2 ([QCN], [HPE], [LNX]).
  int64_t w_q = 2;
  // Byte count between samples when the last sample quantised to band 0
  // (quantised F_b 0..7): 150 KB ([LNX] uses 153,600 B = 150 KiB; [BCM] has
  // the same base-for-band-0 register; we round to 150,000 B). Band b
  // (quantised F_b in [8b, 8b+7]) samples every sample_base_bytes / (1 + b)
  // bytes ([LNX] table; see RcmSamplingInterval). Note for the integration: at
  // 100 Gb/s 150 KB is 12 us of line-rate arrivals, longer than the seed's
  // 100 KB queue; scale it down if detection must precede a full queue.
  int64_t sample_base_bytes = 150'000;
  // Random spread of each interval, +-sample_jitter of it ([BCM] uses 0.25).
  // 0 (ours): deterministic sampling, so runs and tests are exact; set 0.15 to
  // desynchronise many detectors as hardware does.
  double sample_jitter = 0.0;
};

// §3.2: per-port flags, role and regional degree (eq. 2).
struct RcmPortParams {
  // w of eq. 2, the weight of the received remote degree F_br in
  // F_b' = (1 - w) F_b + w F_br. 0.5 (ours): the seed names w without a value;
  // equal weight halves a remote degree at every hop away from the root, so
  // the regional degree fades with distance from the root congestion point.
  double w = 0.5;
  // The remote congestion flag expires this long after the last notification
  // (ours; the seed only says the flag is set by a valid notification). A
  // congested queue notifies at each congested sample, at most every
  // 150 KB of arrivals = 12 us at 100 Gb/s, 48 us at a PFC-throttled 25 Gb/s;
  // 100 us survives two missed samples at the slower rate yet ends a region
  // well within the micro-burst time scale of §4.2 (20 us burst, 150 us runs).
  Time remote_expiry = 100 * kMicrosecond;
};

// §3.3 (CFR): the cyclic CAM of sampled flow IDs, one per output queue.
struct RcmCamParams {
  // CAM depth, at most kRcmCamMaxDepth. 16 (ours): the seed makes the depth
  // configurable and says it sets the sampling granularity; 16 entries of
  // 4 KB cover the last 64 KB through the queue, about the seed's 100 KB queue,
  // and a flow with >= 1/16 of the bytes is then likely to be held.
  int depth = 16;
  // Sample the packet that completes every sample_bytes bytes through the
  // queue (ours: byte-periodic, not every N-th packet, because §3.3 wants
  // "the flow with relatively higher bandwidth ... sampled with higher
  // probability": byte-periodic sampling hits a flow in proportion to its byte
  // share, packet-periodic in proportion to its packet share, which favours
  // small-packet flows). 4 KB, i.e. about every fourth 1 KB RoCE packet.
  int64_t sample_bytes = 4'096;
  // A locally sampled flow counts as harmful once it holds this many CAM
  // entries. 1 = the seed's rule ("flows whose IDs are being stored in the CAM");
  // raise it to spare light victim flows.
  int min_hits = 1;
  // K, the most harmful IDs put in one notification (<= kRcmMaxNotifyIds).
  // 16 (ours): all distinct IDs of a 16-deep CAM.
  int notify_max_ids = 16;
};

// §3.4 (RCC): the per-output-port (and class) window, eqs. 3-6.
struct RcmRccParams {
  // true: measure W and the initial W_c from detection until the harmful
  // backlog present at detection has been sent (seed §3.4, see
  // rcm_rcc_window.h). false: start at once with W = fixed_window_bytes and
  // W_c = W before eq. 5 (an ablation switch, ours).
  bool measure_window = true;
  // W when measure_window is false: 100 KB, the seed's queue size (§4.1).
  int64_t fixed_window_bytes = 100'000;
  // Bounds of a measured W (ours). 16 KB below: with one packet of overshoot
  // (<= ~1 KB) the sub-windows stay accurate to a few per cent, and a period
  // is still only 1.3 us at 100 Gb/s. 1 MiB above: a measurement ends even if
  // the harmful backlog never drains (12 ports x 100 KB of VOQs is ~1.2 MB).
  int64_t min_window_bytes = 16'384;
  int64_t max_window_bytes = 1 << 20;
  // Floor of W_c (ours). 1 byte: a harmful packet may start while the harmful
  // bytes sent in the period are below W_c, so any W_c >= 1 lets at least one
  // harmful packet through per period however often eq. 5 is applied.
  int64_t min_wc_bytes = 1;
};

// §3.4 (SAR): switch-level adaptive routing.
struct RcmSarParams {
  // The flow's current (ECMP) port must have at least this regional degree for
  // the switch to count as "in a congestion region" for that flow. 1 (ours):
  // any congestion, local or remote, as §3.4 "itself is undergoing congestion".
  uint8_t min_degree = 1;
};

struct RcmParams {
  RcmDetectorParams detector;
  RcmPortParams port;
  RcmCamParams cam;
  RcmRccParams rcc;
  RcmSarParams sar;
};

}  // namespace rocesim
