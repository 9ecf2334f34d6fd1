// SPDX-License-Identifier: Apache-2.0
// The concrete likelihoods behind make_likelihood (private to the trainer and its tests). Each is
// defined in its own trainer/src/likelihood_*.cpp; equations refer to Ghosh, Delle Fave &
// Yedidia 2016 (eq. 12 of Gaussian: Hernandez-Lobato & Adams 2015).
#pragma once
#include <cstdint>
#include <vector>

#include "pbp/trainer/likelihood.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer {

// Regression: log N(y | m, v + b/(a-1)) with the noise Gamma(a, b) (eq. 12), whose moments are
// matched after every update (eqs. 9-10); the same operations, in the same order, as the
// original ADF loop.
class GaussianLikelihood final : public Likelihood {
 public:
  explicit GaussianLikelihood(Gamma& noise) : noise_(&noise) {}
  uint32_t outputs() const override { return 1; }
  double log_z(const double* mean, const double* var, double target, double* d_mean,
               double* d_var) override;
  void after_update(const double* mean, const double* var, double target) override;
  // Whether the last after_update left the Gamma unchanged (its match was not a proper Gamma).
  bool noise_rejected() const { return noise_rejected_; }

 private:
  Gamma* noise_;
  bool noise_rejected_ = false;
};

// Binary: log Phi(y m / sqrt(1 + v)), y = +1 for label 1 and -1 for 0 (eq. 24). Valid for
// v > -1; finite in both tails (|m| up to 1e4 and beyond).
class ProbitLikelihood final : public Likelihood {
 public:
  uint32_t outputs() const override { return 1; }
  double log_z(const double* mean, const double* var, double target, double* d_mean,
               double* d_var) override;
};

// Multiclass, the log bound: log Z >= m_y - lse(m + v/2) (eqs. 14-15). A label outside
// 0..C-1 is clamped into it (the loader validates labels).
class SoftmaxLogBoundLikelihood final : public Likelihood {
 public:
  explicit SoftmaxLogBoundLikelihood(uint32_t classes);
  uint32_t outputs() const override { return classes_; }
  double log_z(const double* mean, const double* var, double target, double* d_mean,
               double* d_var) override;

 private:
  uint32_t classes_;
  std::vector<double> shifted_;  // m + v/2
};

// Multiclass, the mean-field approximation of E[softmax_y(z)] that the predictions use
// (runtime/core/pbp/outputs.hpp, Lu, Ie & Sha 2020): log Z = log q_y,
// q_y = 1 / (1 + sum_{k != y} exp(-(m_y - m_k) / sqrt(1 + pi/8 (v_y + v_k)))). Deterministic;
// unlike the log bound its d/dv changes sign (positive where the label is not the most likely
// class), so it does not shrink every output variance on every point. Labels are clamped like
// the log bound's.
class SoftmaxMeanFieldLikelihood final : public Likelihood {
 public:
  explicit SoftmaxMeanFieldLikelihood(uint32_t classes);
  uint32_t outputs() const override { return classes_; }
  double log_z(const double* mean, const double* var, double target, double* d_mean,
               double* d_var) override;

 private:
  uint32_t classes_;
  std::vector<double> exponent_;  // (m_k - m_y) / s_k, 0 for the label
  std::vector<double> scale_;     // s_k
};

// Multiclass, reparameterised Monte Carlo (eqs. 16-18): z_s = m + sqrt(v) eps_s,
// Z ~ mean_s softmax_y(z_s), gradients of that estimate by the chain rule. Fresh eps on every
// call from a Random seeded with `seed`, unless fix_samples pinned them.
class SoftmaxSampledLikelihood final : public Likelihood {
 public:
  SoftmaxSampledLikelihood(uint32_t classes, uint32_t samples, uint64_t seed);
  uint32_t outputs() const override { return classes_; }
  double log_z(const double* mean, const double* var, double target, double* d_mean,
               double* d_var) override;

  // Use these standard normals (samples x classes, row-major) on every later call instead of
  // fresh draws, making log_z a deterministic function (for finite differences); an empty
  // vector returns to drawing. Throws std::invalid_argument on a wrong size.
  void fix_samples(std::vector<double> standard_normals);
  // The standard normals the last call used (samples x classes, row-major).
  const std::vector<double>& samples() const { return epsilon_; }
  uint32_t sample_count() const { return samples_; }

 private:
  uint32_t classes_;
  uint32_t samples_;
  Random random_;
  bool fixed_ = false;
  std::vector<double> epsilon_;  // samples x classes
  std::vector<double> softmax_;  // samples x classes: softmax(z_s)
  std::vector<double> log_p_;    // samples: log softmax_y(z_s)
  std::vector<double> z_;        // classes: one sample's z
  std::vector<double> sd_;       // classes: sqrt(v)
};

// Counts: Poisson with rate e^z, z ~ N(m, v), approximated by e^z ~ Gamma(1/v, v e^m) (eq. 21),
// giving the negative binomial NB(y | r = 1/v, p = v e^m / (1 + v e^m)) (eq. 22). The target is
// rounded to the nearest count >= 0. v = 0 is the Poisson limit; v < 0 is read as 0.
class NegativeBinomialLikelihood final : public Likelihood {
 public:
  uint32_t outputs() const override { return 1; }
  double log_z(const double* mean, const double* var, double target, double* d_mean,
               double* d_var) override;
};

}  // namespace pbp::trainer
