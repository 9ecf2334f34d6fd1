// SPDX-License-Identifier: Apache-2.0
// The regression task's heteroscedastic Gaussian likelihood (trainer/src/
// likelihood_heteroscedastic.cpp trains it): its predictive and its traits for the likelihood
// table (likelihoods.hpp, runtime/ADDING.md). The one copy: the runtime runs it in float
// (pbp_predict), the trainer in double. No libm, no heap.
//
// Its build flag, PBP_WITH_HETEROSCEDASTIC (pbp/pbp_config.h, "Likelihoods"): built unless a
// device build leaves it out (CMake: -DPBP_RUNTIME_LIKELIHOODS=""); the default for builds
// without CMake's pbp_config.h.
#pragma once
#include <stdint.h>

#include "pbp/likelihood_gaussian.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp.h"

#ifndef PBP_WITH_HETEROSCEDASTIC
#define PBP_WITH_HETEROSCEDASTIC 1
#endif

namespace pbp {
namespace outputs {

// Output f ~ N(nu_f, psi_f) is the mean, g ~ N(nu_g, psi_g) the log noise variance (standardised
// units), y ~ N(f, e^g). The predictive's moments: mean nu_f, epistemic variance psi_f (times the
// model's scale), aleatoric variance E[e^g] = exp(nu_g + psi_g / 2) (the log-normal mean), all in
// target units.
template <class T>
inline RegressionMoments<T> heteroscedastic_moments(T nu_f, T psi_f, T nu_g, T psi_g,
                                                    T epistemic_scale, T target_mean,
                                                    T target_std) {
  const T target_variance = target_std * target_std;
  return {nu_f * target_std + target_mean, epistemic_scale * psi_f * target_variance,
          math::exp(nu_g + psi_g * T(0.5)) * target_variance};
}

}  // namespace outputs

struct HeteroscedasticLikelihood {
  static constexpr uint32_t kId = PBP_LIKELIHOOD_GAUSSIAN_HETEROSCEDASTIC;
  static constexpr uint32_t kTask = PBP_TASK_REGRESSION;
  static constexpr uint32_t kOutputs = 2;
  static constexpr bool kEpistemicScale = true;
  template <class T>
  static outputs::RegressionMoments<T> predictive(const T* nu, const T* psi,
                                                  const outputs::RegressionModel<T>& model) {
    return outputs::heteroscedastic_moments(nu[0], psi[0], nu[1], psi[1], model.epistemic_scale,
                                            model.target_mean, model.target_std);
  }
};

}  // namespace pbp
