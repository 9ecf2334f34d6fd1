// SPDX-License-Identifier: Apache-2.0
// Moments of the ReLU hidden unit z = max(0, a) under a Gaussian pre-activation a ~ N(m, v)
// (Hernandez-Lobato & Adams 2015, eqs. 15-17) and their Jacobian, for the backward pass: of the
// formulas as implemented, including the alpha < -30 series branch. The one copy of these
// equations: the runtime runs them in float, the trainer in double. ReLU is every build's
// default activation (activations.hpp); the runtime's int8 layers also run it in fixed point
// (runtime/src/kernels/relu_moments_fixed.cpp).
#pragma once
#include <stdint.h>

#include "pbp/loop_hints.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp.h"
#include "pbp/relu_nodes.hpp"
#include "pbp/unit_jacobian.hpp"

namespace pbp {

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
PBP_SIZE_NOINLINE inline ReluMoments<T> relu_moments(T m, T v) {
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
PBP_SIZE_NOINLINE inline ReluMeanVariance<T> relu_mean_variance(T m, T v) {
  const ReluMoments<T> r = detail::relu_moments_inline(m, v);
  return {r.mean, r.variance};
}

// The same moments from Phi(alpha) and the partial mean g(alpha) = alpha Phi + phi = E[max(0, a)]
// / sd: m_z = sd g, v_z = v (Phi + g (alpha - g)) (= v (h - g^2), h = alpha g + Phi = E[z^2] / v);
// for v > 0 and finite alpha, as relu_moments_from's closed form (a negative rounding to +0).
template <class T>
inline ReluMeanVariance<T> relu_mean_variance_from_partial(T v, T sd, T alpha, T cdf, T g) {
  const T var = v * (cdf + g * (alpha - g));
  return {sd * g, var - (var < T(0) ? var : T(0))};
}

namespace detail {
// The coefficients at node alpha_i = i/8, i = -48 .. 48 (relu_nodes.hpp): kReluNodeValues' own,
// and kReluNodeSlopes' at |alpha_i|, the odd ones negated below 0 (exact: the same bits).
struct ReluNode {
  float cdf, pdf, cdf_t2, cdf_t3, partial_mean, partial_mean_t3;
};
constexpr ReluNode relu_node_folded(int32_t node) {
  const ReluNodeValues& v = kReluNodeValues[node + 48];
  const ReluNodeSlopes& s = kReluNodeSlopes[node < 0 ? -node : node];
  const bool below = node < 0;
  return {v.cdf,    s.pdf,          below ? -s.cdf_t2 : s.cdf_t2,
          s.cdf_t3, v.partial_mean, below ? -s.partial_mean_t3 : s.partial_mean_t3};
}
// Speed builds read every node whole from a table unfolded at compile time (no selects); size
// builds (-Os) unfold the node they need (768 bytes less rodata, a few instructions more).
struct ReluNodeTable {
  ReluNode entries[kReluNodeCount];
  constexpr ReluNodeTable() : entries{} {
    for (int32_t i = 0; i < kReluNodeCount; ++i) entries[i] = relu_node_folded(i - 48);
  }
};
inline constexpr ReluNodeTable kReluNodes{};

// A float prediction's ReLU (every hidden unit of a float32 or float16 layer, the runtime's
// costliest step after the sums): Phi and g by a third-order Taylor step from the nearest node
// alpha_i = -6 + i/8 (kReluNodes, generated; |t| <= 1/16: remainders below 4e-7 on Phi and 2e-7
// on g, as the int8 layers' fixed-point moments), about 50 instructions a unit on an FPU core
// against relu_moments' 126 (its erfcx, exp and three divisions). Beyond |alpha| >= 6 the
// limits: (m, v) on, 0 off (off by less than 1e-8 sd and v). Absolute errors below ~1e-6 sd
// (mean) and ~1e-5 v (variance), inside the fuzz's float bounds (tests/fuzz/double_reference.cpp);
// plain +-*/ and sqrt and one exact float-to-int step: the same bits on every target.
// Non-finite in, non-finite out as relu_moments_from: a NaN or infinite m or v, or an alpha that
// overflows, gives a NaN or infinite mean or variance; v == 0 is the deterministic ReLU.
__attribute__((always_inline)) inline ReluMeanVariance<float> relu_mean_variance_nodes(float m,
                                                                                       float v) {
  constexpr float kShifter = 0x1.8p23f;  // x + kShifter rounds x (|x| < 2^22) to an integer
  // NaN v takes the random form, which propagates it
  const bool random = !(v <= 0.0f);
  const float sd = math::sqrt(random ? v : 1.0f);
  const float alpha = m / sd;
  const bool inside = __builtin_fabsf(alpha) < 6.0f;  // NaN: outside
  const float eighths = (inside ? alpha : 0.0f) * 8.0f;
  const float shifted = eighths + kShifter;
  const int32_t node = static_cast<int32_t>(math::detail::to_bits(shifted) -
                                            math::detail::to_bits(kShifter));  // -48 .. 48
  const float t = (eighths - (shifted - kShifter)) * 0.125f;  // alpha - alpha_i, |t| <= 1/16
#if defined(__OPTIMIZE_SIZE__)
  const ReluNode n = relu_node_folded(node);
#else
  const ReluNode& n = kReluNodes.entries[node + 48];  // a reference: no copy of the node
#endif
  const float cdf = n.cdf + t * (n.pdf + t * (n.cdf_t2 + t * n.cdf_t3));
  const float g = n.partial_mean + t * (n.cdf + t * (0.5f * n.pdf + t * n.partial_mean_t3));
  const ReluMeanVariance<float> in_table = relu_mean_variance_from_partial(v, sd, alpha, cdf, g);
  // NaN counts as on: it passes through as the mean
  const bool on = !(m <= 0.0f);
  if (!random) return {on ? m : m - m, 0.0f};  // m - m: +0 for finite m, NaN for -inf
  if (inside) return in_table;
  const float edge = alpha - alpha;  // +0, or NaN where alpha is NaN or overflowed
  return {on ? m + edge : edge, on ? v + edge : edge};
}
}  // namespace detail

// A float prediction's ReLU: the node form above.
PBP_SIZE_NOINLINE inline ReluMeanVariance<float> relu_mean_variance(float m, float v) {
  return detail::relu_mean_variance_nodes(m, v);
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

// ReLU, ratio branch (alpha >= -30), gamma = phi/Phi exactly: m_z = m Phi + s phi, E[z^2] =
// (m^2 + v) Phi + m s phi.
template <class T>
inline ActivationJacobian<T> relu_jacobian_ratio(const ReluMoments<T>& r) {
  const T phi_over_s = r.pdf / r.sd;
  return {r.cdf, T(0.5) * phi_over_s, T(2) * r.mean * r.cdf_minus, r.cdf - r.mean * phi_over_s};
}

// ReLU, series branch (alpha < -30): m_z = s g(alpha), v_z = s^2 h(alpha) with gamma(alpha) =
// -a - 1/a + 2/a^3.
template <class T>
inline ActivationJacobian<T> relu_jacobian_series(const ReluMoments<T>& r) {
  const T one = T(1);
  const T s = r.sd;
  const T alpha = r.alpha;
  const T phi = r.pdf;
  const T inv = one / alpha;
  const T gamma = r.gamma;
  const T dgamma = -one + inv * inv - T(6) * inv * inv * inv * inv;
  const T shift = alpha + gamma;
  const T g = r.cdf * shift;
  const T dg = phi * shift + r.cdf * (one + dgamma);
  const T k = shift * shift * r.cdf_minus + one - gamma * shift;
  const T dk = T(2) * shift * (one + dgamma) * r.cdf_minus - shift * shift * phi - dgamma * shift -
               gamma * (one + dgamma);
  const T h = r.cdf * k;
  const T dh = phi * k + r.cdf * dk;
  // alpha = m / s: d alpha/dm = 1/s, d alpha/dv = -alpha / (2v), ds/dv = 1 / (2s).
  return {dg, (g - alpha * dg) / (T(2) * s), s * dh, h - T(0.5) * alpha * dh};
}

// By the branch relu_moments took (both computed, one selected).
template <class T>
inline ActivationJacobian<T> relu_jacobian(const ReluMoments<T>& r) {
  const ActivationJacobian<T> ratio = relu_jacobian_ratio(r);
  const ActivationJacobian<T> series = relu_jacobian_series(r);
  const bool in_series = relu_in_series_branch(r.alpha);
  return {in_series ? series.mean_by_mean : ratio.mean_by_mean,
          in_series ? series.mean_by_var : ratio.mean_by_var,
          in_series ? series.var_by_mean : ratio.var_by_mean,
          in_series ? series.var_by_var : ratio.var_by_var};
}

// The activation table's entry (activations.hpp).
struct ReluActivation {
  static constexpr uint32_t kId = PBP_ACTIVATION_RELU;
  template <class T>
  static void moments_inplace(uint32_t count, T* mean, T* var) {
    relu_moments_inplace(count, mean, var);
  }
  template <class T>
  static ActivationJacobian<T> moments_and_jacobian(T m, T v, T* mean, T* var) {
    const ReluMoments<T> r = relu_moments(m, v);
    *mean = r.mean;
    *var = r.variance;
    return relu_jacobian(r);
  }
  // d m_z / d m_a with the moments, for any v >= 0 (the CLI's sensitivities,
  // tools/pbp/variance_reduction.cpp).
  template <class T>
  static T moments_and_mean_slope(T m, T v, T* mean, T* var) {
    const ReluMoments<T> r = relu_moments(m, v);
    *mean = r.mean;
    *var = r.variance;
    return r.cdf;  // d/dm of Phi(alpha)(m + sd gamma) is Phi(alpha), either branch
  }
};

}  // namespace pbp
