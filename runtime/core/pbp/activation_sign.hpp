// SPDX-License-Identifier: Apache-2.0
// Moments of the sign hidden unit z = sign(a) under a Gaussian pre-activation a ~ N(m, v) (the
// ADF-extensions paper's sign unit, Ghosh et al. 2016, Figure 1). The one copy of these
// equations: the runtime runs them in float, the trainer in double; their Jacobian below, for the
// backward pass.
#pragma once
#include <stdint.h>

#include "pbp/math.hpp"
#include "pbp/pbp.h"
#include "pbp/unit_jacobian.hpp"

namespace pbp {

// With alpha = m / sqrt(v), z is +1 with probability Phi(alpha) and -1 with Phi(-alpha):
//   m_z = Phi(alpha) - Phi(-alpha) = 2 Phi(alpha) - 1,
//   v_z = 1 - m_z^2 = 4 Phi(alpha) Phi(-alpha)   (the product form keeps its tail accuracy).
// v == 0 is the deterministic sign with sign(0) = 0 (the mean of the v > 0 form at m = 0; a
// unit exactly on its threshold contributes nothing), variance 0.
template <class T>
struct SignMoments {
  T mean;
  T variance;
  T sd;         // sqrt(v), or 1 when v == 0
  T alpha;      // m / sd
  T cdf;        // Phi(alpha)
  T cdf_minus;  // Phi(-alpha)
};

// Valid for finite m and v >= 0. Non-finite in, non-finite out: a NaN or infinite m or v (an
// overflowed sum) gives a NaN mean and variance (the closed form alone would turn v = inf into
// mean 0, variance 1, and m = inf into a certain +1).
template <class T>
inline SignMoments<T> sign_moments(T m, T v) {
  SignMoments<T> r;
  const bool random = !(v <= T(0));  // NaN v takes the closed form, which propagates it
  r.sd = math::sqrt(random ? v : T(1));
  r.alpha = m / r.sd;
  const math::NormalTails<T> tails = math::normal_tails(r.alpha);
  r.cdf = tails.cdf;
  r.cdf_minus = tails.cdf_minus;
  const T poison = (m - m) + (v - v);  // +0 for finite m and v, NaN otherwise
  const T sign = m > T(0) ? T(1) : (m < T(0) ? T(-1) : T(0));
  r.mean = (random ? r.cdf - r.cdf_minus : sign) + poison;
  r.variance = (random ? T(4) * r.cdf * r.cdf_minus : T(0)) + poison;
  return r;
}

// Applies sign_moments in place to `count` units.
template <class T>
inline void sign_moments_inplace(uint32_t count, T* mean, T* var) {
  for (uint32_t j = 0; j < count; ++j) {
    const SignMoments<T> r = sign_moments(mean[j], var[j]);
    mean[j] = r.mean;
    var[j] = r.variance;
  }
}

// sign: z = sign(a) with alpha = m / sqrt(v): m_z = 2 Phi(alpha) - 1, v_z = 1 - m_z^2:
//   dm_z/dm = 2 phi(alpha) / sqrt(v),  dm_z/dv = -alpha phi(alpha) / v,  dv_z/dx = -2 m_z dm_z/dx.
template <class T>
inline ActivationJacobian<T> sign_jacobian(T v, const SignMoments<T>& r) {
  const T pdf = math::normal_pdf(r.alpha);
  const T mean_by_mean = T(2) * pdf / r.sd;
  const T mean_by_var = -r.alpha * pdf / v;
  return {mean_by_mean, mean_by_var, T(-2) * r.mean * mean_by_mean, T(-2) * r.mean * mean_by_var};
}

// The activation table's entry (activations.hpp).
struct SignActivation {
  static constexpr uint32_t kId = PBP_ACTIVATION_SIGN;
  template <class T>
  static void moments_inplace(uint32_t count, T* mean, T* var) {
    sign_moments_inplace(count, mean, var);
  }
  template <class T>
  static ActivationJacobian<T> moments_and_jacobian(T m, T v, T* mean, T* var) {
    const SignMoments<T> r = sign_moments(m, v);
    *mean = r.mean;
    *var = r.variance;
    return sign_jacobian(v, r);
  }
  // d m_z / d m_a with the moments, for any v >= 0 (the CLI's sensitivities,
  // tools/pbp/variance_reduction.cpp).
  template <class T>
  static T moments_and_mean_slope(T m, T v, T* mean, T* var) {
    const SignMoments<T> r = sign_moments(m, v);
    *mean = r.mean;
    *var = r.variance;
    return v > T(0) ? sign_jacobian(v, r).mean_by_mean : T(0);
  }
};

}  // namespace pbp
