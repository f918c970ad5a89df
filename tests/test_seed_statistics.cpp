// Tests of the statistics over seeds (src/sweep/seed_statistics.h): the
// Student t quantile against published values (scipy.stats.t.ppf(0.975, df))
// on both sides of the table/expansion switch, and the mean and interval of
// small samples computed by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "sweep/seed_statistics.h"

namespace rocesim::sweep {
namespace test_seed_statistics {
namespace {

TEST(SeedStatisticsTest, StudentTQuantileMatchesPublishedValues) {
  EXPECT_NEAR(StudentT975(1), 12.7062047364, 1e-9);
  EXPECT_NEAR(StudentT975(4), 2.7764451052, 1e-9);
  EXPECT_NEAR(StudentT975(30), 2.0422724563, 1e-9);
  EXPECT_NEAR(StudentT975(31), 2.0395134464, 1e-7);
  EXPECT_NEAR(StudentT975(100), 1.9839715184, 1e-7);
  EXPECT_NEAR(StudentT975(1000), 1.9623390808, 1e-7);
  EXPECT_TRUE(std::isnan(StudentT975(0)));
}

TEST(SeedStatisticsTest, MeanAndIntervalOfSmallSamples) {
  // 1, 2, 3, 4, 5: mean 3, s = sqrt(10 / 4), half-width 2.7764451052 *
  // sqrt(2.5) / sqrt(5) = 1.9632431615.
  const MeanCi five = MeanAndCi95({1, 2, 3, 4, 5});
  EXPECT_EQ(five.n, 5u);
  EXPECT_DOUBLE_EQ(five.mean, 3);
  ASSERT_TRUE(five.ci95.has_value());
  EXPECT_NEAR(*five.ci95, 1.9632431615, 1e-9);
  // Identical values: exactly that value (no rounding in the sum), and a
  // zero-width interval.
  const double v = 15.321590746646383;
  const MeanCi same = MeanAndCi95({v, v, v});
  EXPECT_EQ(same.mean, v);
  ASSERT_TRUE(same.ci95.has_value());
  EXPECT_EQ(*same.ci95, 0);
  // One seed: its value, no interval; none: nothing.
  const MeanCi one = MeanAndCi95({7});
  EXPECT_DOUBLE_EQ(one.mean, 7);
  EXPECT_FALSE(one.ci95.has_value());
  EXPECT_EQ(MeanAndCi95({}).n, 0u);
}

}  // namespace
}  // namespace test_seed_statistics
}  // namespace rocesim::sweep
