// SPDX-License-Identifier: Apache-2.0
// The Gamma moment-matching step of PBP (Hernandez-Lobato & Adams 2015, eqs. 9-10): the noise
// precision's posterior after a regression point, and (trainer) the prior precision's after EP.
// The one copy: double in the trainer, float in the runtime's learner. No libm.
#pragma once

#include "pbp/math.hpp"

namespace pbp::learn {

template <class T>
struct GammaParameters {
  T a;  // shape
  T b;  // rate
};

// Eqs. 9-10: the Gamma Gamma(a, b) on a precision matched in its first two moments to it times
// a factor with evidence Z, where Z1 and Z2 are Z with the shape a increased by one and two,
// given Z1/Z and rho - 1, rho = Z2 Z / Z1^2 (likelihood_gradients.hpp):
//   a' = 1 / (rho (a+1)/a - 1) = a / D,   b' = 1 / (Z2/Z1 (a+1)/b - Z1/Z a/b) = b / (Z1/Z D),
// with D = rho (a+1) - a = 1 + (rho - 1)(a + 1): no difference of nearly equal numbers (a' - a
// is about 1/2 for a data point, a fraction of float's resolution of a once a is large).
// Returns false, writing nothing, if the result is not a proper Gamma (a, b positive, finite).
template <class T>
inline bool gamma_update(GammaParameters<T> g, T z1_over_z, T rho_minus_one,
                         GammaParameters<T>* out) {
  const T d = T(1) + rho_minus_one * (g.a + T(1));
  const T a = g.a / d;
  const T b = g.b / (z1_over_z * d);
  if (!(a > T(0) && b > T(0) && math::is_finite(a) && math::is_finite(b))) return false;
  *out = {a, b};
  return true;
}

}  // namespace pbp::learn
