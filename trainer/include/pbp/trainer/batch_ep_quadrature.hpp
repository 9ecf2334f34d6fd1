// SPDX-License-Identifier: Apache-2.0
// Simpson's rule for the moments of an unnormalised log density (batch_ep.hpp), in log space so
// that a sharp or far-off likelihood does not overflow.
#pragma once
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "pbp/math.hpp"
#include "pbp/trainer/batch_ep.hpp"

namespace pbp::trainer::batch_ep {

template <class LogDensity>
QuadratureMoments quadrature_moments(double lower, double upper, size_t points,
                                     const LogDensity& log_density) {
  if (points < 3 || points % 2 == 0) {
    throw std::invalid_argument("quadrature_moments: needs an odd count >= 3");
  }
  QuadratureMoments result;
  result.log_mass = -math::infinity<double>();
  result.mean = result.variance = math::quiet_nan<double>();
  // A collapsed or non-finite range (a cavity of zero, infinite or NaN variance): no moments,
  // which every caller treats as "leave this site alone".
  if (!(upper > lower) || !math::is_finite(upper - lower)) return result;
  const double step = (upper - lower) / static_cast<double>(points - 1);
  std::vector<double> logs(points);
  double largest = -math::infinity<double>();
  for (size_t i = 0; i < points; ++i) {
    logs[i] = log_density(lower + step * static_cast<double>(i));
    if (logs[i] > largest) largest = logs[i];
  }
  if (!math::is_finite(largest)) return result;
  double mass = 0.0, first = 0.0;
  std::vector<double> weights(points);
  for (size_t i = 0; i < points; ++i) {
    const double simpson = (i == 0 || i + 1 == points) ? 1.0 : (i % 2 ? 4.0 : 2.0);
    weights[i] = simpson * math::exp(logs[i] - largest);
    mass += weights[i];
    first += weights[i] * (lower + step * static_cast<double>(i));
  }
  result.mean = first / mass;
  double second = 0.0;  // central, for accuracy
  for (size_t i = 0; i < points; ++i) {
    const double d = lower + step * static_cast<double>(i) - result.mean;
    second += weights[i] * d * d;
  }
  result.variance = second / mass;
  result.log_mass = largest + math::log(mass * step / 3.0);
  return result;
}

}  // namespace pbp::trainer::batch_ep
