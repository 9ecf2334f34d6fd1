// SPDX-License-Identifier: Apache-2.0
// Test metrics against values computed by hand (Python's math module for the decimals).
#include <gtest/gtest.h>

#include <cmath>
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

namespace pbp::trainer {
namespace {

TEST(ClassificationMetrics, HandComputedMulticlass) {
  // Rows: predicted 0 (right, conf 0.7), 2 (right, 0.6), 0 (wrong, 0.5), 1 (wrong, 0.8, p[true] 0).
  const std::vector<double> labels{0, 2, 1, 2};
  const std::vector<double> p{0.7, 0.2, 0.1, 0.1, 0.3, 0.6, 0.5, 0.4, 0.1, 0.2, 0.8, 0.0};
  const ClassificationMetrics m = classification_metrics(labels, p, 3);
  EXPECT_EQ(m.count, 4u);
  EXPECT_DOUBLE_EQ(m.accuracy, 0.5);
  // (log 0.7 + log 0.6 + log 0.4 + log 1e-15) / 4: the zero probability is floored.
  EXPECT_NEAR(m.loglik, -9.080641923622391, 1e-13);
  EXPECT_NEAR(m.brier, (0.14 + 0.26 + 0.62 + 1.68) / 4, 1e-15);
  // Four separate bins: (|1 - 0.7| + |1 - 0.6| + |0 - 0.5| + |0 - 0.8|) / 4.
  EXPECT_NEAR(m.ece, 0.5, 1e-15);
}

TEST(ClassificationMetrics, HandComputedBinaryWithSharedBin) {
  // p0, p1 per row; confidences 0.9 and 0.92 share the bin (13/15, 14/15].
  const std::vector<double> labels{1, 1, 0, 1};
  const std::vector<double> p{0.1, 0.9, 0.05, 0.95, 0.08, 0.92, 0.4, 0.6};
  const ClassificationMetrics m = classification_metrics(labels, p, 2);
  EXPECT_DOUBLE_EQ(m.accuracy, 0.75);
  EXPECT_NEAR(m.loglik, -0.7983020195299058, 1e-14);  // mean log of 0.9, 0.95, 0.08, 0.6
  EXPECT_NEAR(m.brier, (0.02 + 0.005 + 1.6928 + 0.32) / 4, 1e-14);  // both classes' terms
  EXPECT_NEAR(m.ece, (std::fabs(1 - 1.82) + 0.05 + 0.4) / 4, 1e-14);
}

TEST(ClassificationMetrics, PerfectAndRejectsBadInput) {
  const std::vector<double> labels{1, 0};
  const std::vector<double> certain{0, 1, 1, 0};
  const ClassificationMetrics m = classification_metrics(labels, certain, 2);
  EXPECT_DOUBLE_EQ(m.accuracy, 1.0);
  EXPECT_DOUBLE_EQ(m.loglik, 0.0);
  EXPECT_DOUBLE_EQ(m.brier, 0.0);
  EXPECT_DOUBLE_EQ(m.ece, 0.0);
  EXPECT_THROW(classification_metrics({}, {}, 2), std::invalid_argument);
  EXPECT_THROW(classification_metrics(labels, certain, 1), std::invalid_argument);
  EXPECT_THROW(classification_metrics(labels, std::vector<double>{0, 1, 1}, 2),
               std::invalid_argument);
  EXPECT_THROW(classification_metrics(std::vector<double>{2, 0}, certain, 2),
               std::invalid_argument);
  EXPECT_THROW(classification_metrics(std::vector<double>{0.5, 0}, certain, 2),
               std::invalid_argument);
}

TEST(ClassificationMetrics, EntropyInNats) {
  EXPECT_NEAR(predictive_entropy(std::vector<double>{0.5, 0.5}), std::log(2.0), 1e-15);
  EXPECT_DOUBLE_EQ(predictive_entropy(std::vector<double>{1.0, 0.0, 0.0}), 0.0);
  EXPECT_NEAR(predictive_entropy(std::vector<double>{0.7, 0.2, 0.1}), 0.8018185525433372, 1e-15);
}

TEST(CountMetrics, NegativeBinomialModeAndPmf) {
  // mean 2, variance 4: psi 0.5, r 2, P(k) = (k + 1) / 2^(k + 2).
  EXPECT_DOUBLE_EQ(negative_binomial_mode(2, 4), 1.0);  // floor((1 - 0.5) 2)
  EXPECT_NEAR(negative_binomial_log_pmf(0, 2, 4), std::log(0.25), 1e-14);
  EXPECT_NEAR(negative_binomial_log_pmf(3, 2, 4), std::log(0.125), 1e-14);
  EXPECT_NEAR(negative_binomial_log_pmf(10, 2, 4), std::log(11.0 / 4096), 1e-13);
  // Variance = mean: Poisson(3), mode 3, P(2) = 4.5 e^-3.
  EXPECT_DOUBLE_EQ(negative_binomial_mode(3, 3), 3.0);
  EXPECT_NEAR(negative_binomial_log_pmf(2, 3, 3), -1.4959226032237258, 1e-14);
  // Nearly Poisson (psi = 1e-14): the product form keeps the digits.
  EXPECT_NEAR(negative_binomial_log_pmf(2, 3, 3 + 9e-14), -1.4959226032237258, 1e-12);
  EXPECT_DOUBLE_EQ(negative_binomial_mode(1, 3), 0.0);  // psi = 2 >= 1
  EXPECT_DOUBLE_EQ(negative_binomial_mode(0, 0), 0.0);
  EXPECT_DOUBLE_EQ(negative_binomial_log_pmf(0, 0, 0), 0.0);
  // Large counts switch to log Gammas; P(k + 1) / P(k) = (k + r) / (k + 1) psi mu / (1 + psi mu).
  const double mean = 9000, variance = 9000 + 0.01 * 9000 * 9000, psi = 0.01, r = 100;
  const double step = negative_binomial_log_pmf(10001, mean, variance) -
                      negative_binomial_log_pmf(10000, mean, variance);
  EXPECT_NEAR(step, std::log((10000 + r) / 10001 * psi * mean / (1 + psi * mean)), 1e-9);
}

TEST(CountMetrics, HandComputed) {
  // Modes 1, 1, 3; P(0) = 0.25 and P(3) = 0.125 under NB(mean 2, var 4), P(2) under Poisson(3).
  const std::vector<double> y{0, 3, 2};
  const std::vector<double> mean{2, 2, 3};
  const std::vector<double> variance{4, 4, 3};
  const CountMetrics m = count_metrics(y, mean, variance);
  EXPECT_EQ(m.count, 3u);
  EXPECT_NEAR(m.mad, 4.0 / 3.0, 1e-15);
  EXPECT_NEAR(m.loglik, -1.6538861686744841, 1e-14);
  // A count the prediction rules out is floored, not -inf.
  const CountMetrics floored =
      count_metrics(std::vector<double>{4}, std::vector<double>{0}, std::vector<double>{0});
  EXPECT_NEAR(floored.loglik, std::log(kProbabilityFloor), 1e-12);
  EXPECT_THROW(
      count_metrics(std::vector<double>{-1}, std::vector<double>{1}, std::vector<double>{1}),
      std::invalid_argument);
  EXPECT_THROW(count_metrics({}, {}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace pbp::trainer
