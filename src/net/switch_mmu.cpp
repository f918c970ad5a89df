#include "net/switch_mmu.h"

namespace rocesim {

double SwitchMmu::AlphaFor(const SwitchConfig& cfg, int64_t rate_bps) {
  for (const SwitchConfig::AlphaByRate& a : cfg.alpha_by_rate)
    if (a.rate_bps == rate_bps) return a.alpha;
  return cfg.alpha;
}

void SwitchMmu::Init(const SwitchConfig& cfg, const std::vector<int64_t>& headroom_per_port,
                     const std::array<bool, kNumPriorities>& lossless,
                     const std::vector<int64_t>& port_rates_bps) {
  reserved_ = cfg.reserved_bytes;
  xon_offset_ = cfg.pfc.xon_offset_bytes;
  headroom_ = headroom_per_port;
  lossless_ = lossless;
  const size_t ports = headroom_per_port.size();
  pg_.assign(ports * kNumPriorities, PgState{});
  for (size_t p = 0; p < ports; ++p) {
    const double alpha = p < port_rates_bps.size() ? AlphaFor(cfg, port_rates_bps[p]) : cfg.alpha;
    for (int q = 0; q < kNumPriorities; ++q)
      pg_[static_cast<size_t>(Pg(static_cast<int>(p), q))].alpha = alpha;
  }
  int64_t carved = static_cast<int64_t>(ports) * kNumPriorities * reserved_;
  for (size_t p = 0; p < ports; ++p)
    for (int q = 0; q < kNumPriorities; ++q)
      if (lossless_[q]) carved += headroom_[p];
  shared_pool_ = cfg.buffer_bytes - carved;
}

}  // namespace rocesim
