// Derivatives of the erf and sign moment maps (m_a, v_a) -> (m_z, v_z) of erf_moments and
// sign_moments (runtime/include/pbp/activation_*.hpp), for the backward pass. Closed forms: the
// quadrature in the erf variance is never differentiated, Owen's T has exact partial derivatives.
#pragma once
#include "pbp/activation_erf.hpp"
#include "pbp/activation_sign.hpp"
#include "pbp/trainer/relu_jacobian.hpp"

namespace pbp::trainer {

// Both are valid for v > 0, which training guarantees (see relu_jacobian.hpp).

// z = 2 Phi(a) - 1 with h = m / sqrt(1 + v), c = 1 / sqrt(1 + 2v), S = E[Phi(a)^2] = Phi(h) -
// 2 T(h, c) and dT/dh = -phi(h) (Phi(c h) - 1/2), dT/dc = exp(-h^2 (1 + c^2) / 2) / (2 pi (1 +
// c^2)):
//   dm_z/dm = 2 phi(h) / sqrt(1 + v),         dm_z/dv = -h phi(h) / (1 + v),
//   dS/dm = 2 phi(h) Phi(c h) / sqrt(1 + v),  dS/dv = -h phi(h) Phi(c h) / (1 + v)
//                                                   + exp(-m^2 / (1 + 2v)) / (2 pi (1 + v) / c),
// and v_z = 4 (S - Phi(h)^2):
//   dv_z/dm = 8 phi(h) (Phi(c h) - Phi(h)) / sqrt(1 + v),
//   dv_z/dv = 4 / (1 + v) (h phi(h) (Phi(h) - Phi(c h)) + c exp(-m^2 / (1 + 2v)) / (2 pi)).
inline ReluJacobian erf_jacobian(double m, double v, const ErfMoments<double>& r) {
  constexpr double kInvTwoPi = 0.159154943091895335768883763372514362;
  const double one_plus_v = 1.0 + v;
  const double inv_s = 1.0 / math::sqrt(one_plus_v);
  const double pdf = math::normal_pdf(r.h);
  const double gap = r.cdf - math::normal_cdf(r.c * r.h);  // Phi(h) - Phi(c h)
  const double tail = math::exp(-(m * m) / (1.0 + 2.0 * v)) * r.c * kInvTwoPi;
  return {2.0 * pdf * inv_s, -r.h * pdf / one_plus_v, -8.0 * pdf * gap * inv_s,
          4.0 / one_plus_v * (r.h * pdf * gap + tail)};
}

// z = sign(a) with alpha = m / sqrt(v): m_z = 2 Phi(alpha) - 1, v_z = 1 - m_z^2:
//   dm_z/dm = 2 phi(alpha) / sqrt(v),  dm_z/dv = -alpha phi(alpha) / v,  dv_z/dx = -2 m_z dm_z/dx.
inline ReluJacobian sign_jacobian(double v, const SignMoments<double>& r) {
  const double pdf = math::normal_pdf(r.alpha);
  const double mean_by_mean = 2.0 * pdf / r.sd;
  const double mean_by_var = -r.alpha * pdf / v;
  return {mean_by_mean, mean_by_var, -2.0 * r.mean * mean_by_mean, -2.0 * r.mean * mean_by_var};
}

}  // namespace pbp::trainer
