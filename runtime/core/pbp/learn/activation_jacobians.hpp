// SPDX-License-Identifier: Apache-2.0
// Derivatives of the hidden activations' moment maps (m_a, v_a) -> (m_z, v_z) for the backward
// pass of a PBP update: each activation's header defines its own beside its moments
// (activations.hpp lists them), of the formulas as implemented (ReLU's alpha < -30 series branch
// included). The one copy: double in the trainer, float in the runtime's learner. Closed forms:
// the quadrature in the erf variance is never differentiated, Owen's T has exact partial
// derivatives. No libm. The learner's names for them:
#pragma once

#include "pbp/activations.hpp"
#include "pbp/moments.hpp"

namespace pbp::learn {

using pbp::ActivationJacobian;
using pbp::erf_jacobian;
using pbp::relu_jacobian;
using pbp::relu_jacobian_ratio;
using pbp::relu_jacobian_series;
using pbp::sign_jacobian;

}  // namespace pbp::learn
