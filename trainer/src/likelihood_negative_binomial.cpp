// SPDX-License-Identifier: Apache-2.0
#include <cmath>

#include "likelihoods/likelihoods.hpp"
#include "pbp/trainer/special_functions.hpp"

namespace pbp::trainer {

namespace {

// Small counts, or y v < 1 (where log Gamma differences would cancel), sum their terms exactly.
constexpr double kAlwaysSumUpTo = 64.0;
constexpr double kSumUpTo = 1e6;
// Below this a = v e^m, (log1p(a) - a/(1+a)) / a^2 comes from its series (the direct form cancels).
constexpr double kSeriesBelow = 0.05;

double softplus(double u) {
  return u > 0.0 ? u + std::log1p(std::exp(-u)) : std::log1p(std::exp(u));
}

double logistic(double u) {
  return u > 0.0 ? 1.0 / (1.0 + std::exp(-u)) : std::exp(u) / (1.0 + std::exp(u));
}

// (log1p(a) - a/(1+a)) / a^2 = sum_{k>=2} (-1)^k (k-1)/k a^(k-2); 14 terms reach 1e-17 at a = 0.05.
double remainder_over_a2(double a) {
  double sum = 0.0;
  for (int k = 15; k >= 2; --k) sum = sum * a + (k % 2 == 0 ? 1.0 : -1.0) * (k - 1.0) / k;
  return sum;
}

// With r = 1/v: rising = log Gamma(y + r) - log Gamma(r) - y log r = sum_{k<y} log1p(k v), and
// its derivative in v, sum_{k<y} k / (1 + k v) = r y - r^2 (digamma(y + r) - digamma(r)).
struct Rising {
  double value;
  double d_var;
};

Rising rising(double y, double v) {
  if (v == 0.0) return {0.0, 0.5 * y * (y - 1.0)};
  Rising sum{0.0, 0.0};
  if (y <= kAlwaysSumUpTo || (y * v < 1.0 && y <= kSumUpTo)) {
    for (double k = 1.0; k < y; k += 1.0) {
      sum.value += std::log1p(k * v);
      sum.d_var += k / (1.0 + k * v);
    }
    return sum;
  }
  const double r = 1.0 / v;
  return {log_gamma(y + r) - log_gamma(r) - y * std::log(r),
          r * y - r * r * (digamma(y + r) - digamma(r))};
}

}  // namespace

// log NB(y | r, p) = lgamma(y + r) - lgamma(y + 1) - lgamma(r) + y log p + r log(1 - p), with
// r = 1/v, a = v e^m, p = a/(1+a), u = log a = m + log v, log(1 - p) = -softplus(u):
//   log Z = rising - lgamma(y + 1) + y m - (y + r) softplus(u)
//   d/dm  = y - (y + r) p = (y - e^m) / (1 + a)
//   d/dv  = d rising/dv - y e^m / (1 + a) + r^2 (log1p(a) - a/(1+a))
// (derived from the r- and u-derivatives; the O(r) terms cancel exactly, leaving this form,
// which tends to ((y - e^m)^2 - y) / 2 in the Poisson limit v -> 0).
double NegativeBinomialLikelihood::log_z(const double* mean, const double* var, double target,
                                         double* d_mean, double* d_var) {
  const double y = target > 0.0 ? std::nearbyint(target) : 0.0;
  const double m = mean[0];
  const double v = var[0] > 0.0 ? var[0] : 0.0;
  const double u = m + std::log(v);  // -inf at v = 0: softplus 0, logistic 0, a 0
  const double a = std::exp(u);
  const double softplus_u = softplus(u);
  const Rising rise = rising(y, v);
  // r softplus(u) = e^m log1p(a)/a: finite at v = 0 (the Poisson's e^m); e^m may overflow once
  // a >= 1, where softplus(u)/v is safe instead.
  const double r_softplus =
      a < 1.0 ? std::exp(m) * (a > 0.0 ? std::log1p(a) / a : 1.0) : softplus_u / v;
  // y e^m / (1 + a) and (y - e^m) / (1 + a), divided through by e^m when that could overflow.
  const double inv_rate = std::exp(-m);
  const double rate = std::exp(m);
  d_mean[0] = m <= 0.0 ? (y - rate) / (1.0 + a) : (y * inv_rate - 1.0) / (inv_rate + v);
  const double y_rate_term = m <= 0.0 ? y * rate / (1.0 + a) : y / (inv_rate + v);
  const double r2_remainder =
      a < kSeriesBelow ? rate * rate * remainder_over_a2(a) : (softplus_u - logistic(u)) / (v * v);
  d_var[0] = rise.d_var - y_rate_term + r2_remainder;
  return rise.value - log_gamma(y + 1.0) + y * m - y * softplus_u - r_softplus;
}

std::unique_ptr<Likelihood> make_negative_binomial_likelihood(const LikelihoodContext&) {
  return std::make_unique<NegativeBinomialLikelihood>();
}

}  // namespace pbp::trainer
