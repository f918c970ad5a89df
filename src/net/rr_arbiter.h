// Round-robin arbitration over the inputs that request one resource, as a
// CIOQ switch's crossbar grants an output queue to the VOQs holding a frame
// for it (seed 002 §4.1; iSLIP-style pointer: after a grant the next search
// starts just past the granted input, so every requester is served once per
// round whatever the others send). Requests are a bitset kept by the caller,
// one bit per input, set while that input's VOQ is non-empty.
#pragma once

#include <bit>
#include <cstdint>
#include <span>

namespace rocesim {

// The first set bit of `requests` (n bits) at or after `start`, wrapping
// around; -1 when no bit is set.
inline int NextRequester(std::span<const uint64_t> requests, int n, int start) {
  if (n == 0) return -1;
  const int words = static_cast<int>(requests.size());
  // From `start` to the end, then from 0 up to `start` (the wrapped part).
  for (int pass = 0; pass < 2; ++pass) {
    const int from = pass == 0 ? start : 0;
    const int to = pass == 0 ? n : start;
    for (int w = from / 64; w < words && w * 64 < to; ++w) {
      uint64_t bits = requests[static_cast<size_t>(w)];
      if (w == from / 64) bits &= ~uint64_t{0} << (from % 64);
      if (bits == 0) continue;
      const int i = w * 64 + std::countr_zero(bits);
      if (i < to) return i;
      break;
    }
  }
  return -1;
}

}  // namespace rocesim
