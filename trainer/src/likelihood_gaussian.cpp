// SPDX-License-Identifier: Apache-2.0
#include <stdexcept>

#include "likelihoods/likelihoods.hpp"
#include "pbp/trainer/moment_matching.hpp"

namespace pbp::trainer {

double GaussianLikelihood::log_z(const double* mean, const double* var, double target,
                                 double* d_mean, double* d_var) {
  // The Student-t evidence approximated by a Gaussian with the noise variance b/(a-1) (eq. 12).
  const GaussianLogZ lz = gaussian_log_z(target, mean[0], var[0] + noise_->variance_estimate());
  d_mean[0] = lz.d_mean;
  d_var[0] = lz.d_variance;
  return lz.value;
}

void GaussianLikelihood::after_update(const double* mean, const double* var, double target) {
  const std::optional<Gamma> next = gaussian_gamma_update(*noise_, target, mean[0], var[0]);
  noise_rejected_ = !next;
  if (next) *noise_ = *next;
}

std::unique_ptr<Likelihood> make_gaussian_likelihood(const LikelihoodContext& context) {
  if (context.noise == nullptr) {
    throw std::invalid_argument("regression likelihood: needs a noise Gamma");
  }
  return std::make_unique<GaussianLikelihood>(*context.noise);
}

}  // namespace pbp::trainer
