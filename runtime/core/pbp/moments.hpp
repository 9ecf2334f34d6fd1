// SPDX-License-Identifier: Apache-2.0
// Forward moment propagation of PBP (Hernandez-Lobato & Adams 2015, eqs. 13-17): the one copy of
// these equations. The runtime instantiates it in float, the trainer in double (and adds the
// backward pass on top of the intermediates returned here; its working layouts and vectorised
// sums over these terms are its own: trainer/include/pbp/trainer/working_layouts.hpp).
#pragma once
#include <stdint.h>

#include "pbp/activations.hpp"
#include "pbp/loop_hints.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp.h"

namespace pbp {

// One dense layer's weights: row-major [outputs][inputs + 1], the bias weight last in each row.
template <class T>
struct LayerWeights {
  const T* mean;
  const T* variance;
  uint32_t inputs;
  uint32_t outputs;
};

// Scale factors of a layer with `inputs` inputs: pre-activations are divided by sqrt(inputs + 1)
// (the bias unit counts), so the variance is divided by inputs + 1.
template <class T>
struct LayerScale {
  T mean;      // 1 / sqrt(inputs + 1)
  T variance;  // 1 / (inputs + 1)
};

template <class T>
inline LayerScale<T> layer_scale(uint32_t inputs) {
  const T n = static_cast<T>(inputs) + T(1);
  return {T(1) / math::sqrt(n), T(1) / n};
}

// The terms one weight w ~ N(m_w, v_w) and one input z ~ N(m_z, v_z) add to the sums of
// linear_moments: m_w m_z, and v_w (m_z^2 + v_z) + m_w^2 v_z (v_w m_z^2 for an exact input).
template <class T>
inline T mean_term(T mw, T mz) {
  return mw * mz;
}
template <class T, bool kExactInput>
inline T variance_term(T mw, T vw, T mz, T vz) {
  if constexpr (kExactInput) {
    return vw * (mz * mz);
  } else {
    return vw * (mz * mz + vz) + (mw * mw) * vz;
  }
}

// Pre-activation moments a = W z / sqrt(n + 1) for z ~ N(z_mean, z_var) elementwise, W ~ q:
//   m_a = sum(m_w m_z) / sqrt(n+1),  v_a = sum(m_w^2 v_z + v_w m_z^2 + v_w v_z) / (n+1).
// The bias input has mean 1 and variance 0. With kExactInput (the network's inputs, whose
// variance is zero) z_var is not read. Sums run left to right: the order is part of the
// bit-exact contract of the runtime.
// Valid for any inputs, outputs >= 1; z_var may be null when kExactInput.
template <class T, bool kExactInput>
inline void linear_moments(const LayerWeights<T>& w, const T* z_mean, const T* z_var, T* a_mean,
                           T* a_var) {
  const LayerScale<T> scale = layer_scale<T>(w.inputs);
  const uint32_t row_length = w.inputs + 1;
  for (uint32_t j = 0; j < w.outputs; ++j) {
    const T* mw = w.mean + j * row_length;
    const T* vw = w.variance + j * row_length;
    T sum_mean = T(0);
    T sum_var = T(0);
    for (uint32_t k = 0; k < w.inputs; ++k) {
      const T mz = z_mean[k];
      sum_mean += mean_term(mw[k], mz);
      sum_var += variance_term<T, kExactInput>(mw[k], vw[k], mz, kExactInput ? T(0) : z_var[k]);
    }
    sum_mean += mw[w.inputs];  // bias: m_z = 1, v_z = 0
    sum_var += vw[w.inputs];
    a_mean[j] = sum_mean * scale.mean;
    a_var[j] = sum_var * scale.variance;
  }
}

// Workspace a network pass needs, in elements of T: two mean/variance pairs of the widest layer.
inline constexpr uint32_t network_workspace_elements(uint32_t max_width) {
  return 4u * max_width;
}

// Where a layer type runs a hidden layer's activation and the next layer's sums as one step (the
// runtime's int8 layers, in fixed point: stored_weights.hpp), its overload, found by
// argument-dependent lookup, does so and returns true; every other type takes the two steps.
template <class Layer, class T>
inline bool activation_and_linear_moments(const Layer&, uint32_t, const Layer&, T*, T*, T*, T*) {
  return false;
}

// Predictive moments of the network output for an exact (standardised) input x: the activation
// `activation_at(l)` after every layer l but the last, which is linear. `workspace` holds
// network_workspace_elements(max_width) T's, where max_width is the largest `outputs` of any
// layer; out_mean/out_var get the last layer's `outputs` values (both null: they stay in the
// workspace, in the buffer returned: means from it, variances from it + max_width; the other half
// of the workspace, 2 max_width T's, is then free). Valid for layer_count >= 1 and layers that
// chain (inputs == previous outputs). `layer_at(l)` returns layer l's LayerWeights<T>: a device
// passes an accessor over its model view, so no array of per-layer views is built on the stack.
template <class T, class LayerAt, class ActivationAt>
inline T* network_moments_from(const LayerAt& layer_at, const ActivationAt& activation_at,
                               uint32_t layer_count, const T* x, T* workspace, uint32_t max_width,
                               T* out_mean, T* out_var) {
  // Two buffers of 2 max_width each (mean, then variance), swapped after each layer.
  T* in = workspace;
  T* out = workspace + 2 * max_width;
  linear_moments<T, true>(layer_at(0), x, nullptr, in, in + max_width);
  for (uint32_t l = 1; l < layer_count; ++l) {
    if (!activation_and_linear_moments(layer_at(l - 1), activation_at(l - 1), layer_at(l), in,
                                       in + max_width, out, out + max_width)) {
      activation_moments_inplace(activation_at(l - 1), layer_at(l - 1).outputs, in, in + max_width);
      linear_moments<T, false>(layer_at(l), in, in + max_width, out, out + max_width);
    }
    T* const done = in;
    in = out;
    out = done;
  }
  if (out_mean != nullptr) {
    const uint32_t outputs = layer_at(layer_count - 1).outputs;
    for (uint32_t j = 0; j < outputs; ++j) {
      out_mean[j] = in[j];
      out_var[j] = in[max_width + j];
    }
  }
  return in;
}

// The same over an array of layer views and one of their activations (PBP_ACTIVATION_*).
template <class T>
inline void network_moments(const LayerWeights<T>* layers, const uint32_t* activations,
                            uint32_t layer_count, const T* x, T* workspace, uint32_t max_width,
                            T* out_mean, T* out_var) {
  network_moments_from<T>([layers](uint32_t l) { return layers[l]; },
                          [activations](uint32_t l) { return activations[l]; }, layer_count, x,
                          workspace, max_width, out_mean, out_var);
}

}  // namespace pbp
