// SPDX-License-Identifier: Apache-2.0
// The tiny blob with its layers' weights re-encoded in place as int8 (storage type 3): each row's
// means as s_j q (s_j = max |m| / 127), each tensor's variances as w u^2 (w = max v / 255^2, u
// the rounded standard deviation, at least 1). An int8 tensor is shorter than its float32 one, so
// it fits in the same bytes. With `decoded`, the float32 twin instead: the same tiny blob with
// every weight replaced by the float value of its int8 decoding.
#pragma once
#include "blob_edit.hpp"
#include "harness.hpp"

namespace pbp_test {

inline uint32_t descriptor_count(const uint8_t* descriptor) {
  return fmt::load_u32(descriptor + fmt::tensor::kElementCount);
}

inline float round_half_away(float x) {
  return static_cast<float>(static_cast<int32_t>(x < 0.0f ? x - 0.5f : x + 0.5f));
}

// Integer square root of the nearest code: the u in 1 .. 255 whose u^2 is nearest to `ratio`.
inline uint32_t nearest_deviation_code(float ratio) {
  uint32_t best = 1;
  for (uint32_t u = 1; u <= 255u; ++u) {
    const float d = static_cast<float>(u * u) - ratio, e = static_cast<float>(best * best) - ratio;
    if ((d < 0 ? -d : d) < (e < 0 ? -e : e)) best = u;
  }
  return best;
}

inline EditableBlob& tiny_int8(EditableBlob& blob, bool decoded) {
  namespace int8 = fmt::int8_weights;
  memcpy(blob.bytes, pbp_tiny_blob, PBP_TINY_BLOB_SIZE);
  memset(blob.bytes + PBP_TINY_BLOB_SIZE, 0, sizeof blob.bytes - PBP_TINY_BLOB_SIZE);
  blob.size = PBP_TINY_BLOB_SIZE;
  const uint32_t layers =
      fmt::load_u32(section(blob, fmt::SectionType::model) + fmt::model_section::kLayerCount);
  for (uint32_t l = 0; l < layers; ++l) {
    uint8_t* record = layer_record(blob, l);
    const uint32_t rows = fmt::load_u32(record + fmt::layer_record::kOutputs);
    uint8_t* mean_descriptor = record + fmt::layer_record::kMean;
    uint8_t* variance_descriptor = record + fmt::layer_record::kVariance;
    const uint32_t count = descriptor_count(mean_descriptor);
    const uint32_t row_length = count / rows;
    float means[64], variances[64];  // the tiny blob's layers have fewer weights
    uint8_t* mean_data = tensor_element(blob, mean_descriptor, 0);
    uint8_t* variance_data = tensor_element(blob, variance_descriptor, 0);
    for (uint32_t i = 0; i < count; ++i) {
      means[i] = fmt::load_f32(mean_data + 4u * i);
      variances[i] = fmt::load_f32(variance_data + 4u * i);
    }
    float largest_variance = 0.0f;
    for (uint32_t i = 0; i < count; ++i) {
      if (variances[i] > largest_variance) largest_variance = variances[i];
    }
    const float w = largest_variance / 65025.0f;
    if (!decoded) fmt::store_f32(variance_data, w);
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t u = nearest_deviation_code(variances[i] / w);
      if (decoded) {
        fmt::store_f32(variance_data + 4u * i, int8::variance<float>(w, static_cast<uint8_t>(u)));
      } else {
        variance_data[int8::kVarianceCodesOffset + i] = static_cast<uint8_t>(u);
      }
    }
    for (uint32_t j = 0; j < rows; ++j) {
      float largest = 0.0f;
      for (uint32_t k = 0; k < row_length; ++k) {
        const float m = means[j * row_length + k];
        if ((m < 0 ? -m : m) > largest) largest = m < 0 ? -m : m;
      }
      const float s = largest / 127.0f;
      if (!decoded) fmt::store_f32(mean_data + int8::kScaleSize * j, s);
      for (uint32_t k = 0; k < row_length; ++k) {
        const int8_t q = static_cast<int8_t>(round_half_away(means[j * row_length + k] / s));
        if (decoded) {
          fmt::store_f32(mean_data + 4u * (j * row_length + k), int8::mean<float>(s, q));
        } else {
          mean_data[int8::mean_codes_offset(rows) + j * row_length + k] = static_cast<uint8_t>(q);
        }
      }
    }
    if (!decoded) {
      set_u32(mean_descriptor + fmt::tensor::kStorage, PBP_STORAGE_INT8);
      set_u32(mean_descriptor + fmt::tensor::kByteLength,
              static_cast<uint32_t>(int8::mean_byte_length(rows, count)));
      set_u32(variance_descriptor + fmt::tensor::kStorage, PBP_STORAGE_INT8);
      set_u32(variance_descriptor + fmt::tensor::kByteLength,
              static_cast<uint32_t>(int8::variance_byte_length(count)));
    }
  }
  reseal(blob);
  return blob;
}

// The two models' predictions on the tiny blob's rows: means within `tolerance` of max(|mean|, 1),
// epistemic variances within `tolerance` relative (the int8 tests' bound, argued where used).
inline void check_tiny_predictions_match(const pbp_model& model, const pbp_model& twin,
                                         float tolerance) {
  static float workspace[PBP_WORKSPACE_FLOATS(2, 3)];
  const auto magnitude = [](float x) { return x < 0.0f ? -x : x; };
  for (uint32_t r = 0; r < PBP_TINY_ROW_COUNT; ++r) {
    pbp_prediction a, b;
    PBP_CHECK_EQ(pbp_predict(&model, pbp_tiny_rows[r], 2, 0.9f, workspace, sizeof workspace, &a),
                 PBP_OK);
    PBP_CHECK_EQ(pbp_predict(&twin, pbp_tiny_rows[r], 2, 0.9f, workspace, sizeof workspace, &b),
                 PBP_OK);
    const float scale = magnitude(b.mean) > 1.0f ? magnitude(b.mean) : 1.0f;
    PBP_CHECK(magnitude(a.mean - b.mean) <= tolerance * scale);
    PBP_CHECK(magnitude(a.epistemic_variance - b.epistemic_variance) <=
              tolerance * b.epistemic_variance);
  }
}

}  // namespace pbp_test
