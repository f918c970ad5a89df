// Simulated time: integer picoseconds (1 byte at 100 Gb/s = 80 ps), so that
// serialization of any frame at any common line rate is exact and runs are
// bit-for-bit reproducible.
#pragma once

#include <cstdint>
#include <limits>

namespace rocesim {

using Time = int64_t;  // picoseconds

constexpr Time kPicosecond = 1;
constexpr Time kNanosecond = 1000;
constexpr Time kMicrosecond = 1000 * kNanosecond;
constexpr Time kMillisecond = 1000 * kMicrosecond;
constexpr Time kSecond = 1000 * kMillisecond;
constexpr Time kTimeMax = std::numeric_limits<Time>::max();

// Time to put `bytes` on a wire of `rate_bps`, rounded up to a whole picosecond.
constexpr Time SerializationTime(int64_t bytes, int64_t rate_bps) {
  // bytes * 8 * 1e12 / rate; split to stay inside 64 bits for rates >= 1 Mb/s.
  const __int128 ps = static_cast<__int128>(bytes) * 8 * kSecond;
  return static_cast<Time>((ps + rate_bps - 1) / rate_bps);
}

inline double ToSeconds(Time t) {
  return static_cast<double>(t) / kSecond;
}

}  // namespace rocesim
