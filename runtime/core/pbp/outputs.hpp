// SPDX-License-Identifier: Apache-2.0
// Predictive distributions of the regression, binary, multiclass and count tasks (Ghosh, Delle Fave
// & Yedidia 2016, "Assumed density filtering methods for learning Bayesian neural networks") from
// the output moments of one forward pass: output i is z_i ~ N(nu_i, psi_i), independent
// (moments.hpp). Each likelihood's predictive is in its own header of the likelihood table
// (likelihoods.hpp), the one copy: the runtime instantiates it in float (pbp_predict,
// pbp_predict_classes, pbp_predict_count), the trainer in double. Here: what the classification
// tasks share. Freestanding: pbp::math only, no libm, no heap; deterministic (no sampling). Valid
// inputs: finite nu, finite psi >= 0.
#pragma once
#include <stdint.h>

#include "pbp/likelihoods.hpp"
#include "pbp/math.hpp"

namespace pbp::outputs {

// Index of the largest p (the lowest index on ties); count >= 1.
template <class T>
inline uint32_t argmax(const T* p, uint32_t count) {
  uint32_t best = 0;
  for (uint32_t c = 1; c < count; ++c) best = p[c] > p[best] ? c : best;
  return best;
}

// Predictive entropy -sum p log p in nats (0 log 0 = 0), for probabilities in [0, 1].
template <class T>
inline T entropy(const T* p, uint32_t count) {
  T h = T(0);
  for (uint32_t c = 0; c < count; ++c) {
    if (p[c] > T(0)) h -= p[c] * math::log(p[c]);
  }
  return h;
}

}  // namespace pbp::outputs
