// SPDX-License-Identifier: Apache-2.0
// Storage type 2, float16 weights: IEEE binary16 (pbp/float16.hpp), little-endian u16, 2 bytes
// per element; the variances > 0. The encoding's entry of the storage table (storage_types.hpp).
#pragma once
#include <stdint.h>

#include "pbp/float16.hpp"
#include "pbp/format.hpp"

// Its build flag, PBP_WITH_FLOAT16 (pbp/pbp_config.h, "Weight storage types"): built unless
// set to 0; CMake sets it from PBP_RUNTIME_STORAGE. `pbp quantize --storage float16`.
#ifndef PBP_WITH_FLOAT16
#define PBP_WITH_FLOAT16 1
#endif

namespace pbp {

struct Float16Weights {
  static constexpr uint32_t kId = PBP_STORAGE_FLOAT16;
  static constexpr uint64_t byte_length(bool variance, uint32_t rows, uint32_t count) {
    return (void)variance, (void)rows, 2ull * count;
  }
  // Each half widened exactly.
  template <class T>
  static void decode(const uint8_t* bytes, bool variance, uint32_t rows, uint32_t row_length,
                     T* out) {
    (void)variance;
    const uint32_t count = rows * row_length;
    for (uint32_t i = 0; i < count; ++i) {
      out[i] = static_cast<T>(format::half_to_float(format::load_u16(bytes + 2 * i)));
    }
  }
  // The writer's (host only): each value rounded to float32 as a float32 blob holds it, then to
  // the nearest half (so quantising a float32 blob gives the bytes writing float16 directly
  // does); a variance below the smallest positive half becomes that half (2^-24), not 0:
  // rounding never makes a weight look certain.
  template <class Real>
  static const char* encode(const Real* values, bool variance, uint32_t rows, uint32_t row_length,
                            uint8_t* out) {
    const uint32_t count = rows * row_length;
    for (uint32_t i = 0; i < count; ++i) {
      const float f = static_cast<float>(values[i]);
      if (!(f - f == 0.0f)) return " is not finite in float32";
      uint16_t half = format::float_to_half(f);
      if ((half & 0x7C00u) == 0x7C00u) return " is beyond float16's range (65504)";
      if (variance && (half == 0u || half == 0x8000u)) half = 1u;
      format::store_u16(out + 2 * i, half);
    }
    return nullptr;
  }
  // pbp inspect's bound on what storing moved the weights by (host only; the device never
  // instantiates it): half the spacing of halves at each mean (absolute) and at each variance
  // (relative; the smallest half, 1, stands for every smaller variance: 1).
  template <class Real>
  static void widen_rounding_bound(const uint8_t* mean, const uint8_t* variance, uint32_t rows,
                                   uint32_t row_length, Real& mean_absolute,
                                   Real& variance_relative) {
    const uint32_t count = rows * row_length;
    for (uint32_t i = 0; i < count; ++i) {
      const Real m = half_rounding_radius<Real>(format::load_u16(mean + 2 * i));
      const uint16_t v = format::load_u16(variance + 2 * i);
      const Real relative =
          v == 1u ? Real(1)
                  : half_rounding_radius<Real>(v) / static_cast<Real>(format::half_to_float(v));
      mean_absolute = m > mean_absolute ? m : mean_absolute;
      variance_relative = relative > variance_relative ? relative : variance_relative;
    }
  }
  // Half the spacing of halves at h: 2^(exponent - 26), subnormals' exponent taken as 1.
  template <class Real>
  static Real half_rounding_radius(uint16_t h) {
    const int exponent = (h >> 10) & 0x1F;
    Real radius = Real(1) / Real(33554432);  // 2^-25, exponents 0 and 1
    for (int e = 1; e < exponent; ++e) radius *= Real(2);
    return radius;
  }
};

}  // namespace pbp
