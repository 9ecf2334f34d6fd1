// SPDX-License-Identifier: Apache-2.0
// Forward moment propagation of PBP (Hernandez-Lobato & Adams 2015, eqs. 13-17): the one copy of
// these equations. The runtime instantiates it in float, the trainer in double (and adds the
// backward pass on top of the intermediates returned here; its working layouts and vectorised
// sums over these terms are its own: trainer/include/pbp/trainer/working_layouts.hpp).
#pragma once
#include <stdint.h>

#include "pbp/activation_erf.hpp"
#include "pbp/activation_sign.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp.h"

// "These arrays never overlap" for a loop, for GCC's vectoriser (clang has no GCC ivdep, and its
// own hint warns wherever it cannot vectorise: left out).
#if defined(__GNUC__) && !defined(__clang__)
#define PBP_LOOP_ARRAYS_DISJOINT _Pragma("GCC ivdep")
#else
#define PBP_LOOP_ARRAYS_DISJOINT
#endif

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

// Below this standardised mean the ratio phi/Phi is replaced by its asymptotic series, as the
// reference implementation does (and its derivative is taken of the series, not of the ratio).
template <class T>
inline constexpr T kReluAsymptoteBelow = T(-30);

namespace detail {
// Phi(alpha), Phi(-alpha) and phi/Phi for the ReLU moments: the uncompensated variants (float:
// a few ulp instead of <= 2.6, its results only need to agree with the trainer's to 1e-5;
// double: <= 12.5 ulp), since the ReLU units are most of a prediction's and of a training
// update's cost.
inline math::NormalTails<float> relu_tails(float alpha) {
  return math::detail::normal_tails_fast(alpha);
}
inline math::NormalTails<double> relu_tails(double alpha) {
  return math::detail::normal_tails_fast(alpha);
}
}  // namespace detail

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
  T pdf;        // phi(alpha)
};

// relu_moments in stages, so that a caller can run them as separate loops (each vectorised loop's
// dependency chain then about half as long, and the rare series branch left to a scalar pass):
// sd and alpha = m / sd, the normal tails at alpha, gamma, then the moments.
template <class T>
inline T relu_sd(T v) {
  // 1 for v == 0 (the deterministic ReLU ignores alpha); NaN stays NaN.
  return math::sqrt(v <= T(0) ? T(1) : v);
}
template <class T>
inline T relu_alpha(T m, T sd) {
  return m / sd;
}

// gamma = phi(alpha)/Phi(alpha), or its asymptotic series -alpha - 1/alpha + 2/alpha^3 below
// kReluAsymptoteBelow.
template <class T>
inline bool relu_in_series_branch(T alpha) {
  return alpha < kReluAsymptoteBelow<T>;
}
template <class T>
inline T relu_gamma(T alpha, const math::NormalTails<T>& tails) {
  const T inv = T(1) / alpha;
  const T series = -alpha - inv + T(2) * inv * inv * inv;
  return relu_in_series_branch(alpha) ? series : tails.pdf_over_cdf;
}

// Eqs. 15-17 of the paper: alpha = m/sqrt(v), gamma = phi(alpha)/Phi(alpha),
//   m_z = Phi(alpha) (m + sqrt(v) gamma),
//   v_z = m_z (m + sqrt(v) gamma) Phi(-alpha) + Phi(alpha) v (1 - gamma^2 - gamma alpha),
// given sd, alpha and the tails at alpha (the stages above); gamma is relu_gamma's, or with
// kRatioOnly the ratio alone (right for alpha >= -30: a caller that handles the series branch
// apart). Valid for finite m and v >= 0; v == 0 gives the deterministic ReLU. Branch-free
// (selects only), so that a loop over units vectorises; lanes not selected may hold NaN
// harmlessly. Non-finite in, non-finite out: a NaN or infinite m or v (an overflowed sum), or
// an intermediate that overflows (alpha, gamma^2), gives a NaN or infinite mean or variance,
// never a finite unit that hides it: every select below lets NaN through, and the deterministic
// "off" value is m - m (+0 for finite m, NaN for -inf). Finite cases keep their bits.
template <class T, bool kRatioOnly = false>
__attribute__((always_inline)) inline ReluMoments<T> relu_moments_from(
    T m, T v, T sd, T alpha, const math::NormalTails<T>& tails) {
  ReluMoments<T> r;
  const bool random = !(v <= T(0));  // NaN v takes the closed form, which propagates it
  r.sd = sd;
  r.alpha = alpha;
  r.cdf = tails.cdf;
  r.cdf_minus = tails.cdf_minus;
  r.gamma = kRatioOnly ? tails.pdf_over_cdf : relu_gamma(alpha, tails);
  r.pdf = r.cdf * tails.pdf_over_cdf;
  const T shifted = m + r.sd * r.gamma;  // E[a | a > 0]
  const T mean = r.cdf * shifted;
  const T var =
      mean * shifted * r.cdf_minus + r.cdf * v * (T(1) - r.gamma * r.gamma - r.gamma * r.alpha);
  const bool on = !(m <= T(0));  // NaN counts as on: it passes through as the mean
  r.mean = random ? mean : m - (on ? T(0) : m);
  // The closed form can round slightly below zero where the unit is almost surely off: that
  // becomes var - var = +0 (var is never -0), but -inf (alpha overflowed to +inf) becomes NaN.
  r.variance = random ? var - (var < T(0) ? var : T(0)) : T(0);
  r.sd = random ? r.sd : T(0);
  r.cdf = random ? r.cdf : (on ? T(1) : T(0));
  r.cdf_minus = random ? r.cdf_minus : (on ? T(0) : T(1));
  return r;
}

namespace detail {
// All stages, always inline: relu_moments and relu_mean_variance, each out of line or not.
template <class T>
__attribute__((always_inline)) inline ReluMoments<T> relu_moments_inline(T m, T v) {
  const T sd = relu_sd(v);
  const T alpha = relu_alpha(m, sd);
  return relu_moments_from(m, v, sd, alpha, relu_tails(alpha));
}
}  // namespace detail

// All stages: the moments of z = max(0, a) for a ~ N(m, v). Size builds keep it out of line (the
// footprint of the one-piece function it was); speed builds inline it, so unit loops vectorise.
template <class T>
#if defined(__OPTIMIZE_SIZE__)
__attribute__((noinline))
#endif
inline ReluMoments<T>
relu_moments(T m, T v) {
  return detail::relu_moments_inline(m, v);
}

// A prediction's ReLU: relu_moments' mean and variance alone. Size builds keep it out of line
// too, as a function of its own, so that the intermediates the learner reads are not computed.
template <class T>
struct ReluMeanVariance {
  T mean;
  T variance;
};
template <class T>
#if defined(__OPTIMIZE_SIZE__)
__attribute__((noinline))
#endif
inline ReluMeanVariance<T>
relu_mean_variance(T m, T v) {
  const ReluMoments<T> r = detail::relu_moments_inline(m, v);
  return {r.mean, r.variance};
}

// Applies relu_moments in place to `count` units.
template <class T>
inline void relu_moments_inplace(uint32_t count, T* mean, T* var) {
  // Elementwise and branch-free: where the target has IEEE vector units (x86 SSE, AArch64) this
  // loop vectorises with the same operations per element, hence the same bits.
  PBP_LOOP_ARRAYS_DISJOINT  // mean and var
      for (uint32_t j = 0; j < count; ++j) {
    const ReluMeanVariance<T> r = relu_mean_variance(mean[j], var[j]);
    mean[j] = r.mean;
    var[j] = r.variance;
  }
}

// Workspace a network pass needs, in elements of T: two mean/variance pairs of the widest layer.
inline constexpr uint32_t network_workspace_elements(uint32_t max_width) {
  return 4u * max_width;
}

// Applies a hidden layer's activation (PBP_ACTIVATION_RELU, _ERF or _SIGN: open_model admits no
// other on a hidden layer, nor one this build leaves out (PBP_WITH_*); anything else runs as
// ReLU) in place to `count` units. One test per layer, so the ReLU loop costs what it did.
template <class T>
inline void activation_moments_inplace(uint32_t activation, uint32_t count, T* mean, T* var) {
#if PBP_WITH_ERF
  if (activation == PBP_ACTIVATION_ERF) return erf_moments_inplace(count, mean, var);
#endif
#if PBP_WITH_SIGN
  if (activation == PBP_ACTIVATION_SIGN) return sign_moments_inplace(count, mean, var);
#endif
  (void)activation;
  relu_moments_inplace(count, mean, var);
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
