// SPDX-License-Identifier: Apache-2.0
#include <cmath>
#include <stdexcept>

#include "likelihoods/likelihoods.hpp"
#include "likelihoods/log_sum_exp.hpp"
#include "pbp/outputs.hpp"

namespace pbp::trainer {

SoftmaxMeanFieldLikelihood::SoftmaxMeanFieldLikelihood(uint32_t classes)
    : classes_(classes), exponent_(classes), scale_(classes) {
  if (classes < 2) throw std::invalid_argument("softmax likelihood: needs at least 2 classes");
}

// log Z = log q_y = -log(1 + sum_{k != y} exp(e_k)), e_k = (m_k - m_y) / s_k,
// s_k = sqrt(1 + pi/8 (v_y + v_k)) (outputs::pairwise_scale). With r_k = exp(e_k) q_y:
//   d/dm_k = -r_k / s_k,  d/dm_y = sum_k r_k / s_k,
//   d/dv_k = d/dv_y (its k term) = r_k e_k pi/16 / s_k^2.
// The sum is formed as a log-sum-exp with the term 1 as exp(0), so no exp overflows; unlike the
// runtime's probabilities the exponents are not clamped, so a badly misclassified point keeps its
// gradient.
double SoftmaxMeanFieldLikelihood::log_z(const double* mean, const double* var, double target,
                                         double* d_mean, double* d_var) {
  const uint32_t label = class_index(target, classes_);
  double largest = 0.0;  // the exponent of the term 1
  for (uint32_t k = 0; k < classes_; ++k) {
    scale_[k] = outputs::pairwise_scale(var[label], var[k]);
    exponent_[k] = k == label ? 0.0 : (mean[k] - mean[label]) / scale_[k];
    largest = exponent_[k] > largest ? exponent_[k] : largest;
  }
  // exponent_[label] = 0 stands for the term 1 of the sum.
  double sum = 0.0;
  for (uint32_t k = 0; k < classes_; ++k) sum += std::exp(exponent_[k] - largest);
  const double log_sum = largest + std::log(sum);
  d_mean[label] = 0.0;
  d_var[label] = 0.0;
  for (uint32_t k = 0; k < classes_; ++k) {
    if (k == label) continue;
    const double r = std::exp(exponent_[k] - log_sum);
    const double by_mean = r / scale_[k];
    const double by_var =
        r * exponent_[k] * (0.5 * outputs::kProbitScale<double>) / (scale_[k] * scale_[k]);
    d_mean[k] = -by_mean;
    d_mean[label] += by_mean;
    d_var[k] = by_var;
    d_var[label] += by_var;
  }
  return -log_sum;
}

// The multiclass line of the table: --softmax chooses among the three approximations.
std::unique_ptr<Likelihood> make_softmax_likelihood(const LikelihoodContext& context) {
  const uint32_t classes = context.classes;
  switch (context.options.softmax) {
    case SoftmaxApproximation::sampled:
      return std::make_unique<SoftmaxSampledLikelihood>(classes, context.options.samples,
                                                        context.seed);
    case SoftmaxApproximation::log_bound:
      return std::make_unique<SoftmaxLogBoundLikelihood>(classes);
    case SoftmaxApproximation::mean_field:
      return std::make_unique<SoftmaxMeanFieldLikelihood>(classes);
  }
  throw std::invalid_argument("make_likelihood: unknown softmax approximation");
}

}  // namespace pbp::trainer
