// SPDX-License-Identifier: Apache-2.0
// The float16 layer kernel (storage type 2): linear_moments over rows of IEEE binary16 weights.
// Each weight is converted exactly to float (format::half_to_float, integer operations only) and
// goes through the same terms, in the same order, as the float32 kernel (moments.hpp), so a
// float16 layer gives the float32 kernel's bits on its decoded weights, on every target.
//
// Parameters (pbp_layer, as read_stored_weights located and checked it; pbp_open guarantees the
// ranges): inputs n and outputs in 1 .. PBP_MAX_UNITS (65535), storage PBP_STORAGE_FLOAT16,
// stored_mean and stored_variance row-major [outputs][n + 1] halves (bias last), finite, variances
// > 0. Buffers: z_mean[n], z_var[n] (not read when exact_input), a_mean[outputs], a_var[outputs];
// no two overlap. Any finite or non-finite unit moments: a non-finite input gives non-finite
// outputs.
#include "stored_weights.hpp"

#if PBP_WITH_FLOAT16  // else the runtime is built without float16 (pbp.h)
#include "pbp/float16.hpp"

namespace pbp::detail {
namespace {

template <bool kExactInput>
void rows_f16(const pbp_layer& layer, const float* z_mean, const float* z_var, float* a_mean,
              float* a_var) {
  const LayerScale<float> scale = layer_scale<float>(layer.inputs);
  const uint32_t row_length = layer.inputs + 1u;
  // Halves are 2-byte aligned: the blob, its sections and tensors are 4-byte aligned.
  const uint16_t* means = static_cast<const uint16_t*>(layer.stored_mean);
  const uint16_t* variances = static_cast<const uint16_t*>(layer.stored_variance);
  for (uint32_t j = 0; j < layer.outputs; ++j) {
    const uint16_t* mw = means + j * row_length;
    const uint16_t* vw = variances + j * row_length;
    float sum_mean = 0.0f;
    float sum_var = 0.0f;
    for (uint32_t k = 0; k < layer.inputs; ++k) {
      const float m = format::half_to_float(mw[k]);
      const float v = format::half_to_float(vw[k]);
      const float mz = z_mean[k];
      sum_mean += mean_term(m, mz);
      sum_var += variance_term<float, kExactInput>(m, v, mz, kExactInput ? 0.0f : z_var[k]);
    }
    sum_mean += format::half_to_float(mw[layer.inputs]);  // bias: m_z = 1, v_z = 0
    sum_var += format::half_to_float(vw[layer.inputs]);
    a_mean[j] = sum_mean * scale.mean;
    a_var[j] = sum_var * scale.variance;
  }
}

}  // namespace

void linear_moments_f16(const pbp_layer& layer, bool exact_input, float* z_mean, float* z_var,
                        float* a_mean, float* a_var) {
  if (exact_input) {
    rows_f16<true>(layer, z_mean, z_var, a_mean, a_var);
  } else {
    rows_f16<false>(layer, z_mean, z_var, a_mean, a_var);
  }
}

}  // namespace pbp::detail
#endif
