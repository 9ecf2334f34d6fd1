#include "pbp/trainer/metrics.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "pbp/math.hpp"

namespace pbp::trainer {

double standard_normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("normal quantile: p must be in (0, 1)");
  return math::normal_quantile<double>(p);
}

RegressionMetrics regression_metrics(std::span<const double> targets, std::span<const double> mean,
                                     std::span<const double> variance) {
  if (targets.empty()) throw std::invalid_argument("metrics: no targets");
  if (mean.size() != targets.size() || variance.size() != targets.size()) {
    throw std::invalid_argument("metrics: targets and predictions differ in length");
  }
  const double z50 = standard_normal_quantile(0.75);
  const double z90 = standard_normal_quantile(0.95);
  const double z95 = standard_normal_quantile(0.975);
  double squared_error = 0.0, loglik = 0.0;
  size_t inside50 = 0, inside90 = 0, inside95 = 0;
  for (size_t i = 0; i < targets.size(); ++i) {
    const double residual = targets[i] - mean[i];
    squared_error += residual * residual;
    loglik +=
        -0.5 * (std::log(2.0 * std::numbers::pi * variance[i]) + residual * residual / variance[i]);
    const double distance = std::fabs(residual) / std::sqrt(variance[i]);
    inside50 += distance <= z50;
    inside90 += distance <= z90;
    inside95 += distance <= z95;
  }
  const double n = static_cast<double>(targets.size());
  RegressionMetrics metrics;
  metrics.count = targets.size();
  metrics.rmse = std::sqrt(squared_error / n);
  metrics.loglik = loglik / n;
  metrics.coverage50 = static_cast<double>(inside50) / n;
  metrics.coverage90 = static_cast<double>(inside90) / n;
  metrics.coverage95 = static_cast<double>(inside95) / n;
  return metrics;
}

MeanAndError mean_and_standard_error(std::span<const double> values) {
  MeanAndError result;
  if (values.empty()) return result;
  const double n = static_cast<double>(values.size());
  for (const double value : values) result.mean += value;
  result.mean /= n;
  double squares = 0.0;
  for (const double value : values) squares += (value - result.mean) * (value - result.mean);
  result.standard_error = std::sqrt(squares / n) / std::sqrt(n);
  return result;
}

}  // namespace pbp::trainer
