// SPDX-License-Identifier: Apache-2.0
// The float32 layer kernel (storage type 1): moments.hpp's linear_moments on the blob's weights,
// in place. Out of line, as the float16 and int8 kernels are: its frame is then not part of
// every storage type's stack path through forward_pass.
#include "stored_weights.hpp"

#if PBP_WITH_FLOAT32  // else the runtime is built without float32 weights (pbp.h)
namespace pbp::detail {

void linear_moments_f32(const pbp_layer& layer, bool exact_input, const float* z_mean,
                        const float* z_var, float* a_mean, float* a_var) {
  const LayerWeights<float> w{layer.mean, layer.variance, layer.inputs, layer.outputs};
  if (exact_input) {
    ::pbp::linear_moments<float, true>(w, z_mean, nullptr, a_mean, a_var);
  } else {
    ::pbp::linear_moments<float, false>(w, z_mean, z_var, a_mean, a_var);
  }
}

}  // namespace pbp::detail
#endif
