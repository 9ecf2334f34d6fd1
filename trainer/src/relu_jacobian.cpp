#include "pbp/math.hpp"
#include "pbp/trainer/adf.hpp"

namespace pbp::trainer {

ReluJacobian relu_jacobian(const ReluMoments<double>& r, double m, double v) {
  if (!(v > 0.0)) {  // deterministic unit: the derivative of max(0, m)
    const double on = m > 0.0 ? 1.0 : 0.0;
    return {on, 0.0, 0.0, on};
  }
  const double s = r.sd;
  const double alpha = r.alpha;
  if (alpha >= kReluAsymptoteBelow<double>) {
    // With gamma = phi/Phi exactly: m_z = m Phi + s phi, E[z^2] = (m^2 + v) Phi + m s phi.
    const double phi = r.gamma * r.cdf;
    return {r.cdf, phi / (2.0 * s), 2.0 * r.mean * r.cdf_minus, r.cdf - r.mean * phi / s};
  }
  // Series branch: m_z = s g(alpha), v_z = s^2 h(alpha) with gamma(alpha) = -a - 1/a + 2/a^3.
  const double phi = math::normal_pdf(alpha);
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

}  // namespace pbp::trainer
