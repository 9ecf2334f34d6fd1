// Test metrics against values computed by hand (Python's math module for the decimals).
#include <gtest/gtest.h>

#include <vector>

#include "pbp/trainer/metrics.hpp"

namespace pbp::trainer {
namespace {

TEST(NormalQuantile, KnownValues) {
  EXPECT_NEAR(standard_normal_quantile(0.75), 0.6744897501960817, 1e-13);
  EXPECT_NEAR(standard_normal_quantile(0.95), 1.6448536269514722, 1e-13);
  EXPECT_NEAR(standard_normal_quantile(0.975), 1.959963984540054, 1e-13);
  EXPECT_NEAR(standard_normal_quantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(standard_normal_quantile(1e-10), -6.361340902404056, 1e-9);
  EXPECT_NEAR(standard_normal_quantile(0.01), -2.3263478740408408, 1e-12);
  EXPECT_THROW(standard_normal_quantile(0.0), std::invalid_argument);
  EXPECT_THROW(standard_normal_quantile(1.0), std::invalid_argument);
}

TEST(RegressionMetrics, HandComputed) {
  // Standardised distances |y - mean| / std: 0.5, 0, 2, 1, 1.8.
  const std::vector<double> y{1, 2, 4, 0, 0};
  const std::vector<double> mean{1.5, 2, 2, 1, 1.8};
  const std::vector<double> variance{1, 4, 1, 1, 1};
  const RegressionMetrics m = regression_metrics(y, mean, variance);
  EXPECT_EQ(m.count, 5u);
  // sqrt((0.25 + 0 + 4 + 1 + 3.24) / 5)
  EXPECT_NEAR(m.rmse, 1.3030732903409539, 1e-14);
  // mean of -(log(2 pi v) + r^2 / v) / 2
  EXPECT_NEAR(m.loglik, -1.906567969316662, 1e-14);
  EXPECT_DOUBLE_EQ(m.coverage50, 0.4);  // 0.5 and 0 are within 0.6745
  EXPECT_DOUBLE_EQ(m.coverage90, 0.6);  // ... and 1 within 1.6449
  EXPECT_DOUBLE_EQ(m.coverage95, 0.8);  // ... and 1.8 within 1.96
}

TEST(RegressionMetrics, RejectsBadInput) {
  const std::vector<double> one{1.0};
  const std::vector<double> two{1.0, 2.0};
  EXPECT_THROW(regression_metrics({}, {}, {}), std::invalid_argument);
  EXPECT_THROW(regression_metrics(one, two, two), std::invalid_argument);
}

TEST(MeanAndStandardError, PopulationStdOverRootK) {
  const std::vector<double> values{3, 2, 4, 5};
  const MeanAndError result = mean_and_standard_error(values);
  EXPECT_DOUBLE_EQ(result.mean, 3.5);
  EXPECT_NEAR(result.standard_error, 0.5590169943749475, 1e-15);  // sqrt(1.25) / 2
  const std::vector<double> single{7};
  EXPECT_DOUBLE_EQ(mean_and_standard_error(single).standard_error, 0.0);
}

}  // namespace
}  // namespace pbp::trainer
