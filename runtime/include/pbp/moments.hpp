// Forward moment propagation of PBP (Hernandez-Lobato & Adams 2015, eqs. 13-17): the one copy of
// these equations. The runtime instantiates it in float, the trainer in double (and adds the
// backward pass on top of the intermediates returned here).
#pragma once
#include <stdint.h>

#include "pbp/math.hpp"

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
      sum_mean += mw[k] * mz;
      if constexpr (kExactInput) {
        sum_var += vw[k] * (mz * mz);
      } else {
        const T vz = z_var[k];
        sum_var += vw[k] * (mz * mz + vz) + (mw[k] * mw[k]) * vz;
      }
    }
    sum_mean += mw[w.inputs];  // bias: m_z = 1, v_z = 0
    sum_var += vw[w.inputs];
    a_mean[j] = sum_mean * scale.mean;
    a_var[j] = sum_var * scale.variance;
  }
}

// Below this standardised mean the ratio phi/Phi is replaced by its asymptotic series, as the
// reference implementation does (and its derivative is taken of the series, not of the ratio).
template <class T>
inline constexpr T kReluAsymptoteBelow = T(-30);

// Moments of z = max(0, a) for a ~ N(m, v), and the intermediates the backward pass reuses.
template <class T>
struct ReluMoments {
  T mean;
  T variance;
  T sd;         // sqrt(v)
  T alpha;      // m / sqrt(v)
  T cdf;        // Phi(alpha)
  T cdf_minus;  // Phi(-alpha)
  T gamma;      // phi(alpha)/Phi(alpha), or its series when alpha < -30
};

// Eqs. 15-17 of the paper: alpha = m/sqrt(v), gamma = phi(alpha)/Phi(alpha),
//   m_z = Phi(alpha) (m + sqrt(v) gamma),
//   v_z = m_z (m + sqrt(v) gamma) Phi(-alpha) + Phi(alpha) v (1 - gamma^2 - gamma alpha).
// Valid for finite m and v > 0; v == 0 gives the deterministic ReLU.
template <class T>
inline ReluMoments<T> relu_moments(T m, T v) {
  ReluMoments<T> r{};
  if (!(v > T(0))) {
    r.mean = m > T(0) ? m : T(0);
    r.variance = T(0);
    r.alpha = m > T(0) ? math::infinity<T>() : -math::infinity<T>();
    r.cdf = m > T(0) ? T(1) : T(0);
    r.cdf_minus = T(1) - r.cdf;
    return r;
  }
  r.sd = math::sqrt(v);
  r.alpha = m / r.sd;
  r.cdf = math::normal_cdf(r.alpha);
  r.cdf_minus = math::normal_cdf(-r.alpha);
  if (r.alpha < kReluAsymptoteBelow<T>) {
    const T inv = T(1) / r.alpha;
    r.gamma = -r.alpha - inv + T(2) * inv * inv * inv;
  } else {
    r.gamma = math::normal_pdf_over_cdf(r.alpha);
  }
  const T shifted = m + r.sd * r.gamma;  // E[a | a > 0]
  r.mean = r.cdf * shifted;
  r.variance =
      r.mean * shifted * r.cdf_minus + r.cdf * v * (T(1) - r.gamma * r.gamma - r.gamma * r.alpha);
  // The closed form can round slightly below zero where the unit is almost surely off.
  if (r.variance < T(0)) r.variance = T(0);
  return r;
}

// Applies relu_moments in place to `count` units.
template <class T>
inline void relu_moments_inplace(uint32_t count, T* mean, T* var) {
  for (uint32_t j = 0; j < count; ++j) {
    const ReluMoments<T> r = relu_moments(mean[j], var[j]);
    mean[j] = r.mean;
    var[j] = r.variance;
  }
}

// Workspace a network pass needs, in elements of T: two mean/variance pairs of the widest layer.
inline constexpr uint32_t network_workspace_elements(uint32_t max_width) {
  return 4u * max_width;
}

// Predictive moments of the network output for an exact (standardised) input x: ReLU after every
// layer but the last, which is linear. `workspace` holds network_workspace_elements(max_width) T's,
// where max_width is the largest `outputs` of any layer; out_mean/out_var get the last layer's
// `outputs` values. Valid for layer_count >= 1 and layers that chain (inputs == previous outputs).
template <class T>
inline void network_moments(const LayerWeights<T>* layers, uint32_t layer_count, const T* x,
                            T* workspace, uint32_t max_width, T* out_mean, T* out_var) {
  T* mean[2] = {workspace, workspace + 2 * max_width};
  T* var[2] = {workspace + max_width, workspace + 3 * max_width};
  linear_moments<T, true>(layers[0], x, nullptr, mean[0], var[0]);
  uint32_t current = 0;
  for (uint32_t l = 1; l < layer_count; ++l) {
    relu_moments_inplace(layers[l - 1].outputs, mean[current], var[current]);
    linear_moments<T, false>(layers[l], mean[current], var[current], mean[1 - current],
                             var[1 - current]);
    current = 1 - current;
  }
  for (uint32_t j = 0; j < layers[layer_count - 1].outputs; ++j) {
    out_mean[j] = mean[current][j];
    out_var[j] = var[current][j];
  }
}

}  // namespace pbp
