// Statistics over the seeds of one sweep point (docs/sweep.md "Statistics
// over seeds"): the mean of a metric and the half-width of its 95%
// confidence interval, Student t with n - 1 degrees of freedom, so that a
// difference between two points can be told from seed noise.
#pragma once

#include <optional>
#include <vector>

namespace rocesim::sweep {

// The 0.975 quantile of Student's t distribution with `df` >= 1 degrees of
// freedom (two-sided 95%): exact to 10 digits up to 30, the Cornish-Fisher
// expansion around the normal quantile beyond (error below 1e-7).
double StudentT975(int df);

struct MeanCi {
  size_t n = 0;
  double mean = 0;
  // t(0.975, n-1) * s / sqrt(n) with s the sample standard deviation; absent
  // with fewer than two values (one seed has no interval).
  std::optional<double> ci95;
};

// Mean and 95% interval of `values` (n = 0: mean 0, no interval).
MeanCi MeanAndCi95(const std::vector<double>& values);

}  // namespace rocesim::sweep
