// Congestion flow recognition (CFR) of seed 002 §3.3: per output queue, a CAM
// "written in a cyclic way" with the IDs of periodically sampled packets; a flow
// whose ID is in the CAM is harmful ("the flow with relatively higher bandwidth
// will be sampled with higher probability").
//
// Sampling (ours, the seed says only "periodic"): the packet that completes
// every sample_bytes bytes through the queue is written, overwriting the oldest
// entry once the CAM is full. Byte-periodic sampling holds a flow in proportion
// to its share of the bytes, the seed's "bandwidth", where every-N-th-packet
// sampling would follow the packet share instead.
//
// Two sets, because §3.2 says "the harmful congestion flow IDs at the edge and
// inner congestion points will be replaced by the ones getting from root
// congestion point":
//  - the sampled set (the cyclic CAM), harmful at a root point;
//  - the remote set, replaced wholesale by each received notification's IDs,
//    harmful at edge and inner points.
// Local sampling keeps running in every role, so a port that becomes a root
// already holds its recent flows.
//
// Fixed-size arrays, no allocation; a lookup scans at most `depth` (<= 64) keys,
// which at the default 16 is cheaper than hashing.
#pragma once

#include <array>
#include <cstdint>

#include "rcm/rcm_params.h"
#include "rcm/rcm_port_state.h"

namespace rocesim {

class RcmFlowCam {
 public:
  RcmFlowCam() : RcmFlowCam(RcmCamParams{}) {}
  explicit RcmFlowCam(const RcmCamParams& p);

  // Every packet through the queue (flow key, frame bytes). Returns true when
  // this packet was written into the CAM.
  bool OnPacket(uint64_t key, int64_t bytes) {
    to_sample_ -= bytes;
    if (to_sample_ > 0) return false;
    to_sample_ += p_.sample_bytes;  // keep the remainder: one sample per period on average
    if (to_sample_ <= 0) to_sample_ = p_.sample_bytes;  // a packet longer than the period
    Write(key);
    return true;
  }
  // Write `key` into the next cyclic slot (the sampling decision is the caller's).
  void Write(uint64_t key) {
    slots_[next_] = key;
    next_ = next_ + 1 == depth_ ? 0 : next_ + 1;
    if (filled_ < depth_) ++filled_;
  }

  // Entries of the sampled set holding `key`.
  int SampledHits(uint64_t key) const {
    int n = 0;
    for (int i = 0; i < filled_; ++i) n += slots_[i] == key;
    return n;
  }
  bool ContainsSampled(uint64_t key) const { return SampledHits(key) >= p_.min_hits; }
  bool ContainsRemote(uint64_t key) const {
    for (int i = 0; i < remote_n_; ++i)
      if (remote_[i] == key) return true;
    return false;
  }
  // The harmful test for a port in `role`: root -> sampled set, edge and
  // inner -> the IDs received from downstream, none -> nothing is harmful.
  bool IsHarmful(uint64_t key, RcmRole role) const {
    switch (role) {
      case RcmRole::kRoot:
        return ContainsSampled(key);
      case RcmRole::kEdge:
      case RcmRole::kInner:
        return ContainsRemote(key);
      case RcmRole::kNone:
        break;
    }
    return false;
  }

  // Replace the remote set with the IDs of a received notification (at most
  // kRcmMaxNotifyIds are kept).
  void SetRemote(const uint64_t* keys, int n);
  void ClearRemote() { remote_n_ = 0; }

  // Distinct sampled IDs holding >= min_hits entries, most entries first, ties
  // by most recent write; writes at most `max` to `out`, returns the count.
  int SampledHarmful(uint64_t* out, int max) const;
  // The IDs to put in a notification from a port in `role`: the sampled ones
  // at a root, the received ones (forwarded unchanged) at an edge or inner
  // point, none otherwise.
  int HarmfulIds(RcmRole role, uint64_t* out, int max) const;

  int depth() const { return depth_; }
  int filled() const { return filled_; }
  int remote_count() const { return remote_n_; }
  const RcmCamParams& params() const { return p_; }

 private:
  RcmCamParams p_;
  int depth_;
  int next_ = 0;    // slot written next (the oldest once full)
  int filled_ = 0;  // slots holding a key
  int remote_n_ = 0;
  int64_t to_sample_;
  std::array<uint64_t, kRcmCamMaxDepth> slots_{};
  std::array<uint64_t, kRcmMaxNotifyIds> remote_{};
};

}  // namespace rocesim
