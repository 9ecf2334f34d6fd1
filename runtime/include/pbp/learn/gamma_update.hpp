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
// given the ratios Z1/Z and Z2/Z1 (Z2 Z / Z1^2 is their quotient). Returns false, writing
// nothing, if the result is not a proper Gamma (a, b positive and finite).
template <class T>
inline bool gamma_update(GammaParameters<T> g, T z1_over_z, T z2_over_z1, GammaParameters<T>* out) {
  const T one = T(1);
  const T a = one / (z2_over_z1 / z1_over_z * (g.a + one) / g.a - one);
  const T b = one / (z2_over_z1 * (g.a + one) / g.b - z1_over_z * g.a / g.b);
  if (!(a > T(0) && b > T(0) && math::is_finite(a) && math::is_finite(b))) return false;
  *out = {a, b};
  return true;
}

}  // namespace pbp::learn
