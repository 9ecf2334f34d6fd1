// SPDX-License-Identifier: Apache-2.0
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "likelihoods/likelihoods.hpp"
#include "likelihoods/log_sum_exp.hpp"

namespace pbp::trainer {

SoftmaxSampledLikelihood::SoftmaxSampledLikelihood(uint32_t classes, uint32_t samples,
                                                   uint64_t seed)
    : classes_(classes),
      samples_(samples),
      random_(seed),
      epsilon_(size_t{samples} * classes),
      softmax_(size_t{samples} * classes),
      log_p_(samples),
      z_(classes),
      sd_(classes) {
  if (classes < 2) throw std::invalid_argument("softmax likelihood: needs at least 2 classes");
  if (samples < 1) throw std::invalid_argument("sampled softmax: needs at least 1 sample");
}

void SoftmaxSampledLikelihood::fix_samples(std::vector<double> standard_normals) {
  fixed_ = !standard_normals.empty();
  if (!fixed_) return;
  if (standard_normals.size() != epsilon_.size()) {
    throw std::invalid_argument("sampled softmax: fixed samples must be samples x classes");
  }
  epsilon_ = std::move(standard_normals);
}

// Z ~ (1/S) sum_s p_s, p_s = softmax_y(z_s), z_s = m + sqrt(v) eps_s (eqs. 17-18). With
// dp_s/dz_c = p_s (e_y - softmax(z_s))_c and dz_c/dm_c = 1, dz_c/dv_c = eps_c / (2 sqrt v_c):
//   d log Z / dm_c = sum_s w_s (e_y - softmax(z_s))_c,   w_s = p_s / sum_s' p_s',
//   d log Z / dv_c = sum_s w_s (e_y - softmax(z_s))_c eps_sc / (2 sqrt v_c).
// Everything is formed from log p_s, so a tiny Z neither underflows nor divides 0 by 0.
double SoftmaxSampledLikelihood::log_z(const double* mean, const double* var, double target,
                                       double* d_mean, double* d_var) {
  const uint32_t label = class_index(target, classes_);
  if (!fixed_) {
    for (double& e : epsilon_) e = random_.normal();
  }
  // A variance floor keeps 1/sqrt(v) finite; v -> 0 is the estimator's own 1/sqrt(v) blow-up.
  for (uint32_t c = 0; c < classes_; ++c) sd_[c] = std::sqrt(var[c] > DBL_MIN ? var[c] : DBL_MIN);
  for (uint32_t s = 0; s < samples_; ++s) {
    const double* eps = epsilon_.data() + size_t{s} * classes_;
    for (uint32_t c = 0; c < classes_; ++c) z_[c] = mean[c] + sd_[c] * eps[c];
    const double lse = log_sum_exp(z_.data(), classes_);
    double* softmax = softmax_.data() + size_t{s} * classes_;
    for (uint32_t c = 0; c < classes_; ++c) softmax[c] = std::exp(z_[c] - lse);
    log_p_[s] = z_[label] - lse;
  }
  const double log_total = log_sum_exp(log_p_.data(), samples_);
  for (uint32_t c = 0; c < classes_; ++c) d_mean[c] = d_var[c] = 0.0;
  for (uint32_t s = 0; s < samples_; ++s) {
    const double weight = std::exp(log_p_[s] - log_total);
    const double* eps = epsilon_.data() + size_t{s} * classes_;
    const double* softmax = softmax_.data() + size_t{s} * classes_;
    for (uint32_t c = 0; c < classes_; ++c) {
      const double g = weight * ((c == label ? 1.0 : 0.0) - softmax[c]);
      d_mean[c] += g;
      d_var[c] += g * eps[c];
    }
  }
  for (uint32_t c = 0; c < classes_; ++c) d_var[c] /= 2.0 * sd_[c];
  return log_total - std::log(static_cast<double>(samples_));
}

}  // namespace pbp::trainer
