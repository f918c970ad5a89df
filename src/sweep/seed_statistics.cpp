// Mean and Student-t 95% interval over seeds (seed_statistics.h).
#include "sweep/seed_statistics.h"

#include <cmath>

namespace rocesim::sweep {

double StudentT975(int df) {
  // scipy.stats.t.ppf(0.975, df) for df = 1..30.
  static constexpr double kTable[] = {
      12.7062047364, 4.3026527299, 3.1824463053, 2.7764451052, 2.5705818366, 2.4469118488,
      2.3646242510,  2.3060041350, 2.2621571627, 2.2281388520, 2.2009851601, 2.1788128297,
      2.1603686565,  2.1447866879, 2.1314495456, 2.1199052992, 2.1098155778, 2.1009220402,
      2.0930240544,  2.0859634473, 2.0796138447, 2.0738730679, 2.0686576104, 2.0638985616,
      2.0595385528,  2.0555294386, 2.0518305165, 2.0484071418, 2.0452296421, 2.0422724563};
  if (df < 1) return NAN;
  if (df <= 30) return kTable[df - 1];
  // Hill's Cornish-Fisher expansion of t in powers of 1/df around z.
  const double z = 1.959963984540054, v = df;
  const double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
  const double g1 = (z3 + z) / 4;
  const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
  const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
  const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

MeanCi MeanAndCi95(const std::vector<double>& values) {
  MeanCi out;
  out.n = values.size();
  if (out.n == 0) return out;
  // Shifted by the first value: seeds that agree give exactly their value
  // (a plain sum / n turns 3 x 15.3215...383 into ...384) and a zero interval.
  const double shift = values.front();
  double sum = 0;
  for (double x : values) sum += x - shift;
  out.mean = shift + sum / static_cast<double>(out.n);
  if (out.n < 2) return out;
  // Two passes (deviations from the mean): no cancellation when the spread
  // is small against the values, as between seeds of one point.
  double ss = 0;
  for (double x : values) ss += (x - out.mean) * (x - out.mean);
  const double sd = std::sqrt(ss / static_cast<double>(out.n - 1));
  out.ci95 = StudentT975(static_cast<int>(out.n) - 1) * sd / std::sqrt(static_cast<double>(out.n));
  return out;
}

}  // namespace rocesim::sweep
