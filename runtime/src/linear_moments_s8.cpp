// The int8 layer kernel (storage type 3, format.hpp's int8_weights): linear_moments over rows of
// int8 mean codes q (row scale s) and u8 standard-deviation codes u (variance scale w), so that
// m_w = s q and v_w = w u^2. Each row's sums keep the scales out of the loop:
//   a_mean = s sum_k q m_z
//   a_var  = w sum_k u^2 (m_z^2 + v_z) + s^2 sum_k q^2 v_z      (each times the layer scale)
// What is exact: q, q^2 and u^2 are integers below 2^16, so converting them to float is exact;
// every product with a unit moment m_z, v_z (floats) is rounded, so the sums are float sums in
// source order, as in the float32 kernel, and give the same bits on every target (no fused
// multiply-add, no libm). An integer accumulation would be exact only if the unit moments were
// integers; they are not, and quantising them would change the outputs, so none is used.
#include "stored_weights.hpp"

#if PBP_WITH_INT8  // else the runtime is built without int8 (pbp.h)
namespace pbp::detail {
namespace {

template <bool kExactInput>
void rows_s8(const pbp_layer& layer, const float* z_mean, const float* z_var, float* a_mean,
             float* a_var) {
  namespace int8 = format::int8_weights;
  const LayerScale<float> scale = layer_scale<float>(layer.inputs);
  const uint32_t row_length = layer.inputs + 1u;
  const uint8_t* row_scales = static_cast<const uint8_t*>(layer.stored_mean);
  const int8_t* means =
      reinterpret_cast<const int8_t*>(row_scales + int8::mean_codes_offset(layer.outputs));
  const uint8_t* variance_bytes = static_cast<const uint8_t*>(layer.stored_variance);
  const float variance_scale = format::load_f32(variance_bytes);
  const uint8_t* deviations = variance_bytes + int8::kVarianceCodesOffset;
  for (uint32_t j = 0; j < layer.outputs; ++j) {
    const int8_t* q = means + j * row_length;
    const uint8_t* u = deviations + j * row_length;
    float sum_mean = 0.0f;     // sum q m_z
    float sum_spread = 0.0f;   // sum u^2 (m_z^2 + v_z): the weights' own variance
    float sum_squares = 0.0f;  // sum q^2 v_z: the units' variance through the means
    for (uint32_t k = 0; k < layer.inputs; ++k) {
      const int32_t code = q[k];
      const float mz = z_mean[k];
      const float u2 = static_cast<float>(uint32_t{u[k]} * u[k]);
      sum_mean += static_cast<float>(code) * mz;
      if constexpr (kExactInput) {
        sum_spread += u2 * (mz * mz);
      } else {
        const float vz = z_var[k];
        sum_spread += u2 * (mz * mz + vz);
        sum_squares += static_cast<float>(code * code) * vz;
      }
    }
    // bias: m_z = 1, v_z = 0
    sum_mean += static_cast<float>(q[layer.inputs]);
    sum_spread += static_cast<float>(uint32_t{u[layer.inputs]} * u[layer.inputs]);
    const float s = format::load_f32(row_scales + int8::kScaleSize * j);
    a_mean[j] = (s * sum_mean) * scale.mean;
    a_var[j] = (variance_scale * sum_spread + (s * s) * sum_squares) * scale.variance;
  }
}

}  // namespace

void linear_moments_s8(const pbp_layer& layer, bool exact_input, const float* z_mean,
                       const float* z_var, float* a_mean, float* a_var) {
  if (exact_input) {
    rows_s8<true>(layer, z_mean, z_var, a_mean, a_var);
  } else {
    rows_s8<false>(layer, z_mean, z_var, a_mean, a_var);
  }
}

}  // namespace pbp::detail
#endif
