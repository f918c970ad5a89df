// Seed 002 §3.3 CFR; the rules are in the header. These functions run per
// notification, not per packet.
#include "rcm/rcm_flow_cam.h"

#include <algorithm>

namespace rocesim {

RcmFlowCam::RcmFlowCam(const RcmCamParams& p)
    : p_(p), depth_(std::clamp(p.depth, 1, kRcmCamMaxDepth)), to_sample_(p.sample_bytes) {
  if (p_.sample_bytes < 1) p_.sample_bytes = 1;
  if (p_.min_hits < 1) p_.min_hits = 1;  // 0 would make every flow harmful
  if (to_sample_ < 1) to_sample_ = 1;
}

void RcmFlowCam::SetRemote(const uint64_t* keys, int n) {
  remote_n_ = 0;
  for (int i = 0; i < n && remote_n_ < kRcmMaxNotifyIds; ++i) {
    if (!ContainsRemote(keys[i])) remote_[remote_n_++] = keys[i];
  }
}

int RcmFlowCam::SampledHarmful(uint64_t* out, int max) const {
  // Walk from the newest entry to the oldest, so the first time a key is met
  // is its most recent write; a stable sort by hits then keeps recency for ties.
  struct Entry {
    uint64_t key;
    int hits;
  };
  std::array<Entry, kRcmCamMaxDepth> distinct;
  int n = 0;
  for (int k = 0; k < filled_; ++k) {
    const int i = (next_ - 1 - k + depth_) % depth_;
    const uint64_t key = slots_[i];
    bool seen = false;
    for (int j = 0; j < n && !seen; ++j) seen = distinct[j].key == key;
    if (!seen) distinct[n++] = {key, SampledHits(key)};
  }
  // Stable insertion sort by hits, descending (n <= 64; std::stable_sort may
  // allocate a buffer).
  for (int j = 1; j < n; ++j) {
    const Entry e = distinct[j];
    int i = j;
    for (; i > 0 && distinct[i - 1].hits < e.hits; --i) distinct[i] = distinct[i - 1];
    distinct[i] = e;
  }
  int m = 0;
  for (int j = 0; j < n && m < max; ++j) {
    if (distinct[j].hits >= p_.min_hits) out[m++] = distinct[j].key;
  }
  return m;
}

int RcmFlowCam::HarmfulIds(RcmRole role, uint64_t* out, int max) const {
  switch (role) {
    case RcmRole::kRoot:
      return SampledHarmful(out, max);
    case RcmRole::kEdge:
    case RcmRole::kInner: {
      const int m = std::min(max, remote_n_);
      std::copy(remote_.begin(), remote_.begin() + m, out);
      return m;
    }
    case RcmRole::kNone:
      break;
  }
  return 0;
}

}  // namespace rocesim
