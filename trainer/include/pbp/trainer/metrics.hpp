// Test metrics of Gaussian predictive distributions, in original target units.
#pragma once
#include <cstddef>
#include <span>

namespace pbp::trainer {

struct RegressionMetrics {
  size_t count = 0;
  double rmse = 0.0;
  double loglik = 0.0;      // mean of log N(y | mean, variance)
  double coverage50 = 0.0;  // fraction of y inside the central 50 % predictive interval
  double coverage90 = 0.0;
  double coverage95 = 0.0;
};

// `mean` and `variance` (total predictive variance, > 0) are aligned with `targets`, which must
// be non-empty. Throws std::invalid_argument on mismatched sizes or an empty set.
RegressionMetrics regression_metrics(std::span<const double> targets, std::span<const double> mean,
                                     std::span<const double> variance);

// The standard normal quantile Phi^-1(p), 0 < p < 1: the runtime's pbp::math::normal_quantile,
// so host metrics and device intervals agree.
double standard_normal_quantile(double p);

struct MeanAndError {
  double mean = 0.0;
  double standard_error = 0.0;  // population std / sqrt(K), as the UCI benchmark scripts report
};
MeanAndError mean_and_standard_error(std::span<const double> values);

}  // namespace pbp::trainer
