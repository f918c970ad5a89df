#include "net/switch_mmu.h"

#include <fmt/format.h>

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
  shared_pool_ = cfg.buffer_bytes - CarvedBytes(cfg, headroom_per_port, lossless);
}

int64_t SwitchMmu::CarvedBytes(const SwitchConfig& cfg, const std::vector<int64_t>& headroom,
                               const std::array<bool, kNumPriorities>& lossless) {
  int64_t carved = static_cast<int64_t>(headroom.size()) * kNumPriorities * cfg.reserved_bytes;
  for (const int64_t h : headroom)
    for (int q = 0; q < kNumPriorities; ++q)
      if (lossless[q]) carved += h;
  return carved;
}

std::string SwitchMmu::CheckCounts() const {
  if (shared_used_ < 0 || total_bytes_ < 0)
    return fmt::format("shared buffer in use {} B, total {} B", shared_used_, total_bytes_);
  int64_t total = 0, shared = 0;
  for (size_t i = 0; i < pg_.size(); ++i) {
    const PgState& g = pg_[i];
    const int port = static_cast<int>(i / kNumPriorities),
              prio = static_cast<int>(i % kNumPriorities);
    if (g.ingress < 0 || g.headroom_used < 0 ||
        g.headroom_used > headroom_[static_cast<size_t>(port)])
      return fmt::format("port {} priority {}: {} B held, {} B of {} B headroom", port, prio,
                         g.ingress, g.headroom_used, headroom_[static_cast<size_t>(port)]);
    total += g.ingress + g.headroom_used;
    shared += SharedOf(g);
  }
  if (total != total_bytes_ || shared != shared_used_)
    return fmt::format("priority groups hold {} B ({} B shared), the totals say {} B ({} B shared)",
                       total, shared, total_bytes_, shared_used_);
  return {};
}

std::string SwitchMmu::CheckXoffs() const {
  for (size_t i = 0; i < pg_.size(); ++i)
    if (pg_[i].xoff && pg_[i].ingress == 0 && pg_[i].headroom_used == 0)
      return fmt::format("port {} priority {}: XOFF outstanding on an empty priority group",
                         i / kNumPriorities, i % kNumPriorities);
  return {};
}

}  // namespace rocesim
