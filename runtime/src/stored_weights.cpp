// SPDX-License-Identifier: Apache-2.0
// pbp_open's reading of a layer's weight tensors in every storage type it supports.
#include "stored_weights.hpp"

#include "pbp/float16.hpp"

namespace pbp::detail {
namespace {

struct TensorDescriptor {
  uint32_t storage, count, offset, byte_length;
};

TensorDescriptor load_descriptor(const uint8_t* descriptor) {
  return {format::load_u32(descriptor + format::tensor::kStorage),
          format::load_u32(descriptor + format::tensor::kElementCount),
          format::load_u32(descriptor + format::tensor::kOffset),
          format::load_u32(descriptor + format::tensor::kByteLength)};
}

// Sizes, alignment and range of a layer's mean or variance descriptor whose storage is known.
pbp_status check_descriptor(const TensorDescriptor& d, bool variance, uint32_t rows,
                            uint32_t element_count, Span tensor_data) {
  if (d.count != element_count || static_cast<uint64_t>(d.byte_length) !=
                                      built_in_byte_length(d.storage, variance, rows, d.count)) {
    return PBP_ERR_TENSOR_SIZE;
  }
  if (d.offset % 4u != 0) return PBP_ERR_TENSOR_MISALIGNED;
  if (static_cast<uint64_t>(d.offset) + d.byte_length > tensor_data.size) {
    return PBP_ERR_TENSOR_RANGE;
  }
  return PBP_OK;
}

// The validators of the storage table (storage_types.hpp): the values of a layer's tensors, once
// read_stored_weights has located them. Compiled for every build; one a build leaves out is never
// called, so it links no code.

// Every half finite (exponent field not all ones); with `positive`, every one > 0 as well.
pbp_status check_halves(const uint16_t* halves, uint32_t count, bool positive) {
  for (uint32_t i = 0; i < count; ++i) {
    if ((halves[i] & 0x7C00u) == 0x7C00u) return PBP_ERR_NONFINITE_VALUE;
  }
  if (!positive) return PBP_OK;
  for (uint32_t i = 0; i < count; ++i) {
    // Sign clear and not +0: the smallest positive half is 0x0001.
    if ((halves[i] & 0x8000u) != 0u || halves[i] == 0u) return PBP_ERR_NEGATIVE_VARIANCE;
  }
  return PBP_OK;
}

// float16: every half finite, the variances > 0.
pbp_status check_weights_f16(pbp_layer* layer, uint32_t weights) {
  const pbp_status status =
      check_halves(static_cast<const uint16_t*>(layer->stored_mean), weights, false);
  if (status != PBP_OK) return status;
  return check_halves(static_cast<const uint16_t*>(layer->stored_variance), weights, true);
}

// float32: the layer's float views, every value finite, the variances >= 0.
pbp_status check_weights_f32(pbp_layer* layer, uint32_t weights) {
  layer->mean = static_cast<const float*>(layer->stored_mean);
  layer->variance = static_cast<const float*>(layer->stored_variance);
  const pbp_status status = check_finite(layer->mean, weights);
  if (status != PBP_OK) return status;
  return check_variances(layer->variance, weights);
}

bool valid_scale(float scale) {
  return scale - scale == 0.0f && scale > 0.0f;  // finite (not NaN, not infinite) and positive
}

// The row scales of the means and the variances' scale valid; every square-root variance code
// > 0 (its variance w u^2 > 0). Every mean code and every logarithmic variance code is valid.
pbp_status check_weights_s8(pbp_layer* layer_view, uint32_t weights) {
  const pbp_layer& layer = *layer_view;
  const uint8_t* means = static_cast<const uint8_t*>(layer.stored_mean);
  for (uint32_t j = 0; j < layer.outputs; ++j) {
    if (!valid_scale(format::load_f32(means + format::int8_weights::kScaleSize * j))) {
      return PBP_ERR_BAD_SCALE;
    }
  }
  const uint8_t* variances = static_cast<const uint8_t*>(layer.stored_variance);
  const float variance_scale = format::load_f32(variances);
  if (!valid_scale(variance_scale)) return PBP_ERR_BAD_SCALE;
  if (layer.storage == PBP_STORAGE_INT8_LOG_VARIANCE) {
    // Every logarithmic code is a variance > 0; the scale's bound keeps the largest finite.
    return variance_scale < format::int8_log_variance::kScaleLimit ? PBP_OK : PBP_ERR_BAD_SCALE;
  }
  const uint8_t* codes = variances + format::int8_weights::kVarianceCodesOffset;
  for (uint32_t i = 0; i < weights; ++i) {
    if (codes[i] == 0u) return PBP_ERR_NEGATIVE_VARIANCE;
  }
  return PBP_OK;
}

}  // namespace

pbp_status read_stored_weights(const uint8_t* mean_descriptor, const uint8_t* variance_descriptor,
                               Span tensor_data, pbp_layer* layer) {
  // Both counts are <= 65535, so outputs * (inputs + 1) < 2^32.
  const uint32_t weights = layer->outputs * (layer->inputs + 1u);
  const TensorDescriptor mean = load_descriptor(mean_descriptor);
  const TensorDescriptor variance = load_descriptor(variance_descriptor);
  const bool known = storage_type_built(mean.storage);
  // One storage type per layer: its kernel reads both tensors alike.
  if (!known || variance.storage != mean.storage) return PBP_ERR_STORAGE_TYPE;
  pbp_status status = check_descriptor(mean, false, layer->outputs, weights, tensor_data);
  if (status != PBP_OK) return status;
  status = check_descriptor(variance, true, layer->outputs, weights, tensor_data);
  if (status != PBP_OK) return status;
  // The blob is 4-byte aligned (pbp_open checks) and so are the section and the offsets.
  layer->storage = mean.storage;
  layer->stored_mean = tensor_data.data + mean.offset;
  layer->stored_variance = tensor_data.data + variance.offset;
  // The table's validator of the type (storage_types.hpp): the first type built takes what the
  // others do not (`known` holds only the types built in), without a test.
  constexpr uint32_t fallback = fallback_storage_type();
#define PBP_CHECK_STORAGE(Codec, name, built, kernel, validator)      \
  if constexpr ((built) && Codec::kId != fallback) {                  \
    if (mean.storage == Codec::kId) return validator(layer, weights); \
  }
  PBP_STORAGE_TYPES(PBP_CHECK_STORAGE)
#undef PBP_CHECK_STORAGE
#define PBP_CHECK_FALLBACK_STORAGE(Codec, name, built, kernel, validator) \
  if constexpr ((built) && Codec::kId == fallback) return validator(layer, weights);
  PBP_STORAGE_TYPES(PBP_CHECK_FALLBACK_STORAGE)
#undef PBP_CHECK_FALLBACK_STORAGE
  return PBP_ERR_STORAGE_TYPE;  // not reached: some storage type is built in (CMake checks)
}

}  // namespace pbp::detail
