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
// Picoseconds per second as a double, for rate arithmetic (bits/s * ps).
constexpr double kPsPerSecond = static_cast<double>(kSecond);

// Time to put `bytes` on a wire of `rate_bps`, rounded up to a whole picosecond.
constexpr Time SerializationTime(int64_t bytes, int64_t rate_bps) {
  // bytes * 8 * 1e12 / rate; split to stay inside 64 bits for rates >= 1 Mb/s.
  const __int128 ps = static_cast<__int128>(bytes) * 8 * kSecond;
  return static_cast<Time>((ps + rate_bps - 1) / rate_bps);
}

// The serialization cost of one byte at `rate_bps` when it is a whole number
// of picoseconds (100, 50, 25 Gb/s ...), else 0.
constexpr Time ExactPsPerByte(int64_t rate_bps) {
  return (8 * kSecond) % rate_bps == 0 ? 8 * kSecond / rate_bps : 0;
}

// SerializationTime without its 128-bit division, for the per-frame paths:
// a product at a rate with an exact `ps_per_byte` (ExactPsPerByte), else a
// 64-bit division, which rounds the same while bytes * 8e12 + rate fits.
constexpr Time SerializationTimeFast(int64_t bytes, int64_t rate_bps, Time ps_per_byte) {
  if (ps_per_byte != 0) return bytes * ps_per_byte;
  if (bytes >= 0 && bytes <= 1'000'000) return (bytes * 8 * kSecond + rate_bps - 1) / rate_bps;
  return SerializationTime(bytes, rate_bps);
}

inline double ToSeconds(Time t) {
  return static_cast<double>(t) / kSecond;
}

}  // namespace rocesim
