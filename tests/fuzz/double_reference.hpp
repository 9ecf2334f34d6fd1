// SPDX-License-Identifier: Apache-2.0
// An independent double-precision evaluation of an opened model, for the fuzz invariant "the
// runtime's float answer agrees with the double answer, or the runtime returns an error".
//
// It reads only the pbp_model view (the blob's float values), uses <cmath> and none of the
// runtime's moment or output code, and carries with every value a bound on how far the runtime's
// float evaluation of the same quantity can be from it: the bound follows the float arithmetic
// step by step (each rounding at most u = 2^-24 relative plus 2^-149 absolute where it
// underflows; sums of n terms gamma_n = n u / (1 - n u) of the sum of magnitudes) and propagates
// earlier errors with the condition of each step (the ReLU moments are 1-Lipschitz in m, mean
// changes by at most phi(alpha) <= 0.3990 per unit of sd, variance by at most 0.4346 sd per unit
// of m and 1 per unit of v; the float normal tails add kReluKernelError; erf and sign units by
// their own slopes, see erf_units and sign_units). Where the pass is
// ill-conditioned (cancellation in a sum, an overflowing bound) the bound grows accordingly, up
// to infinity, and the check then only requires the double answer to be finite.
//
// Invariant (check_* below): whenever a predict call returns PBP_OK,
//   1. the double pass's output moments nu_i, psi_i are finite, and
//   2. every compared output lies within its bound of the double value; a double output that
//      is not finite while its bound is finite is a violation. An output whose bound is itself
//      infinite (the pass too ill-conditioned for its float evaluation to mean anything, e.g. a
//      cancellation of huge terms) is not compared: there only 1. holds. The count moments are
//      checked as intervals (exp is monotone): the float result must lie between their values
//      at nu -+ bound, psi -+ bound, and an OK is a violation if even the lower end overflows.
// Compared outputs: regression mean, epistemic and aleatoric variance, std, lower and upper;
// class probabilities; count mean and variance. Not compared: the count mode and interval
// (discrete: a bound moves by one wherever the CDF lies near a threshold), the entropy and
// the predicted class (ties), which follow from the compared probabilities.
#pragma once
#include <stdint.h>

#include "pbp/pbp.h"

namespace pbp_fuzz {

// A double value and the bound on |float result - value|.
struct Bounded {
  double value;
  double bound;
};

// The output moments nu_i, psi_i (standardised units) of the double pass, with bounds.
struct OutputMoments {
  bool finite;  // every nu_i and psi_i of the double pass is finite
  uint32_t count;
  Bounded nu[PBP_MAX_CLASSES];
  Bounded psi[PBP_MAX_CLASSES];
};

OutputMoments reference_output_moments(const pbp_model& model, const float* input);

// nullptr if the runtime's result satisfies the invariant, else what broke (also printed with
// the figures to stderr).
const char* check_regression(const pbp_model& model, const float* input, float probability,
                             const pbp_prediction& result);
const char* check_classes(const pbp_model& model, const float* input, const float* probabilities,
                          uint32_t class_count);
const char* check_count(const pbp_model& model, const float* input, const pbp_count_result& result);

}  // namespace pbp_fuzz
