// SPDX-License-Identifier: Apache-2.0
// Test metrics: Gaussian predictive distributions (regression, original target units), class
// probabilities (binary and multiclass) and negative-binomial count predictions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

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
// be non-empty; `tail_dof` the predictive's shape (Model::tail_dof: 0 Gaussian, else a Student-t
// of that variance), which the log-likelihood and the intervals follow. Throws
// std::invalid_argument on mismatched sizes or an empty set.
RegressionMetrics regression_metrics(std::span<const double> targets, std::span<const double> mean,
                                     std::span<const double> variance, uint32_t tail_dof = 0);

// The observed coverage of central Gaussian predictive intervals at one nominal level p: the
// fraction of targets with |y - mean| <= z std, z = Phi^-1((1 + p) / 2).
struct CoverageLevel {
  double nominal = 0.0;
  double observed = 0.0;
};

// For each level in `nominal` (each in (0, 1)), the observed coverage; a calibrated model gives
// observed ~ nominal. Throws std::invalid_argument as regression_metrics does, or for a level
// outside (0, 1).
std::vector<CoverageLevel> interval_coverage(std::span<const double> targets,
                                             std::span<const double> mean,
                                             std::span<const double> variance,
                                             std::span<const double> nominal,
                                             uint32_t tail_dof = 0);

// The levels a coverage calibration plot uses: 0.05, 0.10, ..., 0.95 and 0.99.
std::vector<double> default_coverage_levels();

// The standard normal quantile Phi^-1(p), 0 < p < 1: the runtime's pbp::math::normal_quantile,
// so host metrics and device intervals agree.
double standard_normal_quantile(double p);

// Log-likelihoods of classes and counts are floored at log(kProbabilityFloor) (about -34.5), so a
// confident miss costs a finite amount and one row cannot turn the mean into -inf.
inline constexpr double kProbabilityFloor = 1e-15;
// Expected calibration error uses this many equal-width confidence bins (Guo et al. 2017).
inline constexpr size_t kCalibrationBins = 15;

// One bin of a reliability diagram: the rows whose top-class probability (the confidence) lies
// in (lower, upper] (the first bin also holds 0).
struct ReliabilityBin {
  double lower = 0.0;
  double upper = 0.0;
  size_t rows = 0;
  double accuracy = 0.0;         // fraction of the bin's rows whose top class is the label
  double mean_confidence = 0.0;  // 0 for an empty bin, like accuracy
};

struct ClassificationMetrics {
  size_t count = 0;
  double accuracy = 0.0;  // fraction whose most probable class (lowest index on ties) is the label
  double loglik = 0.0;    // mean of log max(p[label], kProbabilityFloor)
  double brier = 0.0;     // mean over rows of sum_c (p[c] - [label == c])^2 (binary: both classes)
  double ece = 0.0;       // sum over bins of (rows in bin / rows) |accuracy - mean confidence|
  std::vector<ReliabilityBin> bins;  // the kCalibrationBins equal-width bins the ECE sums over
};

// `targets` holds class indices 0 .. classes-1; `probabilities` holds targets.size() rows of
// `classes` values (row-major). Throws std::invalid_argument on an empty set, mismatched sizes,
// fewer than 2 classes or a target that is not a class index.
ClassificationMetrics classification_metrics(std::span<const double> targets,
                                             std::span<const double> probabilities, size_t classes);

// Entropy -sum p log p of a class distribution, in nats (0 log 0 = 0).
double predictive_entropy(std::span<const double> probabilities);

// Count predictions are negative binomial (Poisson rate exp(z), z Gaussian, moment-matched by a
// Gamma): mean mu and dispersion psi = (variance - mu) / mu^2, so variance = mu + psi mu^2 (psi = 0
// is the Poisson limit; a variance below the mean counts as psi = 0).
struct CountMetrics {
  size_t count = 0;
  double mad = 0.0;     // mean |y - mode|, the mode as in the paper (below)
  double loglik = 0.0;  // mean of max(log NB(y | mu, psi), log kProbabilityFloor)
};

// `mean` (>= 0) and `variance` of each row's predictive count distribution, aligned with the
// counts `targets`. Throws std::invalid_argument on an empty set, mismatched sizes, or a target
// that is not a non-negative integer.
CountMetrics count_metrics(std::span<const double> targets, std::span<const double> mean,
                           std::span<const double> variance);

// The negative binomial's mode: floor((1 - psi) mu) if psi < 1, else 0 (the ADF paper's
// floor((1 - psi) e^nu) with e^nu = mu).
double negative_binomial_mode(double mean, double variance);
// log P(k) for the negative binomial with this mean and variance (Poisson if psi is 0).
double negative_binomial_log_pmf(double k, double mean, double variance);

struct MeanAndError {
  double mean = 0.0;
  double standard_error = 0.0;  // population std / sqrt(K), as the UCI benchmark scripts report
};
MeanAndError mean_and_standard_error(std::span<const double> values);

}  // namespace pbp::trainer
