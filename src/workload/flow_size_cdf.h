// Flow-size distributions given as a piecewise-linear CDF (data/README.md,
// data/cdf/README.md): one point per line, `<size bytes> <cumulative percent>`,
// both columns non-decreasing, the last percent 100. A size is sampled by
// drawing u uniform in [0, 100) and interpolating linearly between the two
// points around u (below the first point's percent: the first size). The mean
// under the same interpolation is what sets the Poisson arrival rate for a
// target load (workload/generators.h).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "scenario/scenario.h"

namespace rocesim {

// Names the file and line: "cdf.txt:3: ...".
class CdfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The distributions shipped in data/cdf/ (sources in data/cdf/README.md).
const std::vector<std::string_view>& BuiltinCdfNames();
// data/cdf/<name>.txt, found beside the binary (core/data_path.h: share/rocesim/cdf
// of an install, data/cdf of the source tree).
std::string BuiltinCdfPath(std::string_view name);

// Parses and validates CDF text (blank lines and '#' comments are skipped).
std::vector<CdfPoint> ParseCdf(std::string_view text, const std::string& display_name);
std::vector<CdfPoint> ReadCdfFile(const std::string& path);

class FlowSizeCdf {
 public:
  explicit FlowSizeCdf(std::vector<CdfPoint> points);  // points as ParseCdf returns them

  // The size (real-valued, bytes) at cumulative percent u in [0, 100).
  double Quantile(double u_percent) const;
  // A flow size in whole bytes (at least 1) for u drawn from `rng`.
  int64_t Sample(Rng& rng) const;
  // Mean of the linearly interpolated distribution (the first point's percent
  // is an atom at its size).
  double Mean() const;
  const std::vector<CdfPoint>& points() const { return points_; }

 private:
  std::vector<CdfPoint> points_;
};

}  // namespace rocesim
