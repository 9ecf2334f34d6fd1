// SPDX-License-Identifier: Apache-2.0
// A one-layer blob with chosen output moments, for the task tests: 1 input standardised by
// (0, 1), one linear layer whose weight rows are [0, b_c] with variances [0, v_c], so that for
// every input nu_c = b_c / sqrt(2) and psi_c = v_c / 2 (the layer scale of moments.hpp). Built in
// a static buffer (no heap), in the layout FORMAT.md describes.
#pragma once
#include <stdint.h>
#include <string.h>

#include "pbp/format.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp.h"

namespace pbp_test {

struct OutputBlob {
  static constexpr uint32_t kFixedBytes = 228;  // everything but the 16 bytes per output
  alignas(8) uint8_t bytes[kFixedBytes + 16 * PBP_MAX_CLASSES];
  uint32_t size;
};

// Fills the static blob for `likelihood` (PBP_LIKELIHOOD_*) with outputs c = 0 .. count: nu[c],
// psi[c] (psi >= 0).
inline OutputBlob& output_blob(uint32_t likelihood, const float* nu, const float* psi,
                               uint32_t count) {
  namespace fmt = pbp::format;
  static OutputBlob blob;
  memset(blob.bytes, 0, sizeof blob.bytes);
  uint8_t* b = blob.bytes;
  const uint32_t table = fmt::header::kSize;
  const uint32_t model = table + 4 * fmt::section_entry::kSize;         // 96
  const uint32_t layers = model + fmt::model_section::kSize;            // 128
  const uint32_t scaling = layers + fmt::layer_record::kSize;           // 176
  const uint32_t data = scaling + fmt::standardisation_section::kSize;  // 216
  const uint32_t weights = 2 * count;
  const uint32_t data_bytes = 4 * (2 * weights + 2);
  blob.size = data + data_bytes + fmt::kCrcSize;

  memcpy(b, fmt::kMagic, 4);
  fmt::store_u32(b + fmt::header::kVersion, fmt::kVersion);
  fmt::store_u32(b + fmt::header::kTotalSize, blob.size);
  fmt::store_u32(b + fmt::header::kHeaderSize, fmt::header::kSize);
  fmt::store_u32(b + fmt::header::kSectionCount, 4);
  const uint32_t sections[4][3] = {{1, model, fmt::model_section::kSize},
                                   {2, layers, fmt::layer_record::kSize},
                                   {3, scaling, fmt::standardisation_section::kSize},
                                   {4, data, data_bytes}};
  for (uint32_t i = 0; i < 4; ++i) {
    uint8_t* e = b + table + i * fmt::section_entry::kSize;
    fmt::store_u32(e + fmt::section_entry::kType, sections[i][0]);
    fmt::store_u32(e + fmt::section_entry::kFlags, fmt::kSectionRequired);
    fmt::store_u32(e + fmt::section_entry::kOffset, sections[i][1]);
    fmt::store_u32(e + fmt::section_entry::kLength, sections[i][2]);
  }
  fmt::store_u32(b + model + fmt::model_section::kLikelihood, likelihood);
  fmt::store_u32(b + model + fmt::model_section::kInputCount, 1);
  fmt::store_u32(b + model + fmt::model_section::kOutputCount, count);
  fmt::store_u32(b + model + fmt::model_section::kLayerCount, 1);
  const uint32_t gammas[4] = {fmt::model_section::kNoiseA, fmt::model_section::kNoiseB,
                              fmt::model_section::kPriorA, fmt::model_section::kPriorB};
  for (uint32_t field : gammas) fmt::store_f32(b + model + field, 2.0f);

  auto tensor = [&](uint8_t* at, uint32_t elements, uint32_t offset) {
    fmt::store_u32(at + fmt::tensor::kStorage, static_cast<uint32_t>(fmt::Storage::float32));
    fmt::store_u32(at + fmt::tensor::kElementCount, elements);
    fmt::store_u32(at + fmt::tensor::kOffset, offset);
    fmt::store_u32(at + fmt::tensor::kByteLength, 4 * elements);
  };
  fmt::store_u32(b + layers + fmt::layer_record::kInputs, 1);
  fmt::store_u32(b + layers + fmt::layer_record::kOutputs, count);
  fmt::store_u32(b + layers + fmt::layer_record::kActivation, PBP_ACTIVATION_LINEAR);
  tensor(b + layers + fmt::layer_record::kMean, weights, 0);
  tensor(b + layers + fmt::layer_record::kVariance, weights, 4 * weights);
  const float sqrt2 = pbp::math::sqrt(2.0f);
  for (uint32_t c = 0; c < count; ++c) {
    fmt::store_f32(b + data + 4 * (2 * c + 1), nu[c] * sqrt2);
    fmt::store_f32(b + data + 4 * (weights + 2 * c + 1), psi[c] * 2.0f);
  }
  fmt::store_f32(b + scaling + fmt::standardisation_section::kTargetStd, 1.0f);
  tensor(b + scaling + fmt::standardisation_section::kInputMean, 1, 8 * weights);
  tensor(b + scaling + fmt::standardisation_section::kInputStd, 1, 8 * weights + 4);
  fmt::store_f32(b + data + 8 * weights + 4, 1.0f);  // input std; the input mean stays 0
  const uint32_t covered = blob.size - fmt::kCrcSize;
  fmt::store_u32(b + covered, fmt::crc32(b, covered));
  return blob;
}

}  // namespace pbp_test
