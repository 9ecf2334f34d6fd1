// SPDX-License-Identifier: Apache-2.0
// Storage type 1, float32 weights: IEEE binary32, little-endian, 4 bytes per element (what
// `pbp train` writes). The encoding's entry of the storage table (storage_types.hpp).
#pragma once
#include <stdint.h>

#include "pbp/format.hpp"

// Its build flag, PBP_WITH_FLOAT32 (pbp/pbp_config.h, "Weight storage types"): built unless
// set to 0; CMake sets it from PBP_RUNTIME_STORAGE. What `pbp train` writes.
#ifndef PBP_WITH_FLOAT32
#define PBP_WITH_FLOAT32 1
#endif

namespace pbp {

struct Float32Weights {
  static constexpr uint32_t kId = PBP_STORAGE_FLOAT32;
  // A layer's mean (`variance` false) or variance tensor of `count` elements in `rows` rows.
  static constexpr uint64_t byte_length(bool variance, uint32_t rows, uint32_t count) {
    return (void)variance, (void)rows, 4ull * count;
  }
  // The tensor's rows x row_length values, exactly.
  template <class T>
  static void decode(const uint8_t* bytes, bool variance, uint32_t rows, uint32_t row_length,
                     T* out) {
    (void)variance;
    const uint32_t count = rows * row_length;
    for (uint32_t i = 0; i < count; ++i) out[i] = static_cast<T>(format::load_f32(bytes + 4 * i));
  }
  // The writer's (host only): each value rounded to float32; nullptr, or what is wrong with one.
  template <class Real>
  static const char* encode(const Real* values, bool variance, uint32_t rows, uint32_t row_length,
                            uint8_t* out) {
    (void)variance;
    const uint32_t count = rows * row_length;
    for (uint32_t i = 0; i < count; ++i) {
      const float f = static_cast<float>(values[i]);
      if (!(f - f == 0.0f)) return " is not finite in float32";  // NaN or Inf, also after rounding
      format::store_f32(out + 4 * i, f);
    }
    return nullptr;
  }
  // pbp inspect's bound on what storing moved the weights by (host only): nothing, float32 is
  // what the other types are rounded from.
  template <class Real>
  static void widen_rounding_bound(const uint8_t*, const uint8_t*, uint32_t, uint32_t, Real&,
                                   Real&) {}
};

}  // namespace pbp
