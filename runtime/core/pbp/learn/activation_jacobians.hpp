// SPDX-License-Identifier: Apache-2.0
// Derivatives of the hidden activations' moment maps (m_a, v_a) -> (m_z, v_z) (moments.hpp,
// activation_erf.hpp, activation_sign.hpp), for the backward pass of a PBP update: of the
// formulas as implemented, including ReLU's alpha < -30 series branch. The one copy: double in
// the trainer, float in the runtime's learner. Closed forms: the quadrature in the erf variance
// is never differentiated, Owen's T has exact partial derivatives. No libm.
#pragma once

#include "pbp/activation_erf.hpp"
#include "pbp/activation_sign.hpp"
#include "pbp/moments.hpp"

namespace pbp::learn {

template <class T>
struct ActivationJacobian {
  T mean_by_mean, mean_by_var, var_by_mean, var_by_var;
};

// All are valid for v > 0, which an update guarantees: every weight variance stays positive and
// the bias weight alone makes v_a positive. Branch-free, so that a loop over units vectorises.

// ReLU, ratio branch (alpha >= -30), gamma = phi/Phi exactly: m_z = m Phi + s phi, E[z^2] =
// (m^2 + v) Phi + m s phi.
template <class T>
inline ActivationJacobian<T> relu_jacobian_ratio(const ReluMoments<T>& r) {
  const T phi_over_s = r.pdf / r.sd;
  return {r.cdf, T(0.5) * phi_over_s, T(2) * r.mean * r.cdf_minus, r.cdf - r.mean * phi_over_s};
}

// ReLU, series branch (alpha < -30): m_z = s g(alpha), v_z = s^2 h(alpha) with gamma(alpha) =
// -a - 1/a + 2/a^3.
template <class T>
inline ActivationJacobian<T> relu_jacobian_series(const ReluMoments<T>& r) {
  const T one = T(1);
  const T s = r.sd;
  const T alpha = r.alpha;
  const T phi = r.pdf;
  const T inv = one / alpha;
  const T gamma = r.gamma;
  const T dgamma = -one + inv * inv - T(6) * inv * inv * inv * inv;
  const T shift = alpha + gamma;
  const T g = r.cdf * shift;
  const T dg = phi * shift + r.cdf * (one + dgamma);
  const T k = shift * shift * r.cdf_minus + one - gamma * shift;
  const T dk = T(2) * shift * (one + dgamma) * r.cdf_minus - shift * shift * phi - dgamma * shift -
               gamma * (one + dgamma);
  const T h = r.cdf * k;
  const T dh = phi * k + r.cdf * dk;
  // alpha = m / s: d alpha/dm = 1/s, d alpha/dv = -alpha / (2v), ds/dv = 1 / (2s).
  return {dg, (g - alpha * dg) / (T(2) * s), s * dh, h - T(0.5) * alpha * dh};
}

// By the branch relu_moments took (both computed, one selected).
template <class T>
inline ActivationJacobian<T> relu_jacobian(const ReluMoments<T>& r) {
  const ActivationJacobian<T> ratio = relu_jacobian_ratio(r);
  const ActivationJacobian<T> series = relu_jacobian_series(r);
  const bool in_series = relu_in_series_branch(r.alpha);
  return {in_series ? series.mean_by_mean : ratio.mean_by_mean,
          in_series ? series.mean_by_var : ratio.mean_by_var,
          in_series ? series.var_by_mean : ratio.var_by_mean,
          in_series ? series.var_by_var : ratio.var_by_var};
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

// sign: z = sign(a) with alpha = m / sqrt(v): m_z = 2 Phi(alpha) - 1, v_z = 1 - m_z^2:
//   dm_z/dm = 2 phi(alpha) / sqrt(v),  dm_z/dv = -alpha phi(alpha) / v,  dv_z/dx = -2 m_z dm_z/dx.
template <class T>
inline ActivationJacobian<T> sign_jacobian(T v, const SignMoments<T>& r) {
  const T pdf = math::normal_pdf(r.alpha);
  const T mean_by_mean = T(2) * pdf / r.sd;
  const T mean_by_var = -r.alpha * pdf / v;
  return {mean_by_mean, mean_by_var, T(-2) * r.mean * mean_by_mean, T(-2) * r.mean * mean_by_var};
}

}  // namespace pbp::learn
