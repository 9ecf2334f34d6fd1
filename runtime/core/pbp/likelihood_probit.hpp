// SPDX-License-Identifier: Apache-2.0
// The binary task's predictive, the probit likelihood's (Ghosh, Delle Fave & Yedidia 2016) from the
// output moments z ~ N(nu, psi) of one forward pass, and its traits for the likelihood table
// (likelihoods.hpp, runtime/ADDING.md). The one copy: the runtime runs it in float, the trainer in
// double. No libm, no heap.
#pragma once
#include <stdint.h>

#include "pbp/math.hpp"
#include "pbp/pbp.h"

namespace pbp {
namespace outputs {

// Binary: probit likelihood p(y = 1 | z) = Phi(z). E[Phi(z)] = Phi(nu / sqrt(1 + psi)) exactly.
// Each class comes from its own tail, so the smaller probability keeps its relative precision.
template <class T>
struct BinaryProbabilities {
  T negative;  // p(y = 0)
  T positive;  // p(y = 1)
};

template <class T>
inline BinaryProbabilities<T> binary_probabilities(T nu, T psi) {
  const T t = nu / math::sqrt(T(1) + psi);
  return {math::normal_cdf(-t), math::normal_cdf(t)};
}

}  // namespace outputs

// The blob's probit likelihood: pbp_predict_classes reads binary_probabilities.
struct ProbitLikelihood {
  static constexpr uint32_t kId = PBP_LIKELIHOOD_PROBIT;
  static constexpr uint32_t kTask = PBP_TASK_BINARY;
  static constexpr uint32_t kOutputs = 1;
  static constexpr bool kEpistemicScale = false;
};

}  // namespace pbp
