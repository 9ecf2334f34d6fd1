// SPDX-License-Identifier: Apache-2.0
// Storage types 3 and 4, int8 means with float32 row scales, and square-root (3) or logarithmic
// (4) variance codes: format.hpp's int8_weights and int8_log_variance lay them out. Their entries
// of the storage table (storage_types.hpp). Both tensors' codes come from one search over the
// layer (trainer/src/int8_codes.cpp), so the trainer's writer encodes them itself: no `encode`.
#pragma once
#include <stdint.h>

#include "pbp/format.hpp"
#include "pbp/math.hpp"

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
  // pbp inspect's bound on what storing moved the weights by (host only; the device never
  // instantiates it): half a step of each code. Means: s_j / 2 of each row. Square-root variance
  // codes: u stands for standard deviations within u +- 1/2 (u = 1 also for every smaller one),
  // variances within (u + 1/2)^2 / u^2 - 1 relative, largest at the smallest code. Logarithmic
  // codes: half a step in log v of the widest step (M's rounding makes them 8.6 % to 9.4 %),
  // about 4.6 %; code 0 stands for every variance up to t: within 1 of t.
  template <class Real>
  static void widen_rounding_bound(const uint8_t* mean, const uint8_t* variance, uint32_t rows,
                                   uint32_t row_length, Real& mean_absolute,
                                   Real& variance_relative) {
    namespace q = format::int8_weights;
    for (uint32_t j = 0; j < rows; ++j) {
      const Real half_step =
          Real(0.5) * static_cast<Real>(format::load_f32(mean + q::kScaleSize * j));
      mean_absolute = half_step > mean_absolute ? half_step : mean_absolute;
    }
    const uint32_t count = rows * row_length;
    // An integer minimum, not a floating-point reduction over the codes (which GCC 12's aarch64
    // vectoriser crashed on at -O3).
    uint32_t smallest = q::kVarianceCodeMax;
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t code = variance[q::kVarianceCodesOffset + i];
      smallest = code < smallest ? code : smallest;
    }
    Real relative;
    if constexpr (kStorage == PBP_STORAGE_INT8_LOG_VARIANCE) {
      namespace log_codes = format::int8_log_variance;
      Real widest = Real(1);
      for (int code = 0; code < 255; ++code) {
        const Real step = log_codes::variance<Real>(1.0f, static_cast<uint8_t>(code + 1)) /
                          log_codes::variance<Real>(1.0f, static_cast<uint8_t>(code));
        widest = step > widest ? step : widest;
      }
      relative = smallest == 0u ? Real(1) : math::sqrt(widest) - Real(1);
    } else {
      const Real u = static_cast<Real>(smallest);
      relative = (u + Real(0.5)) * (u + Real(0.5)) / (u * u) - Real(1);
    }
    variance_relative = relative > variance_relative ? relative : variance_relative;
  }
};

using Int8Weights = Int8StoredWeights<PBP_STORAGE_INT8>;
using Int8LogVarianceWeights = Int8StoredWeights<PBP_STORAGE_INT8_LOG_VARIANCE>;

}  // namespace pbp
