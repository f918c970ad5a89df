// Parsers for human-written quantities in scenario and topology files: times
// ("2.5ms"), link rates ("100Gbps"), byte sizes ("32MB", "4KiB") and fractions
// ("1/16", "6.25%"). Decimal inputs are converted exactly (the mantissa is read as
// integer digits plus a decimal exponent, never through binary floating point), so
// "0.001ms" is exactly 1,000,000 ps and runs do not depend on rounding.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "core/time.h"

namespace rocesim {

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

}  // namespace rocesim
