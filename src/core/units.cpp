// Unit parsers (see units.h). All quantities share one decimal reader that keeps
// the mantissa as an exact integer and a power of ten; the unit multiplier is an
// integer too, so a result is exact or rejected as not whole.
#include "core/units.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <optional>
#include <string>

namespace rocesim {
namespace {

constexpr std::string_view kTimeExpected = R"(a time like "1us" or "2.5ms")";
constexpr std::string_view kRateExpected = R"(a rate like "100Gbps" or "40Gb/s")";
constexpr std::string_view kSizeExpected = R"(a size like "200KB" or "4KiB")";
constexpr std::string_view kFractionExpected = R"(a fraction like "1/16", "0.0625" or "6.25%")";

// Keeps the mantissa far enough below the __int128 limit that multiplying it by
// any unit multiplier (at most 2^40 or 10^12) cannot overflow.
constexpr __int128 kMaxMantissa = static_cast<__int128>(1'000'000'000'000'000'000) * 1'000'000;

[[noreturn]] void Fail(std::string_view expected, std::string_view text,
                       std::string_view reason = {}) {
  if (reason.empty()) throw UnitError(fmt::format("expected {}, got \"{}\"", expected, text));
  throw UnitError(fmt::format("expected {}, got \"{}\" ({})", expected, text, reason));
}

std::string_view Trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// value = mantissa * 10^exp10, exp10 <= 0.
struct Decimal {
  __int128 mantissa = 0;
  int exp10 = 0;
  bool IsZero() const { return mantissa == 0; }
};

// Reads `digits[.digits]` or `.digits` from the front of `s` and removes it.
// Returns nullopt if there is no number there; throws if it is too long to be exact.
std::optional<Decimal> ReadDecimal(std::string_view& s, std::string_view expected,
                                   std::string_view original) {
  Decimal d;
  size_t i = 0;
  bool any_digit = false;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    any_digit = true;
    d.mantissa = d.mantissa * 10 + (s[i] - '0');
    if (d.mantissa > kMaxMantissa) Fail(expected, original, "number too large");
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    // Trailing zeros after the point carry no value; count them and only apply
    // them once a non-zero digit follows, so "1.000000000000000000000000" is fine.
    int pending_zeros = 0;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      any_digit = true;
      if (s[i] == '0') {
        ++pending_zeros;
        continue;
      }
      for (; pending_zeros >= 0; --pending_zeros) {
        d.mantissa *= 10;
        --d.exp10;
        if (d.mantissa > kMaxMantissa) Fail(expected, original, "too many digits");
      }
      pending_zeros = 0;
      d.mantissa += s[i] - '0';
    }
  }
  if (!any_digit) return std::nullopt;
  s.remove_prefix(i);
  return d;
}

// Returns d * multiplier as an int64, failing if it is not whole or too large.
int64_t Scale(const Decimal& d, int64_t multiplier, std::string_view expected,
              std::string_view original, std::string_view base_unit) {
  __int128 v = d.mantissa * multiplier;  // cannot overflow: see kMaxMantissa
  for (int e = d.exp10; e < 0; ++e) {
    if (v % 10 != 0) Fail(expected, original, fmt::format("not a whole number of {}", base_unit));
    v /= 10;
  }
  if (v > std::numeric_limits<int64_t>::max()) Fail(expected, original, "out of range");
  return static_cast<int64_t>(v);
}

// Splits `text` into its number and unit (spaces allowed between them) after the
// checks every quantity shares: not empty, not negative.
struct NumberAndUnit {
  Decimal value;
  std::string_view unit;
};

NumberAndUnit Split(std::string_view text, std::string_view expected) {
  std::string_view s = Trim(text);
  if (s.empty()) Fail(expected, text, "empty");
  if (s.front() == '-') Fail(expected, text, "negative values are not allowed");
  std::optional<Decimal> d = ReadDecimal(s, expected, text);
  if (!d) Fail(expected, text);
  return {*d, Trim(s)};
}

struct UnitMultiplier {
  std::string_view unit;
  int64_t multiplier;
};

std::optional<int64_t> Lookup(std::string_view unit, std::initializer_list<UnitMultiplier> table) {
  for (const UnitMultiplier& u : table) {
    if (u.unit == unit) return u.multiplier;
  }
  return std::nullopt;
}

}  // namespace

Time ParseTime(std::string_view text) {
  const NumberAndUnit nu = Split(text, kTimeExpected);
  if (nu.unit.empty()) {
    if (nu.value.IsZero()) return 0;
    Fail(kTimeExpected, text, "a unit is required: ps, ns, us, ms or s");
  }
  const std::optional<int64_t> mult = Lookup(nu.unit, {{"ps", kPicosecond},
                                                       {"ns", kNanosecond},
                                                       {"us", kMicrosecond},
                                                       {"\u00b5s", kMicrosecond},
                                                       {"ms", kMillisecond},
                                                       {"s", kSecond}});
  if (!mult) Fail(kTimeExpected, text, "unknown unit; use ps, ns, us, ms or s");
  return Scale(nu.value, *mult, kTimeExpected, text, "picoseconds");
}

int64_t ParseRate(std::string_view text) {
  const NumberAndUnit nu = Split(text, kRateExpected);
  if (nu.unit.empty()) Fail(kRateExpected, text, "a unit is required, e.g. Gbps");
  // A decimal prefix (K, M, G, T) followed by bps, b/s, bit/s or nothing ("100G").
  // Uppercase B (bytes) is rejected rather than guessed at.
  std::string_view unit = nu.unit;
  int64_t mult = 1;
  const std::optional<int64_t> prefix = Lookup(unit.substr(0, 1), {{"K", 1'000},
                                                                   {"k", 1'000},
                                                                   {"M", 1'000'000},
                                                                   {"G", 1'000'000'000},
                                                                   {"T", 1'000'000'000'000}});
  if (prefix) {
    mult = *prefix;
    unit.remove_prefix(1);
  }
  const bool ok = unit == "bps" || unit == "b/s" || unit == "bit/s" || (prefix && unit.empty());
  if (!ok) Fail(kRateExpected, text, "unknown unit; use bps, Kbps, Mbps, Gbps or Tbps");
  const int64_t rate = Scale(nu.value, mult, kRateExpected, text, "bits per second");
  if (rate <= 0) Fail(kRateExpected, text, "must be greater than 0");
  return rate;
}

int64_t ParseSize(std::string_view text) {
  const NumberAndUnit nu = Split(text, kSizeExpected);
  int64_t mult = 1;
  if (!nu.unit.empty()) {
    const std::optional<int64_t> m = Lookup(nu.unit, {{"B", 1},
                                                      {"KB", 1'000},
                                                      {"kB", 1'000},
                                                      {"MB", 1'000'000},
                                                      {"GB", 1'000'000'000},
                                                      {"TB", 1'000'000'000'000},
                                                      {"KiB", int64_t{1} << 10},
                                                      {"MiB", int64_t{1} << 20},
                                                      {"GiB", int64_t{1} << 30},
                                                      {"TiB", int64_t{1} << 40}});
    if (!m) Fail(kSizeExpected, text, "unknown unit; use B, KB, MB, GB, KiB, MiB or GiB");
    mult = *m;
  }
  return Scale(nu.value, mult, kSizeExpected, text, "bytes");
}

double ParseFraction(std::string_view text) {
  std::string_view s = Trim(text);
  if (s.empty()) Fail(kFractionExpected, text, "empty");
  if (s.front() == '-') Fail(kFractionExpected, text, "negative values are not allowed");
  // Reads one non-negative decimal; from_chars gives the nearest double and,
  // unlike strtod, ignores the locale.
  const auto read = [&](std::string_view& rest) -> double {
    std::string_view probe = rest;
    if (!ReadDecimal(probe, kFractionExpected, text)) Fail(kFractionExpected, text);
    const size_t len = rest.size() - probe.size();
    double v = 0;
    const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + len, v);
    if (ec != std::errc() || ptr != rest.data() + len) Fail(kFractionExpected, text);
    rest.remove_prefix(len);
    return v;
  };
  double value = read(s);
  s = Trim(s);
  if (s == "%") return value / 100;
  if (!s.empty() && s.front() == '/') {
    s = Trim(s.substr(1));
    if (!s.empty() && s.front() == '-') {
      Fail(kFractionExpected, text, "negative values are not allowed");
    }
    const double denominator = read(s);
    if (!Trim(s).empty()) Fail(kFractionExpected, text);
    if (denominator == 0) Fail(kFractionExpected, text, "division by zero");
    return value / denominator;
  }
  if (!s.empty()) Fail(kFractionExpected, text);
  return value;
}

namespace {
struct UnitName {
  const char* name;
  int64_t multiplier;
};
// Largest first: the first unit that divides the value exactly.
std::string FormatExact(int64_t v, std::initializer_list<UnitName> units) {
  for (const UnitName& u : units)
    if (v != 0 && v % u.multiplier == 0) return std::to_string(v / u.multiplier) + u.name;
  return std::to_string(v) + (units.end() - 1)->name;
}
}  // namespace

std::string FormatTime(Time t) {
  if (t == 0) return "0";  // ParseTime's one unitless value
  return FormatExact(t, {{"s", kSecond},
                         {"ms", kMillisecond},
                         {"us", kMicrosecond},
                         {"ns", kNanosecond},
                         {"ps", kPicosecond}});
}

std::string FormatRate(int64_t bps) {
  return FormatExact(bps, {{"Tbps", 1'000'000'000'000},
                           {"Gbps", 1'000'000'000},
                           {"Mbps", 1'000'000},
                           {"Kbps", 1'000},
                           {"bps", 1}});
}

std::string FormatSize(int64_t bytes) {
  return FormatExact(bytes, {{"GB", 1'000'000'000}, {"MB", 1'000'000}, {"KB", 1'000}, {"B", 1}});
}

std::string FormatFraction(double value) {
  char buf[400];
  // Fixed notation, shortest that round-trips: ParseFraction reads no exponent.
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::fixed);
  if (ec != std::errc()) return fmt::format("{}", value);
  return std::string(buf, end);
}

}  // namespace rocesim
