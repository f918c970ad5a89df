#include "fuzz/mutator.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace rocesim::fuzz {

namespace {
// Values that have broken parsers before, or should be refused cleanly.
constexpr std::array<std::string_view, 28> kInteresting = {"0",
                                                           "-1",
                                                           "1",
                                                           "65535",
                                                           "4294967296",
                                                           "9223372036854775807",
                                                           "-9223372036854775808",
                                                           "1e308",
                                                           "-1e308",
                                                           "nan",
                                                           "inf",
                                                           "0.0000001",
                                                           "1ps",
                                                           "0s",
                                                           "100000s",
                                                           "1Tbps",
                                                           "0Gbps",
                                                           "1e99MB",
                                                           "\"\"",
                                                           "[]",
                                                           "{}",
                                                           "~",
                                                           "\xff\xfe",
                                                           "[[[[[[[[[[",
                                                           "{a: {b: {c:",
                                                           "&a [*a]",
                                                           "99999999",
                                                           "-0"};

bool IsTokenChar(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
         c == '_' || c == '-' || c == '%';
}
}  // namespace

std::string Mutator::Mutate(const std::string& base, const std::string& other) {
  std::string s = base;
  const size_t n = 1 + Below(4);
  for (size_t i = 0; i < n; ++i) MutateOnce(s, other);
  // Keep inputs small: a parser's cost, not the fuzzer's, should dominate.
  if (s.size() > 64 * 1024) s.resize(64 * 1024);
  return s;
}

void Mutator::MutateOnce(std::string& s, const std::string& other) {
  // Line boundaries, for the line edits.
  std::vector<size_t> starts = {0};
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n') starts.push_back(i + 1);
  auto line = [&](size_t k) {
    const size_t a = starts[k];
    const size_t b = k + 1 < starts.size() ? starts[k + 1] : s.size();
    return std::pair{a, b};
  };
  switch (Below(10)) {
    case 0:  // flip a bit
      if (!s.empty()) s[Below(s.size())] ^= static_cast<char>(1u << Below(8));
      break;
    case 1:  // insert a random byte
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(Below(s.size() + 1)),
               static_cast<char>(Below(256)));
      break;
    case 2: {  // erase a run of bytes
      if (s.empty()) break;
      const size_t at = Below(s.size());
      s.erase(at, 1 + Below(std::min<size_t>(16, s.size() - at)));
      break;
    }
    case 3: {  // drop a line
      const auto [a, b] = line(Below(starts.size()));
      s.erase(a, b - a);
      break;
    }
    case 4: {  // repeat a line
      const auto [a, b] = line(Below(starts.size()));
      const std::string copy = s.substr(a, b - a);
      s.insert(b, copy.empty() || copy.back() == '\n' ? copy : copy + "\n");
      break;
    }
    case 5: {  // swap two lines
      const auto [a1, b1] = line(Below(starts.size()));
      const auto [a2, b2] = line(Below(starts.size()));
      if (a1 == a2) break;
      const std::string x = s.substr(a1, b1 - a1), y = s.substr(a2, b2 - a2);
      if (a1 < a2) {
        s.replace(a2, b2 - a2, x);
        s.replace(a1, b1 - a1, y);
      } else {
        s.replace(a1, b1 - a1, y);
        s.replace(a2, b2 - a2, x);
      }
      break;
    }
    case 6:
    case 7: {  // replace a token (a number, a word, a value) by an interesting one
      std::vector<std::pair<size_t, size_t>> tokens;
      for (size_t i = 0; i < s.size();) {
        if (!IsTokenChar(s[i])) {
          ++i;
          continue;
        }
        const size_t a = i;
        while (i < s.size() && IsTokenChar(s[i])) ++i;
        tokens.emplace_back(a, i - a);
      }
      if (tokens.empty()) break;
      const auto [a, len] = tokens[Below(tokens.size())];
      s.replace(a, len, kInteresting[Below(kInteresting.size())]);
      break;
    }
    case 8: {  // double or halve a number
      std::vector<size_t> digits;
      for (size_t i = 0; i < s.size(); ++i)
        if (s[i] >= '0' && s[i] <= '9' && (i == 0 || !(s[i - 1] >= '0' && s[i - 1] <= '9')))
          digits.push_back(i);
      if (digits.empty()) break;
      const size_t at = digits[Below(digits.size())];
      s.insert(at, Below(2) == 0 ? "0" : "9");
      break;
    }
    default: {  // splice: a piece of another input
      if (other.empty()) break;
      const size_t from = Below(other.size());
      const size_t len = 1 + Below(std::min<size_t>(256, other.size() - from));
      s.insert(Below(s.size() + 1), other.substr(from, len));
      break;
    }
  }
}

}  // namespace rocesim::fuzz
