// SPDX-License-Identifier: Apache-2.0
// The moment equations of the batch EP comparator (batch_ep.hpp), each checked in
// tests/host/batch_ep against Monte Carlo or brute-force integration.
#include <numbers>
#include <stdexcept>

#include "pbp/math.hpp"
#include "pbp/trainer/batch_ep.hpp"

namespace pbp::trainer::batch_ep {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kLog2Pi = 1.8378770664093454836;
constexpr double kSpan = 8.0;           // quadrature grids cover the cavity's +- 8 sd
constexpr size_t kHiddenPoints = 161;   // per activation: a sharp likelihood needs a fine grid
constexpr size_t kNoisePoints = 81;     // theta and phi: smooth integrands
constexpr size_t kPriorPoints = 201;    // the truncated output-weight prior (a kink at 0)
constexpr size_t kOwenIntervals = 128;  // Simpson on [b, 1] for Var g: error ~1e-10 relative

double log_normal(double x, double mean, double variance) {
  const double d = x - mean;
  return -0.5 * (kLog2Pi + math::log(variance) + d * d / variance);
}

}  // namespace

double activation(double h, uint32_t hidden) {
  return 2.0 / math::sqrt(static_cast<double>(hidden)) * (math::normal_cdf(h) - 0.5);
}

Moments activation_moments(double m, double v, uint32_t hidden) {
  const double a = m / math::sqrt(1.0 + v);
  const double b = 1.0 / math::sqrt(1.0 + 2.0 * v);
  const double scale = 2.0 / math::sqrt(static_cast<double>(hidden));
  Moments result;
  result.mean = scale * (math::normal_cdf(a) - 0.5);
  // Var Phi(h) = Phi(a) Phi(-a) - 2 T(a, b) = 2 [T(a, 1) - T(a, b)]: one integral, no cancellation.
  const double step = (1.0 - b) / static_cast<double>(kOwenIntervals);
  double sum = 0.0;
  for (size_t i = 0; i <= kOwenIntervals; ++i) {
    const double t = b + step * static_cast<double>(i);
    const double simpson = (i == 0 || i == kOwenIntervals) ? 1.0 : (i % 2 ? 4.0 : 2.0);
    sum += simpson * math::exp(-0.5 * a * a * (1.0 + t * t)) / (1.0 + t * t);
  }
  const double variance_phi = sum * step / 3.0 / kPi;
  result.variance = scale * scale * variance_phi;
  return result;
}

LatentMoments latent_moments(const OutputCavity& cavity) {
  const size_t n = cavity.mean.size();
  LatentMoments result;
  result.covariance_v_f.assign(n, 0.0);
  double quadratic = 0.0;
  for (size_t a = 0; a < n; ++a) {
    double row = 0.0;
    for (size_t b = 0; b < n; ++b) row += cavity.covariance[a * n + b] * cavity.g_mean[b];
    result.covariance_v_f[a] = row;
    quadratic += cavity.g_mean[a] * row;
    result.mean += cavity.mean[a] * cavity.g_mean[a];
    const double second = cavity.covariance[a * n + a] + cavity.mean[a] * cavity.mean[a];
    result.variance += cavity.g_variance[a] * second;
  }
  result.variance += quadratic;
  return result;
}

QuadratureMoments hidden_tilted(const OutputCavity& cavity, const LatentMoments& latent, size_t k,
                                double m, double v, double y, double noise_variance, double eta) {
  const size_t n = cavity.mean.size();
  const uint32_t hidden = static_cast<uint32_t>(n - 1);
  const double sigma_kk = cavity.covariance[k * n + k];
  const double mu_k = cavity.mean[k];
  // Eq. 46 with [m_g]_k = g(h), [V_g]_k = 0: only the k-th terms change.
  const double base_variance =
      latent.variance - cavity.g_variance[k] * (sigma_kk + mu_k * mu_k) + noise_variance / eta;
  const double sd = math::sqrt(v);
  return quadrature_moments(m - kSpan * sd, m + kSpan * sd, kHiddenPoints, [&](double h) {
    const double shift = activation(h, hidden) - cavity.g_mean[k];
    const double mean_f = latent.mean + mu_k * shift;
    double variance_f =
        base_variance + 2.0 * shift * latent.covariance_v_f[k] + shift * shift * sigma_kk;
    if (!(variance_f > 0.0)) variance_f = 1e-300;  // rounding only: every term is a variance
    return log_normal(y, mean_f, variance_f) + log_normal(h, m, v);
  });
}

NoiseTilted noise_tilted(double latent_mean, double latent_variance, double y, double m, double v,
                         double eta) {
  const double sd = math::sqrt(v);
  const double lower = m - kSpan * sd, upper = m + kSpan * sd;
  auto log_density = [&](double theta) {
    const double noise = math::exp(theta);
    const double log_z = 0.5 * (1.0 - eta) * (kLog2Pi + theta) - 0.5 * math::log(eta);
    return log_z + log_normal(y, latent_mean, latent_variance + noise / eta) +
           log_normal(theta, m, v);
  };
  NoiseTilted result;
  result.theta = quadrature_moments(lower, upper, kNoisePoints, log_density);
  // E and Var of the precision 1/V_y under the same tilted density (same nodes).
  const double step = (upper - lower) / static_cast<double>(kNoisePoints - 1);
  double mass = 0.0, first = 0.0, second = 0.0;
  const double top = result.theta.log_mass + math::log(3.0 / step);  // rescale: weights <= ~1
  for (size_t i = 0; i < kNoisePoints; ++i) {
    const double theta = lower + step * static_cast<double>(i);
    const double simpson = (i == 0 || i + 1 == kNoisePoints) ? 1.0 : (i % 2 ? 4.0 : 2.0);
    const double weight = simpson * math::exp(log_density(theta) - top);
    const double precision = 1.0 / (latent_variance + math::exp(theta) / eta);
    mass += weight;
    first += weight * precision;
    second += weight * precision * precision;
  }
  result.precision_mean = first / mass;
  const double var = second / mass - result.precision_mean * result.precision_mean;
  result.precision_variance = var > 0.0 ? var : 0.0;
  return result;
}

QuadratureMoments output_prior_tilted(double m, double v, double eta) {
  // Half Student-t, nu = 4, scale 1: 2 Gamma(5/2) / (Gamma(2) sqrt(4 pi)) (1 + v^2/4)^(-5/2).
  constexpr double kLogNormaliser = -0.4054651081081644;  // log(2 * 0.375) = log(0.75)
  const double sd = math::sqrt(v);
  double lower = m - kSpan * sd, upper = m + kSpan * sd;
  if (lower < 0.0) lower = 0.0;
  if (upper <= 0.0) upper = 30.0 * v / -m;  // mass piles up at 0 with rate |m| / V
  return quadrature_moments(lower, upper, kPriorPoints, [&](double w) {
    return eta * (kLogNormaliser - 2.5 * math::log(1.0 + 0.25 * w * w)) + log_normal(w, m, v);
  });
}

PriorTilted input_prior_tilted(double m_w, double v_w, double m_phi, double v_phi, double eta) {
  const double sd = math::sqrt(v_phi);
  const double lower = m_phi - kSpan * sd, upper = m_phi + kSpan * sd;
  const double step = (upper - lower) / static_cast<double>(kNoisePoints - 1);
  // N(w | 0, e^phi)^eta = (2 pi e^phi)^((1-eta)/2) eta^(-1/2) N(w | 0, e^phi / eta), and
  // integrating w against the cavity: Z(phi) = that factor times N(m_w | 0, V_w + e^phi / eta).
  std::vector<double> logs(kNoisePoints), w_mean(kNoisePoints), w_second(kNoisePoints);
  double largest = -math::infinity<double>();
  for (size_t i = 0; i < kNoisePoints; ++i) {
    const double phi = lower + step * static_cast<double>(i);
    const double prior_variance = math::exp(phi) / eta;
    logs[i] = 0.5 * (1.0 - eta) * (kLog2Pi + phi) - 0.5 * math::log(eta) +
              log_normal(m_w, 0.0, v_w + prior_variance) + log_normal(phi, m_phi, v_phi);
    const double precision = 1.0 / v_w + 1.0 / prior_variance;
    w_mean[i] = m_w / v_w / precision;
    w_second[i] = 1.0 / precision + w_mean[i] * w_mean[i];
    if (logs[i] > largest) largest = logs[i];
  }
  double mass = 0.0, phi1 = 0.0, phi2 = 0.0, w1 = 0.0, w2 = 0.0;
  for (size_t i = 0; i < kNoisePoints; ++i) {
    const double phi = lower + step * static_cast<double>(i);
    const double simpson = (i == 0 || i + 1 == kNoisePoints) ? 1.0 : (i % 2 ? 4.0 : 2.0);
    const double weight = simpson * math::exp(logs[i] - largest);
    mass += weight;
    phi1 += weight * phi;
    phi2 += weight * phi * phi;
    w1 += weight * w_mean[i];
    w2 += weight * w_second[i];
  }
  PriorTilted result;
  result.log_mass = largest + math::log(mass * step / 3.0);
  result.phi_mean = phi1 / mass;
  result.phi_variance = phi2 / mass - result.phi_mean * result.phi_mean;
  result.w_mean = w1 / mass;
  result.w_variance = w2 / mass - result.w_mean * result.w_mean;
  return result;
}

}  // namespace pbp::trainer::batch_ep
