// SPDX-License-Identifier: Apache-2.0
// The Gaussian moment-matching step of PBP (Hernandez-Lobato & Adams 2015, eqs. 6-7), the one
// copy of it: the trainer runs it in double (ADF and the prior's EP), the runtime's learner in
// float. Freestanding: no libm, no heap.
#pragma once

#include "pbp/math.hpp"

namespace pbp::learn {

template <class T>
struct GaussianMoments {
  T mean;
  T variance;
};

// a * b + c as the update's two products are added: the trainer's double fuses it where the
// target has a fused multiply-add (its loops' main cost); float runs in source order, two
// roundings, as the runtime's bit-exact contract needs.
inline double update_multiply_add(double a, double b, double c) {
  return math::detail::multiply_add(a, b, c);
}
inline float update_multiply_add(float a, float b, float c) {
  return a * b + c;
}

// Eq. 7's curvature term (d log Z / dm)^2 - 2 d log Z / dv: the new variance is v - v^2 times it.
template <class T>
inline T update_curvature(T dlogz_dm, T dlogz_dv) {
  return dlogz_dm * dlogz_dm - T(2) * dlogz_dv;
}

// Eqs. 6-7 given d log Z / dm and the curvature term (for callers that get it more cheaply).
template <class T>
inline GaussianMoments<T> gaussian_update_with_curvature(T m, T v, T dlogz_dm, T curvature) {
  return {update_multiply_add(v, dlogz_dm, m), update_multiply_add(-(v * v), curvature, v)};
}

// Eqs. 6-7: the Gaussian q(w) = N(m, v) matched to q(w) f(w) / Z, given d log Z / dm and dv.
template <class T>
inline GaussianMoments<T> gaussian_update(T m, T v, T dlogz_dm, T dlogz_dv) {
  return gaussian_update_with_curvature(m, v, dlogz_dm, update_curvature(dlogz_dm, dlogz_dv));
}

// The smallest variance an update may leave: 1e-100 in double, as the reference; float's
// smallest normal number (a subnormal variance has lost its precision).
template <class T>
inline constexpr T kMinUsableVariance = T(1e-100);
template <>
inline constexpr float kMinUsableVariance<float> = 0x1p-126f;

// An update is applied only if it leaves a usable variance: above kMinUsableVariance and finite
// (NaN fails both comparisons); the paper undoes the others. The new mean needs no test of its
// own: it is non-finite only if v * g_m overflows or g_m is not finite, and then g_m^2 is +inf
// or NaN, so the new variance is -inf or NaN and fails already.
template <class T>
inline bool usable_update(const GaussianMoments<T>& g) {
  return g.variance > kMinUsableVariance<T> && g.variance < math::infinity<T>();
}

}  // namespace pbp::learn
