// Parsers for human-written quantities in scenario and topology files: times
// ("2.5ms"), link rates ("100Gbps"), byte sizes ("32MB", "4KiB") and fractions
// ("1/16", "6.25%"). Decimal inputs are converted exactly (the mantissa is read as
// integer digits plus a decimal exponent, never through binary floating point), so
// "0.001ms" is exactly 1,000,000 ps and runs do not depend on rounding.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/time.h"

namespace rocesim {

// The largest flow (or collective buffer) any input may ask for: 1 TiB, 20 s
// at 400 Gb/s. Far beyond any experiment, and small enough that a size plus
// an MTU, or a size in bits, never overflows 64 bits.
inline constexpr int64_t kMaxFlowBytes = int64_t{1} << 40;

// Thrown by every parser below. what() says what was expected, with an example,
// and what was found, e.g. `expected a time like "1us" or "2.5ms", got "abc"`.
class UnitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "1us", "1.5 ms", "100ns", "2s", "10ps" -> picoseconds. A unit is required
// except for a bare zero. The result must be a whole number of picoseconds.
Time ParseTime(std::string_view text);

// "100Gbps", "100Gb/s", "100G", "500Kbps", "1000bps" -> bits per second (> 0).
int64_t ParseRate(std::string_view text);

// "32MB" (KB/MB/GB/TB are powers of 1000), "4KiB"/"1MiB" (powers of 1024),
// "1000B", or a bare integer meaning bytes -> bytes (>= 0, whole).
int64_t ParseSize(std::string_view text);

// "1/16", "0.0625", "6.25%" -> value (>= 0; not limited to 1).
double ParseFraction(std::string_view text);

// The inverses, for writing a scenario back (resolved.yaml, `rocesim params`):
// the largest unit that holds the value exactly, so the text parses back to
// the same number ("10ms", "1500ns", "100Gbps", "32MB", "4097B"; a time of 0
// is "0").
std::string FormatTime(Time t);
std::string FormatRate(int64_t bps);
std::string FormatSize(int64_t bytes);
// The shortest plain decimal ("0.0625", never "6.25e-02") that parses back
// to the same double.
std::string FormatFraction(double value);

}  // namespace rocesim
