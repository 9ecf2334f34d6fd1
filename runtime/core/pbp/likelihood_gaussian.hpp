// SPDX-License-Identifier: Apache-2.0
// The regression task's Gaussian likelihood (Hernandez-Lobato & Adams 2015): its predictive from
// the output moments z ~ N(nu, psi) of one forward pass, and its traits for the likelihood table
// (likelihoods.hpp, runtime/ADDING.md), with what every regression likelihood's predictive returns
// and reads. The one copy: the runtime runs it in float (pbp_predict), the trainer in double. No
// libm, no heap.
#pragma once
#include <stdint.h>

#include "pbp/math.hpp"
#include "pbp/pbp.h"

namespace pbp {
namespace outputs {

// Regression: Gaussian likelihood whose precision has a Gamma(a, b) posterior, in standardised
// target units. The paper replaces the Student-t predictive by a Gaussian with the noise variance
// b / (a - 1) (also the variance estimate of any Gamma on a precision: the trainer's priors).
template <class T>
inline T gamma_variance(T a, T b) {
  return b / (a - T(1));
}

template <class T>
struct RegressionMoments {
  T mean;                // in target units
  T epistemic_variance;  // scale psi target_std^2: from the weights' uncertainty
  T aleatoric_variance;  // the noise's variance in target units
};

// What a regression predictive reads of the model besides its output moments (pbp_model's fields
// of the same names; the trainer's Model).
template <class T>
struct RegressionModel {
  T epistemic_scale;  // 1 unless the likelihood's model section carries it
  T noise_a, noise_b;
  T target_mean, target_std;
};

// The predictive of output z ~ N(nu, psi) in target units: y = z target_std + target_mean, with
// psi times the model's epistemic scale (1 unless the likelihood is gaussian_epistemic_scaled).
template <class T>
inline RegressionMoments<T> regression_moments(T nu, T psi, T epistemic_scale, T noise_a, T noise_b,
                                               T target_mean, T target_std) {
  const T target_variance = target_std * target_std;
  return {nu * target_std + target_mean, epistemic_scale * psi * target_variance,
          gamma_variance(noise_a, noise_b) * target_variance};
}

}  // namespace outputs

struct GaussianEpistemicScaledLikelihood;

// Regression with one noise variance, b / (a - 1) from the model's Gamma: the predictive every
// regression likelihood without one of its own takes (likelihoods.hpp's regression_predictive).
struct GaussianLikelihood {
  static constexpr uint32_t kId = PBP_LIKELIHOOD_GAUSSIAN;
  static constexpr uint32_t kTask = PBP_TASK_REGRESSION;
  static constexpr uint32_t kOutputs = 1;
  static constexpr bool kEpistemicScale = false;
  // What the trainer's writer stores for a model whose epistemic scale is not 1.
  using WithEpistemicScale = GaussianEpistemicScaledLikelihood;
  template <class T>
  static outputs::RegressionMoments<T> predictive(const T* nu, const T* psi,
                                                  const outputs::RegressionModel<T>& model) {
    return outputs::regression_moments(nu[0], psi[0], model.epistemic_scale, model.noise_a,
                                       model.noise_b, model.target_mean, model.target_std);
  }
};

// The same predictive with the epistemic variance times the model section's scale, set with the
// noise from held-out rows (pbp.h's PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED).
struct GaussianEpistemicScaledLikelihood : GaussianLikelihood {
  static constexpr uint32_t kId = PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED;
  static constexpr bool kEpistemicScale = true;
};

}  // namespace pbp
