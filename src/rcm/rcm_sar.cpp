// Seed 002 §3.4 SAR choice; the rules are in the header.
#include "rcm/rcm_sar.h"

namespace rocesim {

uint16_t RcmSarChoose(std::span<const RcmSarCandidate> candidates, uint16_t current_port,
                      bool harmful, bool in_region) {
  if (harmful || !in_region || candidates.size() < 2) return current_port;
  const RcmSarCandidate* best = nullptr;
  for (const RcmSarCandidate& c : candidates) {
    if (best == nullptr) {
      best = &c;
      continue;
    }
    // Strictly better degree, or equal degree and strictly lower load, or a
    // full tie that the current port breaks in its own favour.
    if (c.regional_degree != best->regional_degree) {
      if (c.regional_degree < best->regional_degree) best = &c;
    } else if (c.load_bytes != best->load_bytes) {
      if (c.load_bytes < best->load_bytes) best = &c;
    } else if (c.port == current_port) {
      best = &c;
    }
  }
  return best->port;
}

}  // namespace rocesim
