#include "apps/count_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace rocesim {
namespace {

constexpr unsigned kMostThreads = 1024;

// Whether `value` is all decimal digits and its number lies in [lo, hi].
bool IsCountIn(const std::string& value, unsigned lo, unsigned hi) {
  unsigned count = 0;
  const char* end = value.data() + value.size();
  const auto [stop, ec] = std::from_chars(value.data(), end, count);
  return ec == std::errc() && stop == end && count >= lo && count <= hi;
}

}  // namespace

CLI::Validator CountIn(const std::string& noun, unsigned lo, unsigned hi) {
  return CLI::Validator(
      [noun, lo, hi](std::string& value) -> std::string {
        if (IsCountIn(value, lo, hi)) return {};
        return fmt::format("'{}' is not {}: give {} to {}", value, noun, lo, hi);
      },
      fmt::format("{}-{}", lo, hi));
}

CLI::Validator ThreadCount() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        std::string word = value;
        std::transform(word.begin(), word.end(), word.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (word == "auto") {
          value = "0";
          return {};
        }
        if (IsCountIn(value, 0, kMostThreads)) return {};
        return fmt::format(
            "'{}' is not a thread count: give 1 to {}, or auto (or 0) for one per usable core",
            value, kMostThreads);
      },
      "T|auto");
}

}  // namespace rocesim
