// SPDX-License-Identifier: Apache-2.0
// Storage types 3 and 4, int8 means with float32 row scales, and square-root (3) or logarithmic
// (4) variance codes: format.hpp's int8_weights and int8_log_variance lay them out. Their entries
// of the storage table (storage_types.hpp). Both tensors' codes come from one search over the
// layer (trainer/src/int8_codes.cpp), so the trainer's writer encodes them itself: no `encode`.
#pragma once
#include <stdint.h>

#include "pbp/format.hpp"

// Its build flag, PBP_WITH_INT8 (pbp/pbp_config.h, "Weight storage types"): built unless
// set to 0; CMake sets it from PBP_RUNTIME_STORAGE. Both int8 types, and the fixed-point ReLU
// kernel they run.
#ifndef PBP_WITH_INT8
#define PBP_WITH_INT8 1
#endif

namespace pbp {

template <uint32_t kStorage>
struct Int8StoredWeights {
  static constexpr uint32_t kId = kStorage;
  static constexpr uint64_t byte_length(bool variance, uint32_t rows, uint32_t count) {
    return variance ? format::int8_weights::variance_byte_length(count)
                    : format::int8_weights::mean_byte_length(rows, count);
  }
  // Codes times their scales: in float the same bits on every target, in double exact.
  template <class T>
  static void decode(const uint8_t* bytes, bool variance, uint32_t rows, uint32_t row_length,
                     T* out) {
    namespace q = format::int8_weights;
    const uint32_t count = rows * row_length;
    if (variance) {
      const float scale = format::load_f32(bytes);
      for (uint32_t i = 0; i < count; ++i) {
        out[i] =
            format::int8_layer_variance<T>(kStorage, scale, bytes[q::kVarianceCodesOffset + i]);
      }
      return;
    }
    const uint8_t* codes = bytes + q::mean_codes_offset(rows);
    for (uint32_t i = 0; i < count; ++i) {
      const float row_scale = format::load_f32(bytes + q::kScaleSize * (i / row_length));
      out[i] = q::mean<T>(row_scale, static_cast<int8_t>(codes[i]));
    }
  }
};

using Int8Weights = Int8StoredWeights<PBP_STORAGE_INT8>;
using Int8LogVarianceWeights = Int8StoredWeights<PBP_STORAGE_INT8_LOG_VARIANCE>;

}  // namespace pbp
