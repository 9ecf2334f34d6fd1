// SPDX-License-Identifier: Apache-2.0
// Every moment equation of the batch EP comparator against an independent computation: fine
// trapezoid integration with the standard library's erfc/exp (tolerances: the Simpson rules'
// error on these smooth integrands, far below 1e-6), or Monte Carlo (tolerances: 5 standard
// errors of the estimate, computed from the same samples).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "pbp/trainer/batch_ep.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer::batch_ep {
namespace {

double phi_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}
double log_normal(double x, double m, double v, double log_2pi_v) {
  return -0.5 * (log_2pi_v + (x - m) * (x - m) / v);
}
double log_normal(double x, double m, double v) {
  return log_normal(x, m, v, std::log(2.0 * M_PI * v));
}

// Moments of exp(log_density) on [lower, upper] by the trapezoid rule on `points` nodes. Each
// node's log density, then its weight, is computed once and kept for the later passes (the same
// values: one log density and one exponential per node instead of three and two).
template <class F>
QuadratureMoments reference(double lower, double upper, size_t points, const F& log_density) {
  const double step = (upper - lower) / static_cast<double>(points - 1);
  std::vector<double> node(points);  // the log density, then the weight
  double top = -1e300;
  for (size_t i = 0; i < points; ++i) {
    node[i] = log_density(lower + step * i);
    top = std::max(top, node[i]);
  }
  double mass = 0.0, first = 0.0;
  for (size_t i = 0; i < points; ++i) {
    node[i] = (i == 0 || i + 1 == points ? 0.5 : 1.0) * std::exp(node[i] - top);
    mass += node[i];
    first += node[i] * (lower + step * i);
  }
  QuadratureMoments r;
  r.mean = first / mass;
  double second = 0.0;
  for (size_t i = 0; i < points; ++i) {
    second += node[i] * (lower + step * i - r.mean) * (lower + step * i - r.mean);
  }
  r.variance = second / mass;
  r.log_mass = top + std::log(mass * step);
  return r;
}

TEST(BatchEpMoments, ActivationMomentsMatchIntegration) {
  const uint32_t hidden = 10;
  const double scale = 2.0 / std::sqrt(10.0);
  for (const auto& [m, v] : std::vector<std::pair<double, double>>{{0.0, 1.0},
                                                                   {0.7, 1e-6},
                                                                   {-1.3, 0.2},
                                                                   {2.5, 4.0},
                                                                   {5.0, 0.01},
                                                                   {-0.4, 50.0},
                                                                   {1.0, 0.0}}) {
    const Moments g = activation_moments(m, v, hidden);
    if (v == 0.0) {  // a point mass: g(m) exactly
      EXPECT_NEAR(g.mean, scale * (phi_cdf(m) - 0.5), 1e-15);
      EXPECT_NEAR(g.variance, 0.0, 1e-16);
      continue;
    }
    const double sd = std::sqrt(v);
    auto mean_integrand = [&](double h) { return scale * (phi_cdf(h) - 0.5); };
    double mean = 0.0, variance = 0.0, mass = 0.0;
    const size_t n = 40001;
    const double step = 24.0 * sd / (n - 1);
    for (size_t i = 0; i < n; ++i) {
      const double h = m - 12.0 * sd + step * i;
      const double w = std::exp(-0.5 * (h - m) * (h - m) / v);
      mass += w;
      mean += w * mean_integrand(h);
    }
    mean /= mass;
    for (size_t i = 0; i < n; ++i) {
      const double h = m - 12.0 * sd + step * i;
      const double d = mean_integrand(h) - mean;
      variance += std::exp(-0.5 * (h - m) * (h - m) / v) * d * d;
    }
    variance /= mass;
    EXPECT_NEAR(g.mean, mean, 1e-12) << m << " " << v;
    EXPECT_NEAR(g.variance, variance, 1e-9 * variance + 1e-17)
        << m << " " << v << " rel " << (g.variance - variance) / variance;
  }
  EXPECT_NEAR(activation(0.3, 4), (phi_cdf(0.3) - 0.5), 1e-15);
}

// A random cavity for K = 3 hidden units (the bias's last).
OutputCavity some_cavity() {
  OutputCavity c;
  c.mean = {0.8, 1.4, 0.3, -0.2};
  const double l[16] = {0.5, 0, 0, 0, 0.1, 0.4, 0, 0, -0.2, 0.05, 0.3, 0, 0.1, -0.1, 0.2, 0.6};
  c.covariance.assign(16, 0.0);
  for (size_t a = 0; a < 4; ++a)
    for (size_t b = 0; b < 4; ++b)
      for (size_t p = 0; p < 4; ++p) c.covariance[a * 4 + b] += l[a * 4 + p] * l[b * 4 + p];
  c.g_mean = {0, 0, 0, 1};
  c.g_variance = {0, 0, 0, 0};
  return c;
}

TEST(BatchEpMoments, LatentMomentsMatchMonteCarlo) {
  OutputCavity c = some_cavity();
  const double hm[3] = {0.4, -1.0, 2.0}, hv[3] = {0.5, 2.0, 0.1};
  for (size_t k = 0; k < 3; ++k) {
    const Moments g = activation_moments(hm[k], hv[k], 3);
    c.g_mean[k] = g.mean;
    c.g_variance[k] = g.variance;
  }
  const LatentMoments f = latent_moments(c);
  // Cholesky factor of the covariance, for sampling v.
  std::vector<double> chol(16, 0.0);
  for (size_t j = 0; j < 4; ++j) {
    double d = c.covariance[j * 4 + j];
    for (size_t p = 0; p < j; ++p) d -= chol[j * 4 + p] * chol[j * 4 + p];
    chol[j * 4 + j] = std::sqrt(d);
    for (size_t i = j + 1; i < 4; ++i) {
      double s = c.covariance[i * 4 + j];
      for (size_t p = 0; p < j; ++p) s -= chol[i * 4 + p] * chol[j * 4 + p];
      chol[i * 4 + j] = s / chol[j * 4 + j];
    }
  }
  Random random(7);
  const size_t n = 400000;
  std::vector<double> samples(n), v0(n);
  for (size_t s = 0; s < n; ++s) {
    double z[4], v[4], g[4];
    for (double& e : z) e = random.normal();
    for (size_t a = 0; a < 4; ++a) {
      v[a] = c.mean[a];
      for (size_t p = 0; p <= a; ++p) v[a] += chol[a * 4 + p] * z[p];
    }
    for (size_t k = 0; k < 3; ++k) g[k] = activation(hm[k] + std::sqrt(hv[k]) * random.normal(), 3);
    g[3] = 1.0;
    samples[s] = v[0] * g[0] + v[1] * g[1] + v[2] * g[2] + v[3];
    v0[s] = v[0];
  }
  double mean = 0.0, v0_mean = 0.0;
  for (size_t s = 0; s < n; ++s) mean += samples[s] / n, v0_mean += v0[s] / n;
  double variance = 0.0, fourth = 0.0, cov = 0.0;
  for (size_t s = 0; s < n; ++s) {
    const double d = samples[s] - mean;
    variance += d * d / n;
    fourth += d * d * d * d / n;
    cov += d * (v0[s] - v0_mean) / n;
  }
  EXPECT_NEAR(f.mean, mean, 5.0 * std::sqrt(variance / n));
  EXPECT_NEAR(f.variance, variance, 5.0 * std::sqrt((fourth - variance * variance) / n));
  EXPECT_NEAR(f.covariance_v_f[0], cov, 5.0 * std::sqrt(variance * c.covariance[0] / n));
}

// With one unit and the output weights known (zero cavity covariance), f = v_1 g(h) + v_0 is
// exact, so eq. 54's tilted moments are the exact ones: check them by importance sampling.
TEST(BatchEpMoments, HiddenTiltedIsExactWithKnownOutputWeights) {
  OutputCavity c;
  c.mean = {2.0, 0.3};
  c.covariance = {0, 0, 0, 0};
  const double m = 0.2, v = 1.5, y = 1.1, noise = 0.05, eta = 0.95;
  const Moments g = activation_moments(m, v, 1);
  c.g_mean = {g.mean, 1.0};
  c.g_variance = {g.variance, 0.0};
  const LatentMoments f = latent_moments(c);
  const QuadratureMoments t = hidden_tilted(c, f, 0, m, v, y, noise, eta);
  Random random(11);
  const size_t n = 1000000;
  double mass = 0, first = 0, second = 0, mass2 = 0;
  for (size_t s = 0; s < n; ++s) {
    const double h = m + std::sqrt(v) * random.normal();
    const double w = std::exp(eta * log_normal(y, 2.0 * activation(h, 1) + 0.3, noise));
    mass += w;
    mass2 += w * w;
    first += w * h;
    second += w * h * h;
  }
  const double mean = first / mass, variance = second / mass - mean * mean;
  const double effective = mass * mass / mass2;  // effective sample size of the weights
  EXPECT_NEAR(t.mean, mean, 5.0 * std::sqrt(variance / effective));
  EXPECT_NEAR(t.variance, variance, 5.0 * variance * std::sqrt(2.0 / effective));
  EXPECT_GT(effective, 1000.0);
  // And the general case (K = 3, uncertain v) against fine integration of the same density.
  OutputCavity c3 = some_cavity();
  for (size_t k = 0; k < 3; ++k) {
    const Moments gk = activation_moments(0.3 * k, 0.5 + k, 3);
    c3.g_mean[k] = gk.mean;
    c3.g_variance[k] = gk.variance;
  }
  const LatentMoments f3 = latent_moments(c3);
  const QuadratureMoments t3 = hidden_tilted(c3, f3, 1, -0.5, 2.0, 2.2, 0.02, eta);
  const QuadratureMoments r3 =
      reference(-0.5 - 12 * std::sqrt(2.0), -0.5 + 12 * std::sqrt(2.0), 200001, [&](double h) {
        const double shift = activation(h, 3) - c3.g_mean[1];
        const double mf = f3.mean + c3.mean[1] * shift;
        const double vf = f3.variance -
                          c3.g_variance[1] * (c3.covariance[5] + c3.mean[1] * c3.mean[1]) +
                          2 * shift * f3.covariance_v_f[1] + shift * shift * c3.covariance[5];
        return log_normal(2.2, mf, vf + 0.02 / eta) + log_normal(h, -0.5, 2.0);
      });
  EXPECT_NEAR(t3.mean, r3.mean, 1e-6 * std::sqrt(r3.variance));
  EXPECT_NEAR(t3.variance, r3.variance, 1e-6 * r3.variance);
  EXPECT_NEAR(t3.log_mass, r3.log_mass, 1e-6);
}

// A cavity of zero or non-finite variance gives no moments (NaN), so the site is left alone,
// rather than an exception that would end the whole training.
TEST(BatchEpMoments, DegenerateCavitiesGiveNoMoments) {
  const auto unit = [](double x) { return -0.5 * x * x; };
  EXPECT_TRUE(std::isnan(quadrature_moments(1.0, 1.0, 5, unit).variance));
  EXPECT_TRUE(std::isnan(quadrature_moments(0.0, INFINITY, 5, unit).variance));
  EXPECT_TRUE(std::isnan(quadrature_moments(NAN, 1.0, 5, unit).variance));
  EXPECT_THROW(quadrature_moments(0.0, 1.0, 4, unit), std::invalid_argument);
  EXPECT_FALSE(output_prior_tilted(1.0, 0.0, 0.8).variance > 0.0);
  EXPECT_FALSE(noise_tilted(0.0, 1.0, 0.5, -2.0, INFINITY, 0.95).theta.variance > 0.0);
  OutputCavity c = some_cavity();
  const LatentMoments f = latent_moments(c);
  EXPECT_FALSE(hidden_tilted(c, f, 0, 0.3, 0.0, 1.0, 0.1, 0.95).variance > 0.0);
}

TEST(BatchEpMoments, NoiseTiltedMatchesIntegration) {
  const double mf = 0.4, vf = 0.3, y = 1.7, m = -2.0, v = 1.5, eta = 0.95;
  const NoiseTilted t = noise_tilted(mf, vf, y, m, v, eta);
  auto log_density = [&](double theta) {
    return 0.5 * (1 - eta) * (std::log(2 * M_PI) + theta) - 0.5 * std::log(eta) +
           log_normal(y, mf, vf + std::exp(theta) / eta) + log_normal(theta, m, v);
  };
  const double sd = std::sqrt(v);
  const QuadratureMoments r = reference(m - 12 * sd, m + 12 * sd, 100001, log_density);
  EXPECT_NEAR(t.theta.mean, r.mean, 1e-7);
  EXPECT_NEAR(t.theta.variance, r.variance, 1e-7 * r.variance);
  EXPECT_NEAR(t.theta.log_mass, r.log_mass, 1e-7);
  // E and Var of 1 / V_y under the same density.
  double mass = 0, first = 0, second = 0;
  for (size_t i = 0; i < 100001; ++i) {
    const double theta = m - 12 * sd + 24 * sd * i / 100000.0;
    const double w = std::exp(log_density(theta) - r.log_mass);
    const double p = 1.0 / (vf + std::exp(theta) / eta);
    mass += w, first += w * p, second += w * p * p;
  }
  EXPECT_NEAR(t.precision_mean, first / mass, 1e-7 * first / mass);
  const double var = second / mass - (first / mass) * (first / mass);
  EXPECT_NEAR(t.precision_variance, var, 1e-6 * var);
}

TEST(BatchEpMoments, OutputPriorTiltedMatchesIntegration) {
  const double eta = 0.8;
  for (const auto& [m, v] :
       std::vector<std::pair<double, double>>{{1.5, 0.3}, {0.2, 1.0}, {-0.5, 0.4}, {4.0, 9.0}}) {
    const QuadratureMoments t = output_prior_tilted(m, v, eta);
    const double upper = std::max(m, 0.0) + 14 * std::sqrt(v);
    const double log_2pi_v = std::log(2.0 * M_PI * v);
    const QuadratureMoments r = reference(0.0, upper, 400001, [&](double w) {
      return eta * (std::log(2.0 * 0.375) - 2.5 * std::log1p(0.25 * w * w)) +
             log_normal(w, m, v, log_2pi_v);
    });
    EXPECT_NEAR(t.mean, r.mean, 1e-6 * std::sqrt(r.variance)) << m << " " << v;
    EXPECT_NEAR(t.variance, r.variance, 1e-5 * r.variance) << m << " " << v;
  }
  // The half Student-t_4(0, 1) density integrates to one (its normaliser 2 * 3/8).
  const QuadratureMoments unit = reference(0.0, 4000.0, 4000001, [](double w) {
    return std::log(0.75) - 2.5 * std::log1p(0.25 * w * w);
  });
  EXPECT_NEAR(std::exp(unit.log_mass), 1.0, 1e-6);
}

TEST(BatchEpMoments, InputPriorTiltedMatchesTwoDimensionalIntegration) {
  const double eta = 0.8;
  for (const auto& [mw, vw, mp, vp] : std::vector<std::array<double, 4>>{
           {0.8, 0.3, -2.0, 1.5}, {0.05, 0.5, -9.2, 6.25}, {-2.0, 0.1, 0.0, 0.5}}) {
    const PriorTilted t = input_prior_tilted(mw, vw, mp, vp, eta);
    // w by the trapezoid rule on a grid around each phi's conditional (sharp when exp(phi) is
    // small), phi on a fixed grid: a numerical double integral, independent of the closed form.
    const size_t n = 2001;
    const double sp = std::sqrt(vp), phi_step = 20 * sp / (n - 1);
    double mass = 0, w1 = 0, w2 = 0, p1 = 0, p2 = 0;
    // What does not change along a row (or at all) is taken once: the same values, the same bits,
    // one exponential per node instead of five transcendentals (14 s under qemu-aarch64).
    const double log_2pi_vw = std::log(2.0 * M_PI * vw);
    for (size_t a = 0; a < n; ++a) {
      const double phi = mp - 10 * sp + phi_step * a;
      const double exp_phi = std::exp(phi);
      const double log_2pi_exp_phi = std::log(2.0 * M_PI * exp_phi);
      const double log_prior_phi = log_normal(phi, mp, vp);
      const double cond_precision = 1 / vw + eta / exp_phi;
      const double centre = mw / vw / cond_precision, half = 12 / std::sqrt(cond_precision);
      const double w_step = 2 * half / (n - 1);
      for (size_t b = 0; b < n; ++b) {
        const double w = centre - half + w_step * b;
        const double d = (b == 0 || b + 1 == n ? 0.5 : 1.0) * w_step * phi_step *
                         std::exp(log_normal(w, mw, vw, log_2pi_vw) + log_prior_phi +
                                  eta * log_normal(w, 0.0, exp_phi, log_2pi_exp_phi));
        mass += d, w1 += d * w, w2 += d * w * w, p1 += d * phi, p2 += d * phi * phi;
      }
    }
    const double wm = w1 / mass, wv = w2 / mass - wm * wm, pm = p1 / mass, pv = p2 / mass - pm * pm;
    EXPECT_NEAR(t.w_mean, wm, 1e-4 * std::sqrt(wv)) << mw;
    EXPECT_NEAR(t.w_variance, wv, 1e-3 * wv) << mw;
    EXPECT_NEAR(t.phi_mean, pm, 1e-4 * std::sqrt(pv)) << mw;
    EXPECT_NEAR(t.phi_variance, pv, 1e-3 * pv) << mw;
    EXPECT_NEAR(t.log_mass, std::log(mass), 1e-3) << mw;
  }
}

}  // namespace
}  // namespace pbp::trainer::batch_ep
