// SPDX-License-Identifier: Apache-2.0
// One PBP update of a whole network held row-major, as the blob lays it out (the runtime's
// learner; the tests instantiate it in double): forward moments keeping the intermediates, then,
// from d log Z / d (m, v) of the output, every unit's gradient with the weights unchanged, then
// eqs. 6-7 on every weight. The trainer runs the same equations (backward.hpp and the rest of
// learn/) over its own vectorised layouts. Sums run in source order; no libm, no heap.
#pragma once
#include <stdint.h>

#include "pbp/learn/backward.hpp"
#include "pbp/learn/gaussian_update.hpp"
#include "pbp/moments.hpp"

namespace pbp::learn {

// One dense layer whose weights an update changes: row-major [outputs][inputs + 1], bias last.
template <class T>
struct MutableLayer {
  T* mean;
  T* variance;
  uint32_t inputs;
  uint32_t outputs;
  uint32_t activation;  // PBP_ACTIVATION_*, of a hidden layer
};

// The workspace: the standardised input (inputs values), then 10 arrays of `outputs` values per
// layer: pre-activation moments a, unit moments z after the activation (hidden layers), the
// activation's Jacobian, and d log Z / d (m_a, v_a).
inline constexpr uint32_t kUpdateArraysPerUnit = 10;
inline constexpr uint32_t update_workspace_elements(uint32_t inputs, uint32_t units) {
  return inputs + kUpdateArraysPerUnit * units;
}

template <class T>
struct UnitArrays {
  T *a_mean, *a_var, *z_mean, *z_var;
  T *jac_mean_by_mean, *jac_mean_by_var, *jac_var_by_mean, *jac_var_by_var;
  T *grad_mean, *grad_var;
};

template <class T>
inline UnitArrays<T> unit_arrays(const MutableLayer<T>* layers, T* workspace, uint32_t l) {
  T* p = workspace + layers[0].inputs;
  for (uint32_t i = 0; i < l; ++i) p += kUpdateArraysPerUnit * layers[i].outputs;
  const uint32_t n = layers[l].outputs;
  return {p,         p + n,     p + 2 * n, p + 3 * n, p + 4 * n,
          p + 5 * n, p + 6 * n, p + 7 * n, p + 8 * n, p + 9 * n};
}

template <class T>
inline LayerWeights<T> weights_of(const MutableLayer<T>& layer) {
  return {layer.mean, layer.variance, layer.inputs, layer.outputs};
}

// Forward pass from the standardised input in workspace[0 .. inputs), keeping every
// intermediate: the same sums and activations as a prediction (network_moments_from), so the
// output moments are its bits. Returns the last layer's arrays (a_mean, a_var: the output).
template <class T>
inline UnitArrays<T> forward_with_intermediates(const MutableLayer<T>* layers, uint32_t count,
                                                T* workspace) {
  const T* z_mean = workspace;
  const T* z_var = nullptr;
  UnitArrays<T> u{};
  for (uint32_t l = 0; l < count; ++l) {
    u = unit_arrays(layers, workspace, l);
    if (l == 0) {
      linear_moments<T, true>(weights_of(layers[l]), z_mean, nullptr, u.a_mean, u.a_var);
    } else {
      linear_moments<T, false>(weights_of(layers[l]), z_mean, z_var, u.a_mean, u.a_var);
    }
    if (l + 1 == count) break;
    for (uint32_t j = 0; j < layers[l].outputs; ++j) {
      const ActivationJacobian<T> jac = activation_moments_and_jacobian(
          layers[l].activation, u.a_mean[j], u.a_var[j], &u.z_mean[j], &u.z_var[j]);
      u.jac_mean_by_mean[j] = jac.mean_by_mean;
      u.jac_mean_by_var[j] = jac.mean_by_var;
      u.jac_var_by_mean[j] = jac.var_by_mean;
      u.jac_var_by_var[j] = jac.var_by_var;
    }
    z_mean = u.z_mean;
    z_var = u.z_var;
  }
  return u;
}

// d log Z / d (m_a, v_a) of every hidden unit from the output layer's (its grad arrays set by
// the caller), the weights unchanged: each input's sums over the outputs in row order. False,
// as soon as one is found, if any is not finite.
template <class T>
inline bool backward_gradients(const MutableLayer<T>* layers, uint32_t count, T* workspace) {
  for (uint32_t l = count; l-- > 1;) {
    const UnitArrays<T> above = unit_arrays(layers, workspace, l);
    const UnitArrays<T> below = unit_arrays(layers, workspace, l - 1);
    const MutableLayer<T>& w = layers[l];
    const LayerScale<T> scale = layer_scale<T>(w.inputs);
    const uint32_t row = w.inputs + 1u;
    for (uint32_t k = 0; k < w.inputs; ++k) {
      InputGradientSums<T> sums{T(0), T(0), T(0)};
      for (uint32_t j = 0; j < w.outputs; ++j) {
        const InputGradientSums<T> t = input_gradient_terms(
            above.grad_mean[j] * scale.mean, above.grad_var[j] * scale.variance,
            w.mean[j * row + k], w.variance[j * row + k]);
        sums = j == 0 ? t
                      : InputGradientSums<T>{sums.mean_by_mean + t.mean_by_mean,
                                             sums.mean_by_var + t.mean_by_var, sums.var + t.var};
      }
      const ActivationJacobian<T> jac{below.jac_mean_by_mean[k], below.jac_mean_by_var[k],
                                      below.jac_var_by_mean[k], below.jac_var_by_var[k]};
      unit_gradients(sums.mean_by_mean, sums.mean_by_var, sums.var, below.z_mean[k], jac,
                     &below.grad_mean[k], &below.grad_var[k]);
      if (!math::is_finite(below.grad_mean[k]) || !math::is_finite(below.grad_var[k])) {
        return false;
      }
    }
  }
  return true;
}

// d log Z / d (m, v) of a weight and eq. 7's curvature term.
template <class T>
struct WeightGradient {
  T mean;
  T variance;
  T curvature;
};

// What the weight gradients of layer l read, once per layer: its inputs' moments (layer 0: the
// exact standardised input, as the trainer's first layer) and the unit gradients scaled by the
// layer's LayerScale.
template <class T>
struct LayerGradients {
  const T* z_mean;
  const T* z_var;  // null for layer 0
  UnitArrays<T> units;
  LayerScale<T> scale;
  uint32_t inputs;
};
template <class T>
inline LayerGradients<T> layer_gradients(const MutableLayer<T>* layers, T* workspace, uint32_t l) {
  const UnitArrays<T> below = l == 0 ? UnitArrays<T>{} : unit_arrays(layers, workspace, l - 1);
  return {l == 0 ? workspace : below.z_mean, l == 0 ? nullptr : below.z_var,
          unit_arrays(layers, workspace, l), layer_scale<T>(layers[l].inputs), layers[l].inputs};
}

// Per output unit j: a = c_m d log Z / d m_a, b = c_v d log Z / d v_a, and a^2 - 2 b.
template <class T>
struct UnitGradient {
  T a;
  T b;
  T curvature;
};
template <class T>
inline UnitGradient<T> unit_gradient(const LayerGradients<T>& g, uint32_t j) {
  const T a = g.units.grad_mean[j] * g.scale.mean;
  const T b = g.units.grad_var[j] * g.scale.variance;
  return {a, b, update_curvature(a, b)};
}

// The weight from input k (k == inputs: the bias, m_z = 1, v_z = 0) with mean m.
template <class T>
inline WeightGradient<T> weight_gradient(const LayerGradients<T>& g, const UnitGradient<T>& u,
                                         uint32_t k, T m) {
  const bool bias = k == g.inputs;
  const T mz = bias ? T(1) : g.z_mean[k];
  if (g.z_var == nullptr) {  // exact input
    const T sz = mz * mz;
    return {exact_input_gradient_mean(u.a, mz), weight_gradient_variance(u.b, sz),
            exact_input_curvature(u.curvature, sz)};
  }
  const T vz = bias ? T(0) : g.z_var[k];
  const T g_mean = weight_gradient_mean(u.a, u.b, m, mz, vz);
  const T g_var = weight_gradient_variance(u.b, mz * mz + vz);
  return {g_mean, g_var, update_curvature(g_mean, g_var)};
}

// Eqs. 6-7 on every weight from the unit gradients backward_gradients left; a weight whose new
// variance is not usable keeps its moments (as the trainer). Returns the number kept.
template <class T>
inline uint32_t update_weights(const MutableLayer<T>* layers, uint32_t count, T* workspace) {
  uint32_t skipped = 0;
  for (uint32_t l = 0; l < count; ++l) {
    const MutableLayer<T>& layer = layers[l];
    const LayerGradients<T> g = layer_gradients(layers, workspace, l);
    const uint32_t row = layer.inputs + 1u;
    for (uint32_t j = 0; j < layer.outputs; ++j) {
      const UnitGradient<T> u = unit_gradient(g, j);
      T* mean = layer.mean + j * row;
      T* variance = layer.variance + j * row;
      for (uint32_t k = 0; k < row; ++k) {
        const WeightGradient<T> w = weight_gradient(g, u, k, mean[k]);
        const GaussianMoments<T> next =
            gaussian_update_with_curvature(mean[k], variance[k], w.mean, w.curvature);
        if (usable_update(next)) {
          mean[k] = next.mean;
          variance[k] = next.variance;
        } else {
          ++skipped;
        }
      }
    }
  }
  return skipped;
}

}  // namespace pbp::learn
