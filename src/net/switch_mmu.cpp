#include "net/switch_mmu.h"

namespace rocesim {

void SwitchMmu::Init(const SwitchConfig& cfg, const std::vector<int64_t>& headroom_per_port,
                     const std::array<bool, kNumPriorities>& lossless) {
  alpha_ = cfg.alpha;
  reserved_ = cfg.reserved_bytes;
  xon_offset_ = cfg.pfc.xon_offset_bytes;
  headroom_ = headroom_per_port;
  lossless_ = lossless;
  const size_t ports = headroom_per_port.size();
  pg_.assign(ports * kNumPriorities, PgState{});
  int64_t carved = static_cast<int64_t>(ports) * kNumPriorities * reserved_;
  for (size_t p = 0; p < ports; ++p)
    for (int q = 0; q < kNumPriorities; ++q)
      if (lossless_[q]) carved += headroom_[p];
  shared_pool_ = cfg.buffer_bytes - carved;
}

}  // namespace rocesim
