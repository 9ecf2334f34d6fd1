// SPDX-License-Identifier: Apache-2.0
// Moments of the erf hidden unit z = erf(a / sqrt 2) = 2 Phi(a) - 1 under a Gaussian
// pre-activation a ~ N(m, v): the EP paper's activation (Jylanki et al. 2014, eq. 2; its 1/sqrt K
// is PBP's 1/sqrt(n + 1) pre-activation scale). The one copy of these equations: the runtime runs
// them in float, the trainer in double; their Jacobian below, for the backward pass.
#pragma once
#include <stdint.h>

#include "pbp/math.hpp"
#include "pbp/pbp.h"
#include "pbp/unit_jacobian.hpp"

namespace pbp {

// With s = sqrt(1 + v), h = m / s and c = 1 / sqrt(1 + 2v):
//   m_z = E[2 Phi(a) - 1] = 2 Phi(h) - 1 = Phi(h) - Phi(-h)
//   E[Phi(a)^2] = P(X1 <= a, X2 <= a) for X1, X2 ~ N(0, 1) = Phi2(h, h; v / (1 + v))
//               = Phi(h) - 2 T(h, c)   (bivariate normal CDF on its diagonal by Owen's T)
//   v_z = 4 (E[Phi(a)^2] - Phi(h)^2) = 8 (T(h, 1) - T(h, c))   (since 2 T(h, 1) = Phi(h) Phi(-h))
// The variance is integrated over [c, 1] directly, not as a difference, and the width 1 - c =
// 2v / (r (r + 1)) with r = sqrt(1 + 2v) without cancellation: accurate as v -> 0 (v_z -> 0
// exactly at v = 0, the deterministic erf).
template <class T>
struct ErfMoments {
  T mean;
  T variance;
  T h;          // m / sqrt(1 + v)
  T cdf;        // Phi(h)
  T cdf_minus;  // Phi(-h)
  T c;          // 1 / sqrt(1 + 2v)
};

// Valid for finite m and v >= 0. Non-finite in, non-finite out: a NaN or infinite m or v (an
// overflowed sum) gives a NaN mean and variance, never a finite unit that hides it (the closed
// forms alone would turn v = inf into mean 0, variance 1).
template <class T>
inline ErfMoments<T> erf_moments(T m, T v) {
  ErfMoments<T> r;
  const T one = T(1);
  r.h = m / math::sqrt(one + v);
  const math::NormalTails<T> tails = math::normal_tails(r.h);
  r.cdf = tails.cdf;
  r.cdf_minus = tails.cdf_minus;
  const T root = math::sqrt(one + T(2) * v);
  r.c = one / root;
  const T width = (T(2) * v) / (root * (root + one));  // 1 - c
  const T poison = (m - m) + (v - v);                  // +0 for finite m and v, NaN otherwise
  r.mean = (r.cdf - r.cdf_minus) + poison;
  r.variance = T(8) * math::owens_t_difference(r.h, one, width) + poison;
  return r;
}

// Applies erf_moments in place to `count` units.
template <class T>
inline void erf_moments_inplace(uint32_t count, T* mean, T* var) {
  for (uint32_t j = 0; j < count; ++j) {
    const ErfMoments<T> r = erf_moments(mean[j], var[j]);
    mean[j] = r.mean;
    var[j] = r.variance;
  }
}

// erf: z = 2 Phi(a) - 1 with h = m / sqrt(1 + v), c = 1 / sqrt(1 + 2v), S = E[Phi(a)^2] =
// Phi(h) - 2 T(h, c) and dT/dh = -phi(h) (Phi(c h) - 1/2), dT/dc = exp(-h^2 (1 + c^2) / 2) /
// (2 pi (1 + c^2)):
//   dm_z/dm = 2 phi(h) / sqrt(1 + v),         dm_z/dv = -h phi(h) / (1 + v),
//   dS/dm = 2 phi(h) Phi(c h) / sqrt(1 + v),  dS/dv = -h phi(h) Phi(c h) / (1 + v)
//                                                   + exp(-m^2 / (1 + 2v)) / (2 pi (1 + v) / c),
// and v_z = 4 (S - Phi(h)^2):
//   dv_z/dm = 8 phi(h) (Phi(c h) - Phi(h)) / sqrt(1 + v),
//   dv_z/dv = 4 / (1 + v) (h phi(h) (Phi(h) - Phi(c h)) + c exp(-m^2 / (1 + 2v)) / (2 pi)).
template <class T>
inline ActivationJacobian<T> erf_jacobian(T m, T v, const ErfMoments<T>& r) {
  const T inv_two_pi = static_cast<T>(0.159154943091895335768883763372514362);
  const T one = T(1);
  const T one_plus_v = one + v;
  const T inv_s = one / math::sqrt(one_plus_v);
  const T pdf = math::normal_pdf(r.h);
  const T gap = r.cdf - math::normal_cdf(r.c * r.h);  // Phi(h) - Phi(c h)
  const T tail = math::exp(-(m * m) / (one + T(2) * v)) * r.c * inv_two_pi;
  return {T(2) * pdf * inv_s, -r.h * pdf / one_plus_v, T(-8) * pdf * gap * inv_s,
          T(4) / one_plus_v * (r.h * pdf * gap + tail)};
}

// The activation table's entry (activations.hpp).
struct ErfActivation {
  static constexpr uint32_t kId = PBP_ACTIVATION_ERF;
  template <class T>
  static void moments_inplace(uint32_t count, T* mean, T* var) {
    erf_moments_inplace(count, mean, var);
  }
  template <class T>
  static ActivationJacobian<T> moments_and_jacobian(T m, T v, T* mean, T* var) {
    const ErfMoments<T> r = erf_moments(m, v);
    *mean = r.mean;
    *var = r.variance;
    return erf_jacobian(m, v, r);
  }
  // d m_z / d m_a with the moments, for any v >= 0 (the CLI's sensitivities,
  // tools/pbp/variance_reduction.cpp).
  template <class T>
  static T moments_and_mean_slope(T m, T v, T* mean, T* var) {
    const ErfMoments<T> r = erf_moments(m, v);
    *mean = r.mean;
    *var = r.variance;
    return erf_jacobian(m, v, r).mean_by_mean;
  }
};

}  // namespace pbp
