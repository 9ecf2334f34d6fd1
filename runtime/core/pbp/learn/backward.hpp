// SPDX-License-Identifier: Apache-2.0
// The per-weight equations of PBP's backward pass (reverse mode from d log Z / d (m_a, v_a) of a
// layer's pre-activations to its weights and inputs; supplement section 1). The one copy: the
// trainer runs them in double over its working layouts, the runtime's learner in float over the
// blob's rows. For one layer with scale (c_m, c_v) = (1/sqrt(n+1), 1/(n+1)):
//   m_a = c_m sum_k m_w m_z,   v_a = c_v sum_k (v_w (m_z^2 + v_z) + m_w^2 v_z)
// and with a = c_m d log Z / d m_a, b = c_v d log Z / d v_a of the weight's output unit.
#pragma once

#include "pbp/learn/activation_jacobians.hpp"

namespace pbp::learn {

// d log Z / d m_w and d log Z / d v_w of the weight (m, v) from input z ~ N(m_z, v_z), s_z =
// m_z^2 + v_z (the bias input: m_z = 1, v_z = 0, s_z = 1).
template <class T>
inline T weight_gradient_mean(T a, T b, T m, T mz, T vz) {
  return a * mz + T(2) * b * m * vz;
}
template <class T>
inline T weight_gradient_variance(T b, T sz) {
  return b * sz;
}
// An exact input (the network's, v_z = 0): d/dm = a m_z, d/dv = b m_z^2, and the curvature term
// (a m_z)^2 - 2 b m_z^2 = m_z^2 (a^2 - 2 b): a^2 - 2 b computed once per output unit.
template <class T>
inline T exact_input_gradient_mean(T a, T mz) {
  return a * mz;
}
template <class T>
inline T exact_input_curvature(T unit_curvature, T sz) {
  return unit_curvature * sz;
}

// One weight's terms of the sums over a layer's outputs j that give d log Z / d (m_z, v_z) of its
// input: sum_j a_j m_w, sum_j b_j v_w and sum_j b_j (v_w + m_w^2), taken before the weight changes.
template <class T>
struct InputGradientSums {
  T mean_by_mean;
  T mean_by_var;
  T var;
};
template <class T>
inline InputGradientSums<T> input_gradient_terms(T a, T b, T m, T v) {
  return {a * m, b * v, b * (v + m * m)};
}

// d log Z / d (m_a, v_a) of the unit below from the sums and its activation's Jacobian:
//   d log Z / d m_z = sum_mm + 2 m_z sum_mv,  d log Z / d v_z = sum_v, through the Jacobian.
template <class T>
inline void unit_gradients(T sum_mm, T sum_mv, T sum_v, T mz, const ActivationJacobian<T>& jac,
                           T* grad_mean, T* grad_var) {
  const T d_mean = sum_mm + T(2) * mz * sum_mv;
  *grad_mean = d_mean * jac.mean_by_mean + sum_v * jac.var_by_mean;
  *grad_var = d_mean * jac.mean_by_var + sum_v * jac.var_by_var;
}

}  // namespace pbp::learn
