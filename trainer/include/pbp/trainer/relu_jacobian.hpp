// Derivatives of the ReLU moment map (m_a, v_a) -> (m_z, v_z) of relu_moments, for the backward
// pass: of the formulas as implemented, including the alpha < -30 series branch.
#pragma once
#include "pbp/moments.hpp"

namespace pbp::trainer {

struct ReluJacobian {
  double mean_by_mean, mean_by_var, var_by_mean, var_by_var;
};

// All three are valid for v > 0, which training guarantees: every weight variance stays above
// 1e-100 and the bias weight alone makes v_a positive. Branch-free, so that a loop over units
// vectorises.

// Ratio branch (alpha >= -30), gamma = phi/Phi exactly: m_z = m Phi + s phi, E[z^2] = (m^2 + v)
// Phi + m s phi.
inline ReluJacobian relu_jacobian_ratio(const ReluMoments<double>& r) {
  const double phi_over_s = r.pdf / r.sd;
  return {r.cdf, 0.5 * phi_over_s, 2.0 * r.mean * r.cdf_minus, r.cdf - r.mean * phi_over_s};
}

// Series branch (alpha < -30): m_z = s g(alpha), v_z = s^2 h(alpha) with gamma(alpha) = -a - 1/a
// + 2/a^3.
inline ReluJacobian relu_jacobian_series(const ReluMoments<double>& r) {
  const double s = r.sd;
  const double alpha = r.alpha;
  const double phi = r.pdf;
  const double inv = 1.0 / alpha;
  const double gamma = r.gamma;
  const double dgamma = -1.0 + inv * inv - 6.0 * inv * inv * inv * inv;
  const double shift = alpha + gamma;
  const double g = r.cdf * shift;
  const double dg = phi * shift + r.cdf * (1.0 + dgamma);
  const double k = shift * shift * r.cdf_minus + 1.0 - gamma * shift;
  const double dk = 2.0 * shift * (1.0 + dgamma) * r.cdf_minus - shift * shift * phi -
                    dgamma * shift - gamma * (1.0 + dgamma);
  const double h = r.cdf * k;
  const double dh = phi * k + r.cdf * dk;
  // alpha = m / s: d alpha/dm = 1/s, d alpha/dv = -alpha / (2v), ds/dv = 1 / (2s).
  return {dg, (g - alpha * dg) / (2.0 * s), s * dh, h - 0.5 * alpha * dh};
}

// By the branch relu_moments took (both computed, one selected).
inline ReluJacobian relu_jacobian(const ReluMoments<double>& r) {
  const ReluJacobian ratio = relu_jacobian_ratio(r);
  const ReluJacobian series = relu_jacobian_series(r);
  const bool in_series = relu_in_series_branch(r.alpha);
  return {in_series ? series.mean_by_mean : ratio.mean_by_mean,
          in_series ? series.mean_by_var : ratio.mean_by_var,
          in_series ? series.var_by_mean : ratio.var_by_mean,
          in_series ? series.var_by_var : ratio.var_by_var};
}

}  // namespace pbp::trainer
