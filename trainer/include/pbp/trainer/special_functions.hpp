// SPDX-License-Identifier: Apache-2.0
// log Gamma and digamma for double, for the negative-binomial count likelihood (its eq. 22 and
// gradients). Our own so every platform computes the same bits and digamma exists at all
// (the standard library has none).
#pragma once

namespace pbp::trainer {

// log Gamma(x) for x > 0 (NaN otherwise). Upward recurrence to x >= 10, then Stirling's series;
// error <= ~1e-15 * max(1, |log Gamma(x)|) (absolute near its zeros at 1 and 2).
double log_gamma(double x);

// digamma(x) = d log Gamma(x) / dx for x > 0 (NaN otherwise), by the same recurrence and the
// asymptotic series; error <= ~1e-15 * max(1, |digamma(x)|).
double digamma(double x);

}  // namespace pbp::trainer
