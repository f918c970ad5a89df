// Flow-size CDFs (see flow_size_cdf.h). Format and sampling rule: data/README.md.
#include "workload/flow_size_cdf.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/data_path.h"
#include "core/text_fields.h"
#include "core/units.h"

namespace rocesim {

namespace {

bool ParseDouble(std::string_view s, double& v) {
  const std::string text(s);
  char* end = nullptr;
  errno = 0;
  v = std::strtod(text.c_str(), &end);
  return errno == 0 && end == text.c_str() + text.size() && !text.empty() && std::isfinite(v);
}

}  // namespace

const std::vector<std::string_view>& BuiltinCdfNames() {
  static const std::vector<std::string_view> names = {"websearch", "fb_hadoop", "datamining",
                                                      "ali_storage_2019", "google_rpc_2008"};
  return names;
}

std::string BuiltinCdfPath(std::string_view name) {
  return DataFile("data/cdf", "cdf", fmt::format("{}.txt", name));
}

std::vector<CdfPoint> ParseCdf(std::string_view text, const std::string& name) {
  std::vector<CdfPoint> points;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    const std::vector<std::string_view> f = SplitFields(line);
    if (f.empty()) continue;
    const auto fail = [&](std::string_view msg) {
      throw CdfError(fmt::format("{}:{}: {}", name, line_no, msg));
    };
    if (f.size() != 2) {
      fail(fmt::format("expected `<size bytes> <cumulative percent>`, got {} fields", f.size()));
    }
    CdfPoint p;
    if (!ParseDouble(f[0], p.size_bytes) || p.size_bytes < 0 ||
        p.size_bytes > static_cast<double>(kMaxFlowBytes)) {
      fail(fmt::format("expected a size in bytes from 0 to {}, got \"{}\"", kMaxFlowBytes, f[0]));
    }
    if (!ParseDouble(f[1], p.percent) || p.percent < 0 || p.percent > 100) {
      fail(fmt::format("expected a cumulative percent from 0 to 100, got \"{}\"", f[1]));
    }
    if (!points.empty()) {
      if (p.size_bytes < points.back().size_bytes) {
        fail(fmt::format("sizes must not decrease ({} after {})", f[0], points.back().size_bytes));
      }
      if (p.percent < points.back().percent) {
        fail(fmt::format("percents must not decrease ({} after {})", f[1], points.back().percent));
      }
    }
    points.push_back(p);
  }
  if (points.empty()) throw CdfError(fmt::format("{}: no points", name));
  if (points.back().percent != 100) {
    throw CdfError(fmt::format("{}: the last cumulative percent must be 100, got {}", name,
                               points.back().percent));
  }
  return points;
}

std::vector<CdfPoint> ReadCdfFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw CdfError(fmt::format("cannot open CDF file '{}': {}", path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParseCdf(text.str(), path);
}

FlowSizeCdf::FlowSizeCdf(std::vector<CdfPoint> points) : points_(std::move(points)) {
  if (points_.empty() || points_.back().percent != 100) {
    throw CdfError("a flow-size CDF needs points ending at 100 percent");
  }
}

double FlowSizeCdf::Quantile(double u) const {
  // The first point with percent > u; u in [0, 100) so one exists.
  const auto it = std::upper_bound(points_.begin(), points_.end(), u,
                                   [](double x, const CdfPoint& p) { return x < p.percent; });
  if (it == points_.begin()) return points_.front().size_bytes;
  if (it == points_.end()) return points_.back().size_bytes;
  const CdfPoint& lo = *(it - 1);
  const CdfPoint& hi = *it;
  return lo.size_bytes +
         (hi.size_bytes - lo.size_bytes) * (u - lo.percent) / (hi.percent - lo.percent);
}

int64_t FlowSizeCdf::Sample(Rng& rng) const {
  const double size = Quantile(rng.Uniform() * 100);
  return std::max<int64_t>(1, std::llround(size));
}

double FlowSizeCdf::Mean() const {
  double mean = points_.front().size_bytes * points_.front().percent / 100;
  for (size_t i = 1; i < points_.size(); ++i) {
    const CdfPoint& a = points_[i - 1];
    const CdfPoint& b = points_[i];
    mean += (b.percent - a.percent) / 100 * (a.size_bytes + b.size_bytes) / 2;
  }
  return mean;
}

}  // namespace rocesim
