// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/laplace_prior.hpp"

#include <cmath>
#include <stdexcept>

namespace pbp::trainer {

LaplacePrior initial_laplace_prior(const Layer& first, double initial_variance) {
  LaplacePrior prior;
  prior.hyperprior = {std::log(initial_variance), kLaplaceHyperpriorVariance};
  prior.q = prior.hyperprior;
  prior.sites.assign(static_cast<size_t>(first.outputs) * first.inputs, LaplaceSite{});
  return prior;
}

bool refine_laplace_factor(double& mean, double& variance, LaplaceScale& q, PriorFactor& factor,
                           LaplaceSite& site, double damping) {
  const double cavity_precision = 1.0 / variance - factor.precision;
  const double cavity_variance = 1.0 / cavity_precision;
  const double cavity_mean = (mean / variance - factor.mean_times_precision) * cavity_variance;
  const double phi_cavity_precision = 1.0 / q.variance - site.precision;
  const LaplaceScale phi_cavity{
      (q.mean / q.variance - site.mean_times_precision) / phi_cavity_precision,
      1.0 / phi_cavity_precision};
  if (!(cavity_variance > 0.0 && cavity_variance < 1e6 && phi_cavity.variance > 0.0 &&
        phi_cavity.variance < 1e4)) {
    return false;
  }
  const ScaleTiltedMoments tilted = laplace_scale_tilted(cavity_mean, cavity_variance, phi_cavity);
  if (!tilted.ok) return false;

  // The new sites are the matched marginals over the cavities; the w-site carries the start's
  // tilt as refine_prior_factor's does (q keeps it, no cavity holds it).
  const double tilt = factor.start_tilt;
  const double w_precision = 1.0 / tilted.w.variance - cavity_precision;
  const double w_mean_times_precision =
      tilted.w.mean / tilted.w.variance - cavity_mean / cavity_variance + tilt;
  const double phi_precision = 1.0 / tilted.phi.variance - phi_cavity_precision;
  const double phi_mean_times_precision =
      tilted.phi.mean / tilted.phi.variance - phi_cavity.mean / phi_cavity.variance;
  // Damped as the Gaussian-Gamma factors are: a convex combination of old and matched natural
  // parameters, so q's precisions mix two positive ones and stay positive.
  auto mix = [damping](double old_value, double new_value) {
    return old_value + damping * (new_value - old_value);
  };
  factor.mean_times_precision = mix(factor.mean_times_precision, w_mean_times_precision);
  factor.precision = mix(factor.precision, w_precision);
  site.mean_times_precision = mix(site.mean_times_precision, phi_mean_times_precision);
  site.precision = mix(site.precision, phi_precision);
  variance = 1.0 / (cavity_precision + factor.precision);
  mean = (cavity_mean / cavity_variance + factor.mean_times_precision) * variance;
  q.variance = 1.0 / (phi_cavity_precision + site.precision);
  q.mean = (phi_cavity.mean / phi_cavity.variance + site.mean_times_precision) * q.variance;
  return true;
}

void refine_laplace_prior(Layer& first, std::vector<PriorFactor>& first_factors,
                          LaplacePrior& prior, double damping, PriorRefinement& result) {
  const size_t row = first.row_length();
  if (first_factors.size() != first.mean.size() ||
      prior.sites.size() != static_cast<size_t>(first.outputs) * first.inputs) {
    throw std::invalid_argument("refine_laplace_prior: the sites do not match layer 0");
  }
  if (!(damping > 0.0 && damping <= 1.0)) {
    throw std::invalid_argument("refine_laplace_prior: damping must be in (0, 1]");
  }
  for (size_t unit = 0; unit < first.outputs; ++unit) {
    for (size_t input = 0; input < first.inputs; ++input) {
      const size_t i = unit * row + input;
      ++result.attempted;
      if (!refine_laplace_factor(first.mean[i], first.variance[i], prior.q, first_factors[i],
                                 prior.sites[unit * first.inputs + input], damping)) {
        ++result.skipped;
      }
    }
  }
}

}  // namespace pbp::trainer
