// SPDX-License-Identifier: Apache-2.0
#include "likelihoods/likelihoods.hpp"
#include "pbp/learn/likelihood_gradients.hpp"

namespace pbp::trainer {

// log Phi(y m / sqrt(1 + v)) and its gradients: learn::probit_log_z (the one copy).
double ProbitLikelihood::log_z(const double* mean, const double* var, double target, double* d_mean,
                               double* d_var) {
  const learn::LogZ<double> lz = learn::probit_log_z(target > 0.5, mean[0], var[0]);
  d_mean[0] = lz.d_mean;
  d_var[0] = lz.d_variance;
  return lz.value;
}

std::unique_ptr<Likelihood> make_probit_likelihood(const LikelihoodContext&) {
  return std::make_unique<ProbitLikelihood>();
}

}  // namespace pbp::trainer
