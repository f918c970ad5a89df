#include "net/switch_mmu.h"

#include <algorithm>

namespace rocesim {

void SwitchMmu::Init(const SwitchConfig& cfg, const std::vector<int64_t>& headroom_per_port,
                     const std::array<bool, kNumPriorities>& lossless) {
  alpha_ = cfg.alpha;
  reserved_ = cfg.reserved_bytes;
  xon_offset_ = cfg.pfc.xon_offset_bytes;
  headroom_ = headroom_per_port;
  lossless_ = lossless;
  const size_t ports = headroom_per_port.size();
  ingress_.assign(ports * kNumPriorities, 0);
  headroom_used_.assign(ports * kNumPriorities, 0);
  xoff_.assign(ports * kNumPriorities, 0);
  int64_t carved = static_cast<int64_t>(ports) * kNumPriorities * reserved_;
  for (size_t p = 0; p < ports; ++p)
    for (int q = 0; q < kNumPriorities; ++q)
      if (lossless_[q]) carved += headroom_[p];
  shared_pool_ = cfg.buffer_bytes - carved;
}

Admission SwitchMmu::Admit(int port, int prio, int64_t bytes) {
  const int pg = Pg(port, prio);
  const int64_t shared_before = SharedOf(pg);
  const int64_t shared_after =
      ingress_[pg] + bytes > reserved_ ? ingress_[pg] + bytes - reserved_ : 0;
  const int64_t extra_shared = shared_after - shared_before;
  // Within reserve, or the dynamic threshold lets this PG take more shared buffer.
  if (extra_shared == 0 || (static_cast<double>(shared_before) < Threshold() &&
                            shared_used_ + extra_shared <= shared_pool_)) {
    ingress_[pg] += bytes;
    shared_used_ += extra_shared;
    total_bytes_ += bytes;
    return Admission::kAdmitted;
  }
  if (lossless_[prio]) {
    if (headroom_used_[pg] + bytes <= headroom_[port]) {
      headroom_used_[pg] += bytes;
      total_bytes_ += bytes;
      return Admission::kAdmitted;
    }
    return Admission::kDropHeadroom;
  }
  return Admission::kDropShared;
}

void SwitchMmu::Release(int port, int prio, int64_t bytes) {
  const int pg = Pg(port, prio);
  total_bytes_ -= bytes;
  // Headroom drains first: it holds the frames that arrived after XOFF.
  const int64_t from_headroom = std::min(headroom_used_[pg], bytes);
  headroom_used_[pg] -= from_headroom;
  const int64_t rest = bytes - from_headroom;
  const int64_t shared_before = SharedOf(pg);
  ingress_[pg] -= rest;
  shared_used_ -= shared_before - SharedOf(pg);
}

bool SwitchMmu::ShouldPause(int port, int prio) const {
  const int pg = Pg(port, prio);
  return headroom_used_[pg] > 0 || static_cast<double>(SharedOf(pg)) >= Threshold();
}

bool SwitchMmu::ShouldResume(int port, int prio) const {
  const int pg = Pg(port, prio);
  if (headroom_used_[pg] > 0) return false;
  const int64_t shared = SharedOf(pg);
  return shared == 0 || static_cast<double>(shared + xon_offset_) <= Threshold();
}

}  // namespace rocesim
