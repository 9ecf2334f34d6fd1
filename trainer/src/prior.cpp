#include "pbp/trainer/prior.hpp"

#include <optional>

#include "pbp/trainer/moment_matching.hpp"

namespace pbp::trainer {

PriorFactors initial_prior_factors(const std::vector<Layer>& layers, const Gamma& prior,
                                   FactorStart start) {
  PriorFactors factors(layers.size());
  const double precision = (prior.a - 1.0) / prior.b;
  for (size_t l = 0; l < layers.size(); ++l) {
    factors[l].assign(layers[l].mean.size(), PriorFactor{0.0, precision, 0.0, 0.0});
    if (start == FactorStart::zero_mean) continue;
    for (size_t i = 0; i < layers[l].mean.size(); ++i) {
      factors[l][i].mean_times_precision = layers[l].mean[i] * precision;
    }
  }
  return factors;
}

bool refine_prior_factor(double& mean, double& variance, Gamma& prior, PriorFactor& factor) {
  const double cavity_precision = 1.0 / variance - factor.precision;
  const double cavity_variance = 1.0 / cavity_precision;
  const double cavity_mean = (mean / variance - factor.mean_times_precision) * cavity_variance;
  const Gamma cavity_gamma{prior.a - factor.a, prior.b - factor.b};
  if (!(cavity_variance > 0.0 && cavity_variance < 1e6 && cavity_gamma.b > 0.0 &&
        cavity_gamma.a > 1.0)) {
    return false;
  }
  // Z = N(0 | m_cav, v_cav + b/(a-1)): the factor N(w | 0, 1/lambda) integrated against the cavity.
  const GaussianLogZ lz =
      gaussian_log_z(0.0, cavity_mean, cavity_variance + cavity_gamma.variance_estimate());
  const EvidenceTriple z =
      gaussian_evidence_triple(0.0, cavity_mean, cavity_variance, cavity_gamma);
  const GaussianMoments next =
      gaussian_update(cavity_mean, cavity_variance, lz.d_mean, lz.d_variance);
  const std::optional<Gamma> next_gamma = gamma_update(cavity_gamma, z.log_z, z.log_z1, z.log_z2);
  // A prior Gamma with a <= 1 has no finite b/(a-1): every later cavity would be skipped and the
  // model could not be exported. Such an update is refused like an improper cavity.
  if (!usable_update(next) || !next_gamma || !(next_gamma->a > 1.0)) return false;

  // The new factor is the ratio of the new posterior and the cavity.
  factor.precision = 1.0 / next.variance - cavity_precision;
  factor.mean_times_precision = next.mean / next.variance - cavity_mean / cavity_variance;
  factor.a = next_gamma->a - cavity_gamma.a;
  factor.b = next_gamma->b - cavity_gamma.b;
  mean = next.mean;
  variance = next.variance;
  prior = *next_gamma;
  return true;
}

PriorRefinement refine_prior(std::vector<Layer>& layers, Gamma& prior, PriorFactors& factors) {
  PriorRefinement result;
  for (size_t l = 0; l < layers.size(); ++l) {
    Layer& layer = layers[l];
    for (size_t i = 0; i < layer.mean.size(); ++i) {
      ++result.attempted;
      if (!refine_prior_factor(layer.mean[i], layer.variance[i], prior, factors[l][i])) {
        ++result.skipped;
      }
    }
  }
  return result;
}

}  // namespace pbp::trainer
