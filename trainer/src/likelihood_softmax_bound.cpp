// SPDX-License-Identifier: Apache-2.0
#include <cmath>
#include <stdexcept>

#include "likelihoods/likelihoods.hpp"
#include "likelihoods/log_sum_exp.hpp"

namespace pbp::trainer {

SoftmaxLogBoundLikelihood::SoftmaxLogBoundLikelihood(uint32_t classes)
    : classes_(classes), shifted_(classes) {
  if (classes < 2) throw std::invalid_argument("softmax likelihood: needs at least 2 classes");
}

// Jensen twice (eqs. 12-14): log Z >= m_y - E[lse(z)] >= m_y - lse(m + v/2). With
// t = softmax(m + v/2): d/dm = e_y - t, d/dv = -t/2 (eq. 15).
double SoftmaxLogBoundLikelihood::log_z(const double* mean, const double* var, double target,
                                        double* d_mean, double* d_var) {
  const uint32_t label = class_index(target, classes_);
  for (uint32_t c = 0; c < classes_; ++c) shifted_[c] = mean[c] + 0.5 * var[c];
  const double lse = log_sum_exp(shifted_.data(), classes_);
  for (uint32_t c = 0; c < classes_; ++c) {
    const double t = std::exp(shifted_[c] - lse);
    d_mean[c] = (c == label ? 1.0 : 0.0) - t;
    d_var[c] = -0.5 * t;
  }
  return mean[label] - lse;
}

}  // namespace pbp::trainer
