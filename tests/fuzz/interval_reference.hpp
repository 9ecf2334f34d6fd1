// SPDX-License-Identifier: Apache-2.0
// The half width, in stds, of a regression prediction's central interval (FORMAT.md section 9:
// a Gaussian's, or a Student-t's of the same variance), in double, independent of the runtime's
// quantiles: bisection on the double erfc, or on the regularised incomplete beta function.
#pragma once
#include <stdint.h>

namespace pbp_fuzz {

// The runtime's float half width is within this relative error of the reference:
// interval_half_width_fast ~1e-6 (tests/runtime/math), the Student-t quantile a few float ulp
// (tests/host/math_accuracy) and its scale's two roundings: both taken x10.
inline constexpr double kIntervalError = 1e-5;

// z >= 0 with P(Z > z) = tail, tail in (0, 1/2]: Z standard normal (dof 0), else the t with dof
// degrees of freedom scaled to unit variance.
double reference_half_width(double tail, uint32_t dof);

}  // namespace pbp_fuzz
