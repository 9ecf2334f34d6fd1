// SPDX-License-Identifier: Apache-2.0
// The Jacobian of a hidden activation's moment map (m_a, v_a) -> (m_z, v_z), which each
// activation header (activations.hpp lists them) defines beside its moments, for the backward
// pass of a PBP update: double in the trainer, float in the runtime's learner.
#pragma once

namespace pbp {

// Every activation's Jacobian is valid for v > 0, which an update guarantees: every weight
// variance stays positive and the bias weight alone makes v_a positive. Each is branch-free, so
// that a loop over units vectorises.
template <class T>
struct ActivationJacobian {
  T mean_by_mean, mean_by_var, var_by_mean, var_by_var;
};

}  // namespace pbp
