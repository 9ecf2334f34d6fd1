// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/metrics.hpp"

#include "likelihoods/likelihoods.hpp"
#include "pbp/outputs.hpp"
#include "pbp/predictive_tail.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "pbp/math.hpp"
#include "pbp/trainer/noise_calibration.hpp"

namespace pbp::trainer {

double standard_normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("normal quantile: p must be in (0, 1)");
  return math::normal_quantile<double>(p);
}

namespace {

// |y - mean| / std of every row: the central p interval holds the rows with distance <= z_p.
std::vector<double> standardised_distances(std::span<const double> targets,
                                           std::span<const double> mean,
                                           std::span<const double> variance) {
  if (targets.empty()) throw std::invalid_argument("metrics: no targets");
  if (mean.size() != targets.size() || variance.size() != targets.size()) {
    throw std::invalid_argument("metrics: targets and predictions differ in length");
  }
  std::vector<double> distances(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    distances[i] = std::fabs(targets[i] - mean[i]) / std::sqrt(variance[i]);
  }
  return distances;
}

// The fraction of `distances` inside the central `level` interval of the predictive, in stds.
double fraction_inside(std::span<const double> distances, double level, uint32_t tail_dof) {
  if (!(level > 0.0 && level < 1.0)) {
    throw std::invalid_argument("metrics: a coverage level must be in (0, 1)");
  }
  const double z = tail_dof == 0 ? standard_normal_quantile((1.0 + level) / 2.0)
                                 : outputs::predictive_half_width((1.0 - level) / 2.0, tail_dof);
  size_t inside = 0;
  for (const double distance : distances) inside += distance <= z;
  return static_cast<double>(inside) / static_cast<double>(distances.size());
}

}  // namespace

RegressionMetrics regression_metrics(std::span<const double> targets, std::span<const double> mean,
                                     std::span<const double> variance, uint32_t tail_dof) {
  if (tail_dof != 0 && !math::student_t_dof_valid(tail_dof)) {
    throw std::invalid_argument("metrics: a Student-t needs a dof in 3 .. 32");
  }
  const std::vector<double> distances = standardised_distances(targets, mean, variance);
  double squared_error = 0.0, loglik = 0.0;
  for (size_t i = 0; i < targets.size(); ++i) {
    const double residual = targets[i] - mean[i];
    squared_error += residual * residual;
    loglik += predictive_loglik(residual * residual, variance[i], tail_dof);
  }
  const double n = static_cast<double>(targets.size());
  RegressionMetrics metrics;
  metrics.count = targets.size();
  metrics.rmse = std::sqrt(squared_error / n);
  metrics.loglik = loglik / n;
  metrics.coverage50 = fraction_inside(distances, 0.50, tail_dof);
  metrics.coverage90 = fraction_inside(distances, 0.90, tail_dof);
  metrics.coverage95 = fraction_inside(distances, 0.95, tail_dof);
  return metrics;
}

std::vector<CoverageLevel> interval_coverage(std::span<const double> targets,
                                             std::span<const double> mean,
                                             std::span<const double> variance,
                                             std::span<const double> nominal, uint32_t tail_dof) {
  const std::vector<double> distances = standardised_distances(targets, mean, variance);
  std::vector<CoverageLevel> levels;
  for (const double level : nominal) {
    levels.push_back({level, fraction_inside(distances, level, tail_dof)});
  }
  return levels;
}

std::vector<double> default_coverage_levels() {
  std::vector<double> levels;
  for (int i = 1; i <= 19; ++i) levels.push_back(i / 20.0);
  levels.push_back(0.99);
  return levels;
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

namespace pbp::trainer {
namespace {

bool is_class_index(double value, size_t classes) {
  return value >= 0.0 && value < static_cast<double>(classes) && std::floor(value) == value;
}

double floored_log(double probability) {
  return std::log(probability > kProbabilityFloor ? probability : kProbabilityFloor);
}

double dispersion(double mean, double variance) {
  if (!(mean > 0.0) || !(variance > mean)) return 0.0;
  return (variance - mean) / (mean * mean);
}

}  // namespace

ClassificationMetrics classification_metrics(std::span<const double> targets,
                                             std::span<const double> probabilities,
                                             size_t classes) {
  if (targets.empty()) throw std::invalid_argument("metrics: no targets");
  if (classes < 2) throw std::invalid_argument("metrics: need at least 2 classes");
  if (probabilities.size() != targets.size() * classes) {
    throw std::invalid_argument("metrics: targets and probabilities differ in length");
  }
  double correct = 0.0, loglik = 0.0, brier = 0.0;
  std::vector<double> bin_rows(kCalibrationBins), bin_correct(kCalibrationBins),
      bin_confidence(kCalibrationBins);
  for (size_t i = 0; i < targets.size(); ++i) {
    if (!is_class_index(targets[i], classes)) {
      throw std::invalid_argument("metrics: target is not a class index");
    }
    const size_t label = static_cast<size_t>(targets[i]);
    const std::span<const double> p = probabilities.subspan(i * classes, classes);
    size_t predicted = 0;
    for (size_t c = 0; c < classes; ++c) {
      if (p[c] > p[predicted]) predicted = c;
      const double miss = p[c] - (c == label ? 1.0 : 0.0);
      brier += miss * miss;
    }
    const double hit = predicted == label ? 1.0 : 0.0;
    correct += hit;
    loglik += floored_log(p[label]);
    // Bin b holds confidences in (b / 15, (b + 1) / 15]; bin 0 also holds 0.
    const double confidence = std::clamp(p[predicted], 0.0, 1.0);
    const double scaled = std::ceil(confidence * static_cast<double>(kCalibrationBins));
    const size_t bin =
        std::min(kCalibrationBins - 1, static_cast<size_t>(std::max(scaled, 1.0)) - 1);
    bin_rows[bin] += 1.0;
    bin_correct[bin] += hit;
    bin_confidence[bin] += confidence;
  }
  const double n = static_cast<double>(targets.size());
  ClassificationMetrics metrics;
  metrics.count = targets.size();
  metrics.accuracy = correct / n;
  metrics.loglik = loglik / n;
  metrics.brier = brier / n;
  for (size_t b = 0; b < kCalibrationBins; ++b) {
    ReliabilityBin& bin = metrics.bins.emplace_back();
    bin.lower = static_cast<double>(b) / static_cast<double>(kCalibrationBins);
    bin.upper = static_cast<double>(b + 1) / static_cast<double>(kCalibrationBins);
    bin.rows = static_cast<size_t>(bin_rows[b]);
    if (bin_rows[b] == 0.0) continue;
    bin.accuracy = bin_correct[b] / bin_rows[b];
    bin.mean_confidence = bin_confidence[b] / bin_rows[b];
    metrics.ece += std::fabs(bin_correct[b] - bin_confidence[b]) / n;  // (n_b/n)|acc_b - conf_b|
  }
  return metrics;
}

double predictive_entropy(std::span<const double> probabilities) {
  double entropy = 0.0;
  for (const double p : probabilities) {
    if (p > 0.0) entropy -= p * std::log(p);
  }
  return entropy;
}

// The runtime reports the negative binomial by its mean e^nu and variance e^nu (1 + psi e^nu);
// both functions below go back to (nu, psi) and use the single copies of the formulas: the mode
// of runtime/core/pbp/outputs.hpp and the count likelihood's log Z (eqs. 21-22).
double negative_binomial_mode(double mean, double variance) {
  if (!(mean > 0.0)) return 0.0;
  return outputs::count_moments(std::log(mean), dispersion(mean, variance)).mode;
}

double negative_binomial_log_pmf(double k, double mean, double variance) {
  if (!(mean > 0.0)) return k == 0.0 ? 0.0 : -HUGE_VAL;
  const double nu = std::log(mean);
  const double psi = dispersion(mean, variance);
  double d_nu = 0.0, d_psi = 0.0;
  return NegativeBinomialLikelihood().log_z(&nu, &psi, k, &d_nu, &d_psi);
}

CountMetrics count_metrics(std::span<const double> targets, std::span<const double> mean,
                           std::span<const double> variance) {
  if (targets.empty()) throw std::invalid_argument("metrics: no targets");
  if (mean.size() != targets.size() || variance.size() != targets.size()) {
    throw std::invalid_argument("metrics: targets and predictions differ in length");
  }
  double deviation = 0.0, loglik = 0.0;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (!(targets[i] >= 0.0) || std::floor(targets[i]) != targets[i]) {
      throw std::invalid_argument("metrics: target is not a count");
    }
    deviation += std::fabs(targets[i] - negative_binomial_mode(mean[i], variance[i]));
    loglik += std::max(negative_binomial_log_pmf(targets[i], mean[i], variance[i]),
                       std::log(kProbabilityFloor));
  }
  const double n = static_cast<double>(targets.size());
  CountMetrics metrics;
  metrics.count = targets.size();
  metrics.mad = deviation / n;
  metrics.loglik = loglik / n;
  return metrics;
}

}  // namespace pbp::trainer
