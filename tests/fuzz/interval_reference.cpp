// SPDX-License-Identifier: Apache-2.0
#include "interval_reference.hpp"

#include <cmath>

namespace pbp_fuzz {
namespace {

// The regularised incomplete beta I_x(a, b) by its continued fraction (modified Lentz), for
// x < (a + 1) / (a + b + 2), where it converges fast; the symmetry I_x(a, b) = 1 - I_1-x(b, a)
// otherwise.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  if (x > (a + 1.0) / (a + b + 2.0)) return 1.0 - incomplete_beta(b, a, 1.0 - x);
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x)) /
                       a;
  const double tiny = 1e-300;
  double f = 1.0, c = 1.0, d = 0.0;
  for (int i = 0; i <= 400; ++i) {
    const int m = i / 2;
    double numerator;
    if (i == 0) {
      numerator = 1.0;
    } else if (i % 2 == 0) {
      numerator = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
    } else {
      numerator = -((a + m) * (a + b + m) * x) / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
    }
    d = 1.0 + numerator * d;
    d = std::fabs(d) < tiny ? tiny : d;
    d = 1.0 / d;
    c = 1.0 + numerator / c;
    c = std::fabs(c) < tiny ? tiny : c;
    const double step = c * d;
    f *= step;
    if (std::fabs(1.0 - step) < 1e-16) break;
  }
  return front * (f - 1.0);
}

// P(T > t) of the unit-scale t with nu degrees of freedom, t >= 0: I_{nu / (nu + t^2)}(nu/2,
// 1/2)/2.
double t_upper_tail(double t, double nu) {
  return 0.5 * incomplete_beta(0.5 * nu, 0.5, nu / (nu + t * t));
}

}  // namespace

double reference_half_width(double tail, uint32_t dof) {
  double lo = 0.0, hi = dof == 0 ? 40.0 : 1e12;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    const double above = dof == 0 ? 0.5 * std::erfc(mid / std::sqrt(2.0))
                                  : t_upper_tail(mid, static_cast<double>(dof));
    (above > tail ? lo : hi) = mid;
  }
  const double x = 0.5 * (lo + hi);
  return dof == 0 ? x : x * std::sqrt((dof - 2.0) / dof);
}

}  // namespace pbp_fuzz
