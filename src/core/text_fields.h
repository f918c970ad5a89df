// Whitespace-separated text files (flow-size CDFs, the HPCC simulator's flow
// lists): split a line into fields and parse numbers strictly (the whole
// field, nothing left over).
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>
#include <vector>

namespace rocesim {

inline std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> out;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && space(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !space(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

inline bool ParseInt64(std::string_view s, int64_t& v) {
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size();
}

}  // namespace rocesim
