// SPDX-License-Identifier: Apache-2.0
// The shape of a regression model's predictive (FORMAT.md, section 9): a Gaussian (dof 0) or a
// Student-t with dof degrees of freedom and the same variance, its scale std sqrt((dof - 2) / dof).
// The one copy: the runtime's interval and learner check in float, the trainer's metrics,
// calibration and distance folds in double. dof is 0 or valid (math::student_t_dof_valid).
#pragma once
#include <stdint.h>

#include "pbp/math.hpp"

namespace pbp::outputs {

// (dof - 2) / dof: a variance-matched Student-t's squared scale over its variance.
template <class T>
inline T student_t_scale_squared(uint32_t dof) {
  const T nu = static_cast<T>(dof);
  return (nu - static_cast<T>(2)) / nu;
}

// The central interval's half width in stds for the upper-tail probability `tail` = (1 - p) / 2,
// tail in (0, 1/2].
inline float predictive_half_width(float tail, uint32_t dof) {
  if (dof == 0u) return math::detail::interval_half_width_fast(tail);
  return math::student_t_quantile_upper(tail, dof) *
         math::sqrt(student_t_scale_squared<float>(dof));
}
inline double predictive_half_width(double tail, uint32_t dof) {
  if (dof == 0u) return -math::normal_quantile(tail);
  return math::student_t_quantile_upper(tail, dof) *
         math::sqrt(student_t_scale_squared<double>(dof));
}

// log p(y) + log(std) of the predictive at the standardised error z2 = (y - mean)^2 / variance:
// every shape's density is its unit density at the error over its scale, over that scale.
template <class T>
inline T predictive_log_density(T z2, uint32_t dof) {
  constexpr T kLogTwoPi = static_cast<T>(1.8378770664093454836);
  if (dof == 0u) return static_cast<T>(-0.5) * (kLogTwoPi + z2);
  const T ratio = student_t_scale_squared<T>(dof);
  return math::student_t_log_pdf(math::sqrt(z2 / ratio), dof) -
         static_cast<T>(0.5) * math::log(ratio);
}

}  // namespace pbp::outputs
