// SPDX-License-Identifier: Apache-2.0
// Tilted moments of the Laplace prior term (laplace_prior.hpp): closed form in w, quadrature in
// phi.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "pbp/math/normal.hpp"
#include "pbp/trainer/laplace_prior.hpp"

namespace pbp::trainer {
namespace {

constexpr double kLogSqrt2Pi = 0.91893853320467274178;  // log sqrt(2 pi)

// A Gaussian N(mu, v) truncated to w > 0, with alpha = mu / sqrt v: its mean is
// sqrt(v) (alpha + lambda(alpha)) and its variance v (1 - lambda(alpha) (alpha + lambda(alpha))),
// lambda = phi / Phi. Both factors returned: shift = alpha + lambda, shrink = 1 - lambda * shift.
struct Truncated {
  double shift;
  double shrink;
};

// Deep in the lower tail (alpha = -x, x large) alpha + lambda ~ 1/x and 1 - lambda (alpha + lambda)
// ~ 1/x^2 are differences of nearly equal numbers. With the Mills ratio's continued fraction
// 1/lambda = 1/(x + K1), K_n = n / (x + K_{n+1}): alpha + lambda = K1, and
// 1 - lambda K1 = 1 - (x + K1) / (x + K2) = (K2 - K1) / (x + K2), which cancels by at most 2.
// At x >= 8, 24 terms evaluated backward agree with 40-digit arithmetic to 1 ulp (20 already do).
constexpr double kContinuedFractionFrom = 8.0;
Truncated truncated_deep_tail(double x) {
  double k_next = 0.0;  // K_{n+1}
  for (int n = 24; n >= 2; --n) k_next = n / (x + k_next);
  const double k2 = k_next;
  const double k1 = 1.0 / (x + k2);
  return {k1, (k2 - k1) / (x + k2)};
}

// One half line of the tilted: for w > 0, N(w | m, v) exp(-w / b) = exp(-m/b + v/(2b^2))
// N(w | m - v/b, v), a Gaussian truncated to w > 0 with alpha = u - r; w < 0 is the same for -w
// with u -> -u. log_weight is the log of its mass (without 1/(2b)), written for alpha < 0 as
// -u^2/2 - log sqrt(2 pi) - log lambda(alpha), since Phi(alpha) = phi(alpha) / lambda(alpha) makes
// the alpha^2/2 terms cancel exactly; for alpha >= 0 as r (r/2 - u) + log Phi(alpha), without u^2.
struct Half {
  double log_weight;
  double alpha;
  double lambda;  // phi(alpha) / Phi(alpha); unused below -kContinuedFractionFrom
};

Half half_line(double u, double r) {
  const double alpha = u - r;
  if (alpha < 0.0) {
    const double lambda = math::normal_pdf_over_cdf(alpha);
    return {-0.5 * u * u - kLogSqrt2Pi - std::log(lambda), alpha, lambda};
  }
  return {r * (0.5 * r - u) + math::log_normal_cdf(alpha), alpha, math::normal_pdf_over_cdf(alpha)};
}

Truncated truncated_positive(const Half& h) {
  if (h.alpha < -kContinuedFractionFrom) return truncated_deep_tail(-h.alpha);
  const double shift = h.alpha + h.lambda;
  return {shift, 1.0 - h.lambda * shift};
}

double log_sum_exp(double a, double b) {
  const double top = std::max(a, b);
  return top + std::log1p(std::exp(std::min(a, b) - top));
}

}  // namespace

TiltedMoments laplace_tilted(double cavity_mean, double cavity_variance, double scale) {
  const double s = std::sqrt(cavity_variance);
  const double u = cavity_mean / s;
  const double r = s / scale;
  const Half plus = half_line(u, r);
  const Half minus = half_line(-u, r);  // of -w on w > 0
  TiltedMoments t;
  const double log_sum = log_sum_exp(plus.log_weight, minus.log_weight);
  t.log_z = log_sum - std::log(2.0 * scale);
  const double p_plus = std::exp(plus.log_weight - log_sum);
  const double p_minus = std::exp(minus.log_weight - log_sum);
  // A half with no weight in double adds nothing (its p times any moment underflows).
  const Truncated tp = p_plus > 0.0 ? truncated_positive(plus) : Truncated{0.0, 0.0};
  const Truncated tm = p_minus > 0.0 ? truncated_positive(minus) : Truncated{0.0, 0.0};
  const double mean_plus = s * tp.shift;
  const double mean_minus = -s * tm.shift;
  t.mean = p_plus * mean_plus + p_minus * mean_minus;
  // The mixture's variance as a sum of non-negative terms: no cancellation.
  const double gap = mean_plus - mean_minus;
  t.variance =
      cavity_variance * (p_plus * tp.shrink + p_minus * tm.shrink) + p_plus * p_minus * gap * gap;
  return t;
}

namespace {

constexpr int kHalfNodes = 20;        // nodes at t = k / 2, |k| <= 20: +-10 sd
constexpr double kNodeSpacing = 0.5;  // in sd of the grid's Gaussian; 0.75 changed trainings
constexpr double kEdgeMass = 1e-12;   // more than this on an end node: the grid missed mass
constexpr int kPasses = 3;

struct PassResult {
  double log_z;
  double w_mean, w_second;  // E[w], E[Var(w | phi)] + Var(E[w | phi]) accumulated below
  double w_variance;
  double phi_mean, phi_variance;
  double edge;  // the largest normalised weight on the two end nodes
};

// One trapezoidal pass over phi = centre + width t_k: the integrand N(phi | cavity) Z(phi) with
// the node weight h * width (a uniform grid in phi), in log space.
PassResult quadrature_pass(double m, double v, const LaplaceScale& cavity, double centre,
                           double width) {
  constexpr int kNodes = 2 * kHalfNodes + 1;
  double log_weight[kNodes];
  TiltedMoments w[kNodes];
  double phi[kNodes];
  double top = -INFINITY;
  for (int k = 0; k < kNodes; ++k) {
    phi[k] = centre + width * kNodeSpacing * (k - kHalfNodes);
    const double scale = std::exp(0.5 * phi[k]) * std::numbers::sqrt2 * 0.5;  // b = sqrt(e^phi/2)
    w[k] = laplace_tilted(m, v, scale);
    const double d = phi[k] - cavity.mean;
    log_weight[k] = w[k].log_z - 0.5 * d * d / cavity.variance;
    if (std::isnan(log_weight[k])) log_weight[k] = -INFINITY;
    top = std::max(top, log_weight[k]);
  }
  PassResult r{};
  double total = 0.0;
  for (int k = 0; k < kNodes; ++k) {
    log_weight[k] = std::exp(log_weight[k] - top);  // now the unnormalised weight
    total += log_weight[k];
  }
  for (int k = 0; k < kNodes; ++k) {
    const double p = log_weight[k] / total;
    r.w_mean += p * w[k].mean;
    r.phi_mean += p * phi[k];
  }
  for (int k = 0; k < kNodes; ++k) {
    const double p = log_weight[k] / total;
    const double dw = w[k].mean - r.w_mean;
    const double dphi = phi[k] - r.phi_mean;
    r.w_variance += p * (w[k].variance + dw * dw);
    r.phi_variance += p * dphi * dphi;
  }
  r.edge = std::max(log_weight[0], log_weight[kNodes - 1]) / total;
  // log of h * width * sum_k N(phi_k | cavity) Z(phi_k)
  r.log_z =
      top + std::log(total * kNodeSpacing * width) - kLogSqrt2Pi - 0.5 * std::log(cavity.variance);
  return r;
}

}  // namespace

ScaleTiltedMoments laplace_scale_tilted(double cavity_mean, double cavity_variance,
                                        const LaplaceScale& cavity_phi) {
  ScaleTiltedMoments result;
  double centre = cavity_phi.mean;
  double width = std::sqrt(cavity_phi.variance);
  PassResult pass{};
  for (int p = 0; p < kPasses; ++p) {
    pass = quadrature_pass(cavity_mean, cavity_variance, cavity_phi, centre, width);
    if (!(pass.phi_variance > 0.0) || !std::isfinite(pass.log_z)) return result;
    // Never narrower than a 64th of the last grid: a tilted that fell between two nodes is
    // narrower than the spacing, and the next pass resolves it.
    const double next_width = std::max(std::sqrt(pass.phi_variance), width / 64.0);
    const bool settled = std::fabs(pass.phi_mean - centre) < 0.01 * width &&
                         std::fabs(next_width - width) < 0.01 * width;
    // This grid already sat on the tilted: usually so from the first pass, the cavity, since one
    // weight's term moves q(phi) little once a layer of weights has informed it.
    if (settled) break;
    centre = pass.phi_mean;
    width = next_width;
  }
  result.w = {pass.log_z, pass.w_mean, pass.w_variance};
  result.phi = {pass.phi_mean, pass.phi_variance};
  result.ok = pass.edge <= kEdgeMass && std::isfinite(pass.w_mean) && pass.w_variance > 0.0 &&
              std::isfinite(pass.w_variance) && std::isfinite(pass.phi_mean) &&
              std::isfinite(pass.phi_variance);
  return result;
}

}  // namespace pbp::trainer
