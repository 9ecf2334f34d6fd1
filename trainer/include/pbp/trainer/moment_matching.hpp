// SPDX-License-Identifier: Apache-2.0
// The moment-matching rules PBP applies to every factor it incorporates, in double for the
// trainer: the Gaussian update of eqs. 6-7 and the Gamma update of eqs. 9-10 (Hernandez-Lobato &
// Adams 2015). Both the likelihood (ADF) and the prior refinement (EP) use these. The equations
// themselves are written once in runtime/core/pbp/learn/ (the device's learner runs them in
// float); these are their double instantiations under the trainer's names.
#pragma once
#include <optional>

#include "pbp/learn/gamma_update.hpp"
#include "pbp/learn/gaussian_update.hpp"
#include "pbp/learn/likelihood_gradients.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

using GaussianMoments = learn::GaussianMoments<double>;

inline double update_curvature(double dlogz_dm, double dlogz_dv) {
  return learn::update_curvature(dlogz_dm, dlogz_dv);
}

// Fused multiply-adds where the target has them: the update loops' main cost.
inline GaussianMoments gaussian_update_with_curvature(double m, double v, double dlogz_dm,
                                                      double curvature) {
  return learn::gaussian_update_with_curvature(m, v, dlogz_dm, curvature);
}

inline GaussianMoments gaussian_update(double m, double v, double dlogz_dm, double dlogz_dv) {
  return learn::gaussian_update(m, v, dlogz_dm, dlogz_dv);
}

// Positive (> 1e-100, as the reference) and finite.
inline bool usable_update(const GaussianMoments& g) {
  return learn::usable_update(g);
}

// Eqs. 9-10 from Z1/Z and Z2 Z / Z1^2 - 1; empty if the result is not a proper Gamma.
inline std::optional<Gamma> gamma_update(const Gamma& g, double z1_over_z, double rho_minus_one) {
  learn::GammaParameters<double> next{};
  if (!learn::gamma_update<double>({g.a, g.b}, z1_over_z, rho_minus_one, &next)) {
    return std::nullopt;
  }
  return Gamma{next.a, next.b};
}

// log N(y | m, v) and its derivatives with respect to m and v: eq. 12's Gaussian evidence.
using GaussianLogZ = learn::LogZ<double>;
inline GaussianLogZ gaussian_log_z(double y, double m, double v) {
  return learn::gaussian_log_z(y, m, v);
}

// The noise Gamma g after a point y with output moments (m, v) under eq. 12's Gaussian evidence
// (eqs. 9-10); empty if not a proper Gamma.
inline std::optional<Gamma> gaussian_gamma_update(const Gamma& g, double y, double m, double v) {
  const learn::EvidenceRatios<double> z = learn::gaussian_evidence_ratios(y, m, v, g.a, g.b);
  return gamma_update(g, z.z1_over_z, z.rho_minus_one);
}

}  // namespace pbp::trainer
