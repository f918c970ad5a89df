// RED marking on the instantaneous egress queue (seed 000 §7 figure, seed 001
// §2.1, DCQCN paper §3): no mark below K_min, probability rising linearly to
// P_max at K_max, every packet above K_max.
#pragma once

#include <cstdint>

namespace rocesim {

struct RedParams {
  int64_t kmin = 0;
  int64_t kmax = 0;
  double pmax = 0;
};

inline double RedMarkProbability(const RedParams& r, int64_t queue_bytes) {
  if (queue_bytes <= r.kmin) return 0.0;
  if (queue_bytes > r.kmax) return 1.0;
  if (r.kmax == r.kmin) return 1.0;
  return r.pmax * static_cast<double>(queue_bytes - r.kmin) / static_cast<double>(r.kmax - r.kmin);
}

}  // namespace rocesim
