// SPDX-License-Identifier: Apache-2.0
// Moments of the erf hidden unit z = erf(a / sqrt 2) = 2 Phi(a) - 1 under a Gaussian
// pre-activation a ~ N(m, v): the EP paper's activation (Jylanki et al. 2014, eq. 2; its 1/sqrt K
// is PBP's 1/sqrt(n + 1) pre-activation scale). The one copy of these equations: the runtime runs
// them in float, the trainer in double (its Jacobian: trainer/.../activation_jacobian.hpp).
#pragma once
#include <stdint.h>

#include "pbp/math.hpp"

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

}  // namespace pbp
