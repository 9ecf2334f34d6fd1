// SPDX-License-Identifier: Apache-2.0
// The float32 layer kernel (storage type 1): moments.hpp's linear_moments on the blob's weights,
// in place. Out of line, as the float16 and int8 kernels are: its frame is then not part of
// every storage type's stack path through forward_pass.
//
// Parameters (pbp_layer, as read_stored_weights located and checked it; pbp_open guarantees the
// ranges): inputs n and outputs in 1 .. PBP_MAX_UNITS (65535), storage PBP_STORAGE_FLOAT32, mean
// and variance row-major [outputs][n + 1] floats (bias last), finite, variances >= 0. Buffers:
// z_mean[n], z_var[n] (not read when exact_input), a_mean[outputs], a_var[outputs]; no two overlap.
// Any finite or non-finite unit moments: a non-finite input gives non-finite outputs.
#include "stored_weights.hpp"

#if PBP_WITH_FLOAT32  // else the runtime is built without float32 weights (pbp.h)
namespace pbp::detail {

void linear_moments_f32(const pbp_layer& layer, bool exact_input, float* z_mean, float* z_var,
                        float* a_mean, float* a_var) {
  const LayerWeights<float> w{layer.mean, layer.variance, layer.inputs, layer.outputs};
  if (exact_input) {
    ::pbp::linear_moments<float, true>(w, z_mean, nullptr, a_mean, a_var);
  } else {
    ::pbp::linear_moments<float, false>(w, z_mean, z_var, a_mean, a_var);
  }
}

}  // namespace pbp::detail
#endif
