// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/prior.hpp"

#include <optional>
#include <stdexcept>

#include "pbp/trainer/moment_matching.hpp"

namespace pbp::trainer {

PriorGroups shared_prior_groups(const std::vector<Layer>& layers) {
  PriorGroups groups;
  groups.of_weight.resize(layers.size());
  for (size_t l = 0; l < layers.size(); ++l) groups.of_weight[l].assign(layers[l].mean.size(), 0);
  return groups;
}

PriorGroups input_prior_groups(const std::vector<Layer>& layers) {
  PriorGroups groups = shared_prior_groups(layers);
  if (layers.empty()) return groups;
  const Layer& first = layers.front();
  groups.count = first.row_length() + 1;  // the shared group, then one per layer-0 column
  for (size_t i = 0; i < first.mean.size(); ++i) {
    groups.of_weight[0][i] = 1 + static_cast<uint32_t>(i % first.row_length());
  }
  return groups;
}

PriorGroups laplace_prior_groups(const std::vector<Layer>& layers) {
  PriorGroups groups = shared_prior_groups(layers);
  if (layers.empty()) return groups;
  const Layer& first = layers.front();
  for (size_t i = 0; i < first.mean.size(); ++i) {
    if (i % first.row_length() != first.inputs) groups.of_weight[0][i] = kNotGaussianPrior;
  }
  return groups;
}

PriorFactors initial_prior_factors(const std::vector<Layer>& layers, const Gamma& prior,
                                   FactorStart start) {
  PriorFactors factors(layers.size());
  const double precision = (prior.a - 1.0) / prior.b;
  for (size_t l = 0; l < layers.size(); ++l) {
    factors[l].assign(layers[l].mean.size(), PriorFactor{0.0, precision, 0.0, 0.0});
    if (start == FactorStart::zero_mean) continue;
    for (size_t i = 0; i < layers[l].mean.size(); ++i) {
      factors[l][i].mean_times_precision = layers[l].mean[i] * precision;
      if (start == FactorStart::start_site)
        factors[l][i].start_tilt = layers[l].mean[i] * precision;
    }
  }
  return factors;
}

// The reference's bound on a cavity's variance (weights in standardised units). A prior Gamma
// whose variance estimate b/(a-1) would pass it is refused too: a nearly improper cavity (the
// factor holding almost all of q's precision) has a mean far out, and one such weight would move
// the shared Gamma by orders of magnitude (power's RH tail split: b 1.8e4 -> 6.7e11 -> 2.5e169).
constexpr double kImproperVariance = 1e6;

bool refine_prior_factor(double& mean, double& variance, Gamma& prior, PriorFactor& factor,
                         double damping) {
  const double cavity_precision = 1.0 / variance - factor.precision;
  const double cavity_variance = 1.0 / cavity_precision;
  const double cavity_mean = (mean / variance - factor.mean_times_precision) * cavity_variance;
  const Gamma cavity_gamma{prior.a - factor.a, prior.b - factor.b};
  if (!(cavity_variance > 0.0 && cavity_variance < kImproperVariance && cavity_gamma.b > 0.0 &&
        cavity_gamma.a > 1.0)) {
    return false;
  }
  // Z = N(0 | m_cav, v_cav + b/(a-1)): the factor N(w | 0, 1/lambda) integrated against the cavity.
  const GaussianLogZ lz =
      gaussian_log_z(0.0, cavity_mean, cavity_variance + cavity_gamma.variance_estimate());
  const GaussianMoments next =
      gaussian_update(cavity_mean, cavity_variance, lz.d_mean, lz.d_variance);
  const std::optional<Gamma> next_gamma =
      gaussian_gamma_update(cavity_gamma, 0.0, cavity_mean, cavity_variance);
  // A prior Gamma with a <= 1 has no finite b/(a-1): every later cavity would be skipped and the
  // model could not be exported. Such an update is refused like an improper cavity.
  if (!usable_update(next) || !next_gamma || !(next_gamma->a > 1.0) ||
      !(next_gamma->variance_estimate() < kImproperVariance)) {
    return false;
  }

  // The new factor is the ratio of the new posterior and the cavity, times the start's site
  // (a linear tilt, 0 unless FactorStart::start_site), which q keeps: its mean moves by v tilt.
  const double tilt = factor.start_tilt;
  const PriorFactor matched{next.mean / next.variance - cavity_mean / cavity_variance + tilt,
                            1.0 / next.variance - cavity_precision, next_gamma->a - cavity_gamma.a,
                            next_gamma->b - cavity_gamma.b, tilt};
  if (damping == 1.0) {  // the reference's update, bit for bit when there is no start site
    factor = matched;
    mean = tilt == 0.0 ? next.mean : next.mean + next.variance * tilt;
    variance = next.variance;
    prior = *next_gamma;
    return true;
  }
  // Damped: a convex combination of the old and the matched factor, so the posterior's precision
  // and Gamma shape are those of the old and the matched posterior mixed, still proper.
  auto mix = [damping](double old_value, double new_value) {
    return old_value + damping * (new_value - old_value);
  };
  factor = {mix(factor.mean_times_precision, matched.mean_times_precision),
            mix(factor.precision, matched.precision), mix(factor.a, matched.a),
            mix(factor.b, matched.b), tilt};
  variance = 1.0 / (cavity_precision + factor.precision);
  mean = (cavity_mean / cavity_variance + factor.mean_times_precision) * variance;
  prior = Gamma{cavity_gamma.a + factor.a, cavity_gamma.b + factor.b};
  return true;
}

PriorRefinement refine_prior(std::vector<Layer>& layers, std::span<Gamma> priors,
                             const PriorGroups& groups, PriorFactors& factors, double damping) {
  if (priors.size() != groups.count || groups.of_weight.size() != layers.size()) {
    throw std::invalid_argument("refine_prior: the prior groups do not match the layers");
  }
  if (!(damping > 0.0 && damping <= 1.0)) {
    throw std::invalid_argument("refine_prior: damping must be in (0, 1]");
  }
  PriorRefinement result;
  for (size_t l = 0; l < layers.size(); ++l) {
    Layer& layer = layers[l];
    const std::vector<uint32_t>& group = groups.of_weight[l];
    if (group.size() != layer.mean.size()) {
      throw std::invalid_argument("refine_prior: the prior groups do not match the layers");
    }
    for (size_t i = 0; i < layer.mean.size(); ++i) {
      if (group[i] == kNotGaussianPrior) continue;
      if (group[i] >= priors.size()) throw std::invalid_argument("refine_prior: no such group");
      ++result.attempted;
      if (!refine_prior_factor(layer.mean[i], layer.variance[i], priors[group[i]], factors[l][i],
                               damping)) {
        ++result.skipped;
      }
    }
  }
  return result;
}

}  // namespace pbp::trainer
