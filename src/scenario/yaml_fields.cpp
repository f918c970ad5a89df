// Typed, located access to scenario YAML fields (see yaml_fields.h).
#include "scenario/yaml_fields.h"

#include <algorithm>
#include <charconv>

#include "core/text_fields.h"
#include "core/units.h"

namespace rocesim::scenario_detail {

std::string JoinPath(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

std::string Describe(const YAML::Node& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  if (node.IsScalar()) return fmt::format("\"{}\"", node.Scalar());
  return "nothing";
}

size_t Levenshtein(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The allowed name closest to `word`: edit distance <= 3, or one is a prefix of
// the other. Empty if nothing is close.
std::string_view ClosestMatch(std::string_view word, const Keys& allowed) {
  std::string_view best;
  size_t best_score = std::numeric_limits<size_t>::max();
  for (std::string_view candidate : allowed) {
    // Lower is better: an abbreviation of a key beats a misspelling, which beats
    // a key with extra text appended.
    const size_t d = Levenshtein(word, candidate);
    size_t score;
    if (word.size() >= 2 && candidate.starts_with(word)) {
      score = 1;
    } else if (d <= 3 && d < word.size()) {
      score = 2 * d;
    } else if (word.size() >= 2 && word.starts_with(candidate)) {
      score = 7;
    } else {
      continue;
    }
    if (score < best_score) {
      best_score = score;
      best = candidate;
    }
  }
  return best;
}

// "; did you mean 'alpha'?" for a close match, else "; allowed keys are: ...".
std::string Suggest(std::string_view word, const Keys& allowed) {
  const std::string_view best = ClosestMatch(word, allowed);
  if (!best.empty()) return fmt::format("; did you mean '{}'?", best);
  return fmt::format("; allowed keys are: {}", fmt::join(allowed, ", "));
}

std::string IntExpectation(int64_t min, int64_t max) {
  if (max >= std::numeric_limits<int>::max()) {
    return min == 0 ? "a non-negative integer" : fmt::format("an integer >= {}", min);
  }
  return fmt::format("an integer from {} to {}", min, max);
}

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

Map Reader::ReadMap(const Field& f, const Keys& allowed) const {
  if (accepted_keys_ != nullptr) {
    // List indices as "[]": "traffic.0" -> "traffic[]".
    std::string path;
    for (size_t start = 0; start <= f.path.size();) {
      size_t dot = f.path.find('.', start);
      if (dot == std::string::npos) dot = f.path.size();
      const std::string part = f.path.substr(start, dot - start);
      if (!part.empty() && ParseInt(part))
        path += "[]";
      else if (!part.empty())
        path += (path.empty() ? "" : ".") + part;
      start = dot + 1;
    }
    for (std::string_view key : allowed) accepted_keys_->insert(JoinPath(path, key));
  }
  Map m{f, {}};
  if (f.node.IsNull()) return m;  // "switch:" with nothing under it = all defaults
  if (!f.node.IsMap()) Expected(f, "a map");
  for (auto it = f.node.begin(); it != f.node.end(); ++it) {
    const YAML::Node key_node = it->first;
    Entry e{"", key_node, {it->second, "", OriginOf(it->second, f.origin)}};
    Field key_field{key_node, f.path, e.value.origin};
    if (!key_node.IsScalar()) FailNoPath(key_field, "map keys must be plain names");
    e.key = key_node.Scalar();
    e.value.path = JoinPath(f.path, e.key);
    if (std::find(allowed.begin(), allowed.end(), e.key) == allowed.end()) {
      Fail(key_field, fmt::format("unknown key '{}'{}", e.key, Suggest(e.key, allowed)));
    }
    if (m.Find(e.key) != nullptr) Fail(key_field, fmt::format("key '{}' appears twice", e.key));
    locations_[e.value.path] = Where(key_field);
    m.entries.push_back(std::move(e));
  }
  return m;
}

Field Reader::Require(const Map& m, std::string_view key, std::string_view why) const {
  if (std::optional<Field> f = m.Get(key)) return *f;
  Fail(m.self, fmt::format("missing required key '{}'{}", key, why));
}

std::vector<Field> Reader::List(const Field& f, std::string_view expected) const {
  std::vector<Field> out;
  if (f.node.IsNull()) return out;
  if (!f.node.IsSequence()) Expected(f, expected);
  for (size_t i = 0; i < f.node.size(); ++i) {
    const YAML::Node item = f.node[i];
    out.push_back({item, JoinPath(f.path, std::to_string(i)), OriginOf(item, f.origin)});
    locations_[out.back().path] = Where(out.back());
  }
  return out;
}

void Reader::CheckTypedKeys(const Map& m, std::string_view type,
                            const std::vector<TypedKey>& keys) const {
  for (const TypedKey& tk : keys) {
    const Entry* e = m.Find(tk.key);
    if (e == nullptr || tk.type == type) continue;
    FailNoPath({e->key_node, "", e->value.origin},
               fmt::format("{} applies to type {}, not {}", e->value.path, tk.type, type));
  }
}

std::string Reader::OneOf(const Field& f, const Keys& choices) const {
  const std::string expected = fmt::format("one of {}", fmt::join(choices, ", "));
  const std::string value = Scalar(f, expected);
  if (std::find(choices.begin(), choices.end(), value) != choices.end()) return value;
  const std::string_view best = ClosestMatch(value, choices);
  Fail(f, fmt::format("expected {}, got \"{}\"{}", expected, value,
                      best.empty() ? "" : fmt::format("; did you mean '{}'?", best)));
}

int64_t Reader::Int(const Field& f, int64_t min, int64_t max, std::string_view expected) const {
  const std::string expectation =
      expected.empty() ? IntExpectation(min, max) : std::string(expected);
  const std::optional<int64_t> v = ParseInt(Scalar(f, expectation));
  if (!v || *v < min || *v > max) Expected(f, expectation);
  return *v;
}

uint64_t Reader::Uint64(const Field& f) const {
  const std::string s = Scalar(f, "a non-negative integer");
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) Expected(f, "a non-negative integer");
  return v;
}

bool Reader::Bool(const Field& f) const {
  bool v = false;
  if (!f.node.IsScalar() || !YAML::convert<bool>::decode(f.node, v)) {
    Expected(f, "true or false");
  }
  return v;
}

Time Reader::TimeValue(const Field& f, Time min) const {
  constexpr std::string_view kExpected = R"(a time like "1us" or "2.5ms")";
  const std::string s = Scalar(f, kExpected);
  Time t = 0;
  try {
    t = ParseTime(s);
  } catch (const UnitError& e) {
    Fail(f, e.what());
  }
  if (t < min) Fail(f, fmt::format("expected a time greater than 0, got \"{}\"", s));
  return t;
}

int64_t Reader::Rate(const Field& f) const {
  const std::string s = Scalar(f, R"(a rate like "100Gbps")");
  try {
    return ParseRate(s);
  } catch (const UnitError& e) {
    Fail(f, e.what());
  }
}

std::string Reader::String(const Field& f) const {
  std::string s = Scalar(f, "a string");
  if (const size_t at = InvalidUtf8At(s); at != std::string_view::npos)
    Fail(f, fmt::format("expected UTF-8 text, got the byte 0x{:02X} at position {}, which is not "
                        "valid UTF-8",
                        static_cast<unsigned>(static_cast<unsigned char>(s[at])), at + 1));
  return s;
}

int64_t Reader::StartRate(const Field& f) const {
  if (f.node.IsScalar() && f.node.Scalar() == "fair") return kFairStartRate;
  const std::string s = Scalar(f, R"(a rate like "10Gbps", or "fair")");
  try {
    return ParseRate(s);
  } catch (const UnitError& e) {
    Fail(f, fmt::format("{} (or \"fair\": line rate / (the sender's active QPs + 1))", e.what()));
  }
}

int64_t Reader::Size(const Field& f, int64_t min, int64_t max) const {
  constexpr std::string_view kExpected = R"(a size like "200KB" or "4KiB")";
  const std::string s = Scalar(f, kExpected);
  int64_t v = 0;
  try {
    v = ParseSize(s);
  } catch (const UnitError& e) {
    Fail(f, e.what());
  }
  if (v < min) Fail(f, fmt::format("expected a size of at least {} bytes, got \"{}\"", min, s));
  if (v > max) Fail(f, fmt::format("expected a size of at most {} bytes, got \"{}\"", max, s));
  return v;
}

double Reader::Fraction(const Field& f, double min, bool min_inclusive, double max) const {
  constexpr std::string_view kExpected = R"(a fraction like "1/16", "0.0625" or "6.25%")";
  const std::string s = Scalar(f, kExpected);
  double v = 0;
  try {
    v = ParseFraction(s);
  } catch (const UnitError& e) {
    Fail(f, e.what());
  }
  const bool low = min_inclusive ? v < min : v <= min;
  if (low || v > max) {
    std::string range = min_inclusive ? fmt::format("from {} to {}", min, max)
                                      : fmt::format("greater than {}", min);
    if (!min_inclusive && max < std::numeric_limits<double>::max()) {
      range += fmt::format(" and at most {}", max);
    }
    Fail(f, fmt::format("expected a fraction {}, got \"{}\"", range, s));
  }
  return v;
}

std::vector<int> Reader::PriorityList(const Field& f) const {
  std::vector<int> out;
  for (const Field& item : List(f, "a list of priorities (0-7) like [3]")) {
    const int p = IntField(item, 0, kNumPriorities - 1);
    if (std::find(out.begin(), out.end(), p) != out.end()) {
      Fail(item, fmt::format("priority {} is listed twice", p));
    }
    out.push_back(p);
  }
  return out;
}

int Reader::HostId(const Field& f) const {
  return static_cast<int>(
      Int(f, 0, hosts_ - 1,
          fmt::format("a host id from 0 to {} (the topology has {} hosts)", hosts_ - 1, hosts_)));
}

}  // namespace rocesim::scenario_detail
