// SPDX-License-Identifier: Apache-2.0
// The variances a regression prediction adds for its input row's distance from the training values
// (FORMAT.md sections 7 and 8), in double, each with a bound on the runtime's float error: the
// double_reference.hpp invariant's last two terms.
#pragma once
#include "double_reference.hpp"
#include "pbp/pbp.h"

namespace pbp_fuzz {

inline constexpr double kU = 0x1p-24;  // float unit roundoff (round to nearest)
// A float rounding's absolute error where it underflows; a product of such a rounded value
// with another factor carries that factor times kEta.
inline constexpr double kEta = 0x1p-149;

// (A target_std d)^2 of section 7; the model has its input occupancy.
Bounded distance_variance_reference(const pbp_model& model, const float* input);
// (A2 target_std f)^2 of section 8; the model has its pair occupancy.
Bounded pair_variance_reference(const pbp_model& model, const float* input);

}  // namespace pbp_fuzz
