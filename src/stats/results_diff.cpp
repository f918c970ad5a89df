#include "stats/results_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

namespace rocesim {

namespace {

namespace fs = std::filesystem;

std::string ReadBytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// summary.json's text without its `run` object; a file that is not JSON
// (cut short) stays as it is, so that it differs from a whole one.
std::string SummaryWithoutRun(const fs::path& file) {
  const std::string text = ReadBytes(file);
  nlohmann::json summary = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (summary.is_discarded() || !summary.is_object()) return text;
  summary.erase("run");
  return summary.dump();
}

}  // namespace

std::vector<std::string> ResultFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> FirstResultsDifference(const std::string& a, const std::string& b) {
  const std::vector<std::string> in_a = ResultFiles(a), in_b = ResultFiles(b);
  for (const std::string& file : in_b)
    if (!std::binary_search(in_a.begin(), in_a.end(), file))
      return fmt::format("only {} holds {}", b, file);
  for (const std::string& file : in_a) {
    if (!std::binary_search(in_b.begin(), in_b.end(), file))
      return fmt::format("only {} holds {}", a, file);
    const fs::path x = fs::path(a) / file, y = fs::path(b) / file;
    const bool same = file == "summary.json" ? SummaryWithoutRun(x) == SummaryWithoutRun(y)
                                             : ReadBytes(x) == ReadBytes(y);
    if (!same) return fmt::format("{} differs between {} and {}", file, a, b);
  }
  return std::nullopt;
}

}  // namespace rocesim
