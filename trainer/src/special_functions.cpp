// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/special_functions.hpp"

#include <cmath>
#include <limits>
#include <numbers>

namespace pbp::trainer {

namespace {

// Beyond this both series' first omitted term is below 1e-17 relative.
constexpr double kAsymptoticFrom = 10.0;

}  // namespace

double log_gamma(double x) {
  if (!(x > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  // Gamma(x) = Gamma(x + n) / (x (x + 1) ... (x + n - 1)): at most 10 factors, no overflow.
  double shifted_product = 1.0;
  while (x < kAsymptoticFrom) {
    shifted_product *= x;
    x += 1.0;
  }
  // Stirling: B_2k / (2k (2k - 1) x^(2k - 1)) for k = 1..8, Horner in 1/x^2.
  const double inv = 1.0 / x;
  const double inv2 = inv * inv;
  const double series =
      inv *
      (1.0 / 12 +
       inv2 * (-1.0 / 360 +
               inv2 * (1.0 / 1260 +
                       inv2 * (-1.0 / 1680 +
                               inv2 * (1.0 / 1188 +
                                       inv2 * (-691.0 / 360360 +
                                               inv2 * (1.0 / 156 + inv2 * (-3617.0 / 122400))))))));
  const double half_log_two_pi = 0.5 * std::log(2.0 * std::numbers::pi);
  return (x - 0.5) * std::log(x) - x + half_log_two_pi + series - std::log(shifted_product);
}

double digamma(double x) {
  if (!(x > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  // digamma(x) = digamma(x + 1) - 1/x, applied until the asymptotic series is accurate.
  double shift = 0.0;
  while (x < kAsymptoticFrom) {
    shift += 1.0 / x;
    x += 1.0;
  }
  // log x - 1/(2x) - sum_k B_2k / (2k x^2k) for k = 1..8, Horner in 1/x^2.
  const double inv2 = 1.0 / (x * x);
  const double series =
      inv2 *
      (1.0 / 12 +
       inv2 * (-1.0 / 120 +
               inv2 * (1.0 / 252 +
                       inv2 * (-1.0 / 240 +
                               inv2 * (1.0 / 132 +
                                       inv2 * (-691.0 / 32760 +
                                               inv2 * (1.0 / 12 + inv2 * (-3617.0 / 8160))))))));
  return std::log(x) - 0.5 / x - series - shift;
}

}  // namespace pbp::trainer
