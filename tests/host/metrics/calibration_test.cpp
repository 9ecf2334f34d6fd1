// SPDX-License-Identifier: Apache-2.0
// Calibration data: interval coverage at many levels and the reliability bins behind the ECE.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "pbp/trainer/metrics.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer {
namespace {

// `rows` targets y = mean + std_true * N(0, 1), with predictions stating a std of `std_stated`.
struct Synthetic {
  std::vector<double> y, mean, variance;
};
Synthetic gaussian_rows(size_t rows, double std_true, double std_stated, uint64_t seed) {
  Random random(seed);
  Synthetic data;
  for (size_t i = 0; i < rows; ++i) {
    const double centre = 10.0 * random.uniform() - 5.0;
    data.mean.push_back(centre);
    data.variance.push_back(std_stated * std_stated);
    data.y.push_back(centre + std_true * random.normal());
  }
  return data;
}

TEST(IntervalCoverage, DefaultLevels) {
  const std::vector<double> levels = default_coverage_levels();
  ASSERT_EQ(levels.size(), 20u);
  EXPECT_DOUBLE_EQ(levels.front(), 0.05);
  EXPECT_DOUBLE_EQ(levels[9], 0.5);
  EXPECT_DOUBLE_EQ(levels[18], 0.95);
  EXPECT_DOUBLE_EQ(levels.back(), 0.99);
}

TEST(IntervalCoverage, CalibratedGaussianMatchesNominal) {
  const size_t rows = 20000;
  const Synthetic data = gaussian_rows(rows, 2.0, 2.0, 7);
  const auto coverage =
      interval_coverage(data.y, data.mean, data.variance, default_coverage_levels());
  ASSERT_EQ(coverage.size(), 20u);
  for (const CoverageLevel& level : coverage) {
    // Within 4 binomial standard errors of the nominal level.
    const double se = std::sqrt(level.nominal * (1.0 - level.nominal) / rows);
    EXPECT_NEAR(level.observed, level.nominal, 4.0 * se) << "level " << level.nominal;
  }
}

TEST(IntervalCoverage, MiscalibratedByTwoIsClearlyOff) {
  const size_t rows = 20000;
  // Stated std half the true one: the central p interval holds 2 Phi(z_p / 2) - 1 of the rows.
  const Synthetic overconfident = gaussian_rows(rows, 2.0, 1.0, 8);
  // Stated std twice the true one: 2 Phi(2 z_p) - 1.
  const Synthetic underconfident = gaussian_rows(rows, 1.0, 2.0, 9);
  const std::vector<double> levels{0.5, 0.9, 0.95};
  const auto over =
      interval_coverage(overconfident.y, overconfident.mean, overconfident.variance, levels);
  const auto under =
      interval_coverage(underconfident.y, underconfident.mean, underconfident.variance, levels);
  const double expected_over[] = {0.2641, 0.5892, 0.6729};    // 2 Phi(z / 2) - 1
  const double expected_under[] = {0.8227, 0.9990, 0.99991};  // 2 Phi(2 z) - 1
  for (size_t i = 0; i < levels.size(); ++i) {
    EXPECT_NEAR(over[i].observed, expected_over[i], 0.015) << levels[i];
    EXPECT_NEAR(under[i].observed, expected_under[i], 0.015) << levels[i];
    EXPECT_GT(std::fabs(over[i].observed - levels[i]), 0.2) << levels[i];
  }
  EXPECT_GT(under[0].observed - 0.5, 0.3);
}

TEST(IntervalCoverage, AgreesWithTheRegressionMetricsAndRejectsBadInput) {
  const Synthetic data = gaussian_rows(500, 1.0, 1.3, 10);
  const RegressionMetrics metrics = regression_metrics(data.y, data.mean, data.variance);
  const std::vector<double> levels{0.5, 0.9, 0.95};
  const auto coverage = interval_coverage(data.y, data.mean, data.variance, levels);
  EXPECT_EQ(coverage[0].observed, metrics.coverage50);
  EXPECT_EQ(coverage[1].observed, metrics.coverage90);
  EXPECT_EQ(coverage[2].observed, metrics.coverage95);
  EXPECT_EQ(coverage[1].nominal, 0.9);
  EXPECT_THROW(interval_coverage(data.y, data.mean, data.variance, std::vector<double>{1.0}),
               std::invalid_argument);
  EXPECT_THROW(interval_coverage(data.y, data.mean, data.variance, std::vector<double>{0.0}),
               std::invalid_argument);
  EXPECT_THROW(interval_coverage({}, {}, {}, levels), std::invalid_argument);
  EXPECT_THROW(interval_coverage(data.y, data.mean, std::vector<double>{1.0}, levels),
               std::invalid_argument);
}

TEST(ReliabilityBins, HandComputedAndSumToTheEce) {
  // The multiclass rows of the hand-computed ECE test: confidences 0.7 (right), 0.6 (right),
  // 0.5 (wrong), 0.8 (wrong), each in its own bin.
  const std::vector<double> labels{0, 2, 1, 2};
  const std::vector<double> p{0.7, 0.2, 0.1, 0.1, 0.3, 0.6, 0.5, 0.4, 0.1, 0.2, 0.8, 0.0};
  const ClassificationMetrics m = classification_metrics(labels, p, 3);
  ASSERT_EQ(m.bins.size(), kCalibrationBins);
  size_t rows = 0;
  double ece = 0.0;
  for (size_t b = 0; b < m.bins.size(); ++b) {
    const ReliabilityBin& bin = m.bins[b];
    EXPECT_DOUBLE_EQ(bin.lower, static_cast<double>(b) / 15.0);
    EXPECT_DOUBLE_EQ(bin.upper, static_cast<double>(b + 1) / 15.0);
    rows += bin.rows;
    ece += static_cast<double>(bin.rows) / 4.0 * std::fabs(bin.accuracy - bin.mean_confidence);
    if (bin.rows == 0) {
      EXPECT_EQ(bin.accuracy, 0.0);
      EXPECT_EQ(bin.mean_confidence, 0.0);
    }
  }
  EXPECT_EQ(rows, 4u);
  EXPECT_NEAR(ece, m.ece, 1e-15);
  // 0.7 lies in (10/15, 11/15], bin 10; 0.5 in (7/15, 8/15], bin 7.
  EXPECT_EQ(m.bins[10].rows, 1u);
  EXPECT_DOUBLE_EQ(m.bins[10].accuracy, 1.0);
  EXPECT_DOUBLE_EQ(m.bins[10].mean_confidence, 0.7);
  EXPECT_EQ(m.bins[7].rows, 1u);
  EXPECT_DOUBLE_EQ(m.bins[7].accuracy, 0.0);
}

TEST(ReliabilityBins, SharedBinAverages) {
  // Confidences 0.9 (right) and 0.92 (wrong) share bin 13, (13/15, 14/15].
  const std::vector<double> labels{1, 0};
  const std::vector<double> p{0.1, 0.9, 0.08, 0.92};
  const ClassificationMetrics m = classification_metrics(labels, p, 2);
  EXPECT_EQ(m.bins[13].rows, 2u);
  EXPECT_DOUBLE_EQ(m.bins[13].accuracy, 0.5);
  EXPECT_DOUBLE_EQ(m.bins[13].mean_confidence, 0.91);
}

}  // namespace
}  // namespace pbp::trainer
