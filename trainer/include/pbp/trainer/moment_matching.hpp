// The moment-matching rules PBP applies to every factor it incorporates: the Gaussian update of
// eqs. 6-7 and the Gamma update of eqs. 9-10 (Hernandez-Lobato & Adams 2015). Both the likelihood
// (ADF) and the prior refinement (EP) use these; this is their only copy.
#pragma once
#include <cmath>
#include <numbers>
#include <optional>

#include "pbp/math/bits.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

struct GaussianMoments {
  double mean;
  double variance;
};

// Eq. 7's curvature term (d log Z / dm)^2 - 2 d log Z / dv: the new variance is v - v^2 times it.
inline double update_curvature(double dlogz_dm, double dlogz_dv) {
  return dlogz_dm * dlogz_dm - 2.0 * dlogz_dv;
}

// Eqs. 6-7 given d log Z / dm and the curvature term (for callers that get it more cheaply).
// Fused multiply-adds where the target has them: the update loops' main cost.
inline GaussianMoments gaussian_update_with_curvature(double m, double v, double dlogz_dm,
                                                      double curvature) {
  return {math::detail::multiply_add(v, dlogz_dm, m),
          math::detail::multiply_add(-(v * v), curvature, v)};
}

// Eqs. 6-7: the Gaussian q(w) = N(m, v) matched to q(w) f(w) / Z, given d log Z / dm and dv.
inline GaussianMoments gaussian_update(double m, double v, double dlogz_dm, double dlogz_dv) {
  return gaussian_update_with_curvature(m, v, dlogz_dm, update_curvature(dlogz_dm, dlogz_dv));
}

// An update is applied only if it leaves a usable variance: positive (> 1e-100, as the reference)
// and finite (NaN fails both comparisons); the paper undoes the others. The new mean needs no
// test of its own: it is non-finite only if v * g_m overflows or g_m is not finite, and then
// g_m^2 is +inf or NaN, so the new variance is -inf or NaN and fails already.
inline bool usable_update(const GaussianMoments& g) {
  return g.variance > 1e-100 && g.variance < INFINITY;
}

// Eqs. 9-10: the Gamma on a precision matched in its first two moments, where Z1 and Z2 are Z
// with the shape a increased by one and two. Empty if the result is not a proper Gamma.
// With the ratios Z1/Z and Z2/Z1 (Z2 Z / Z1^2 is their quotient: two exps, not three).
inline std::optional<Gamma> gamma_update(const Gamma& g, double log_z, double log_z1,
                                         double log_z2) {
  const double z1_over_z = std::exp(log_z1 - log_z);
  const double z2_over_z1 = std::exp(log_z2 - log_z1);
  const double a = 1.0 / (z2_over_z1 / z1_over_z * (g.a + 1.0) / g.a - 1.0);
  const double b = 1.0 / (z2_over_z1 * (g.a + 1.0) / g.b - z1_over_z * g.a / g.b);
  if (!(a > 0.0 && b > 0.0 && std::isfinite(a) && std::isfinite(b))) return std::nullopt;
  return Gamma{a, b};
}

// log N(y | m, v) and its derivatives with respect to m and v: eq. 12's Gaussian evidence.
struct GaussianLogZ {
  double value;
  double d_mean;
  double d_variance;
};

inline GaussianLogZ gaussian_log_z(double y, double m, double v) {
  const double r = y - m;
  const double r2_over_v = r * r / v;
  return {-0.5 * (std::log(2.0 * std::numbers::pi * v) + r2_over_v), r / v,
          0.5 * (r2_over_v - 1.0) / v};
}

// log Z of eq. 12 for the three noise shapes eqs. 9-10 need: b/(a-1), b/a and b/(a+1) as the
// noise variance that replaces the Student-t's.
struct EvidenceTriple {
  double log_z;
  double log_z1;
  double log_z2;
};

inline EvidenceTriple gaussian_evidence_triple(double y, double m, double v, const Gamma& g) {
  return {gaussian_log_z(y, m, v + g.b / (g.a - 1.0)).value,
          gaussian_log_z(y, m, v + g.b / g.a).value,
          gaussian_log_z(y, m, v + g.b / (g.a + 1.0)).value};
}

}  // namespace pbp::trainer
