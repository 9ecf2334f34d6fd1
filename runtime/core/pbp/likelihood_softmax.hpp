// SPDX-License-Identifier: Apache-2.0
// The multiclass task's predictive, the softmax likelihood's (Ghosh, Delle Fave & Yedidia 2016)
// from the output moments z ~ N(nu, psi) of one forward pass, and its traits for the likelihood
// table (likelihoods.hpp, runtime/ADDING.md). The one copy: the runtime runs it in float, the
// trainer in double. No libm, no heap.
#pragma once
#include <stdint.h>

#include "pbp/math.hpp"
#include "pbp/pbp.h"

namespace pbp {
namespace outputs {

// Multiclass: softmax likelihood. E[softmax(z)_c] has no closed form; we use the mean-field
// approximation (Lu, Ie & Sha 2020, "Mean-field approximation to Gaussian-softmax integral"):
// softmax(z)_c = 1 / (1 + sum_{k != c} exp(-(z_c - z_k))), where z_c - z_k ~ N(nu_c - nu_k,
// psi_c + psi_k); each pairwise logistic term gets the probit-scaled mean of MacKay (1992),
// E[sigmoid(d)] ~ sigmoid(m / sqrt(1 + pi s^2 / 8)) for d ~ N(m, s^2):
//   q_c = 1 / (1 + sum_{k != c} exp(-(nu_c - nu_k) / sqrt(1 + pi/8 (psi_c + psi_k)))),
//   p_c = q_c / sum_k q_k.
// psi = 0 gives the exact softmax; C = 2 gives the classic probit approximation of the
// logistic-normal integral. Unlike scaling each logit by its own variance
// (exp(nu_c / sqrt(1 + pi psi_c / 8)), normalised), it is invariant to shifting every nu by a
// constant, as E[softmax] is. Error against Monte Carlo: tests/host/outputs.
// Cost: C (C - 1) / 2 exponentials.
template <class T>
inline constexpr T kProbitScale = T(0.39269908169872415481);  // pi / 8

// Pairwise exponents are clamped to +-kMaxExponent, so every term and every sum of up to 2^16
// terms is finite in float (e^80 ~ 5.5e34); the clamped terms are below 2e-35 of the others.
template <class T>
inline constexpr T kMaxExponent = T(80);

// The probit scale sqrt(1 + pi/8 (psi_c + psi_k)) that divides nu_c - nu_k above. The trainer's
// mean-field softmax likelihood divides by the same scale.
template <class T>
inline T pairwise_scale(T psi_c, T psi_k) {
  return math::sqrt(T(1) + kProbitScale<T> * (psi_c + psi_k));
}

// p[0 .. count) = the approximation above; count >= 1, p must not alias nu or psi. The result
// sums to 1 up to rounding, every p_c in [0, 1], or holds NaN where an exponent overflowed.
template <class T>
inline void softmax_probabilities(const T* nu, const T* psi, uint32_t count, T* p) {
  for (uint32_t c = 0; c < count; ++c) p[c] = T(1);
  for (uint32_t c = 0; c < count; ++c) {
    for (uint32_t k = c + 1; k < count; ++k) {
      const T scale = pairwise_scale(psi[c], psi[k]);
      T e = (nu[k] - nu[c]) / scale;  // exponent of class k's term in q_c; -e in q_k
      // Clamped; NaN (inf / inf: the difference and the scale both overflowed) passes through to
      // p, which the caller then reports as non-finite rather than guessing a value.
      e = e > kMaxExponent<T> ? kMaxExponent<T> : (e < -kMaxExponent<T> ? -kMaxExponent<T> : e);
      const T term = math::exp(e);
      p[c] += term;
      p[k] += T(1) / term;
    }
  }
  T sum = T(0);
  for (uint32_t c = 0; c < count; ++c) {
    p[c] = T(1) / p[c];
    sum += p[c];
  }
  for (uint32_t c = 0; c < count; ++c) p[c] /= sum;
}

}  // namespace outputs

// The blob's softmax likelihood: pbp_predict_classes reads softmax_probabilities.
struct SoftmaxLikelihood {
  static constexpr uint32_t kId = PBP_LIKELIHOOD_SOFTMAX;
  static constexpr uint32_t kTask = PBP_TASK_MULTICLASS;
  static constexpr uint32_t kOutputs = 0;  // the class count
  static constexpr bool kEpistemicScale = false;
};

}  // namespace pbp
