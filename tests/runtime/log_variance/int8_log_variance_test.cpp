// SPDX-License-Identifier: Apache-2.0
// Storage type 4 (int8 means, logarithmic variance codes): the tiny int8 blob (int8_blob.hpp) with
// its variances re-encoded as codes spread over 28 octaves, then edited: every check pbp_open
// makes of such a tensor is reached, and the model predicts what its decoded float32 twin does.
#include "harness.hpp"
#include "int8_blob.hpp"
#include "pbp/math.hpp"

namespace {

using pbp_test::EditableBlob;
using pbp_test::open_resealed;
using pbp_test::set_f32;
using pbp_test::set_u32;
namespace fmt = pbp::format;
namespace int8 = fmt::int8_weights;
namespace lv = fmt::int8_log_variance;

EditableBlob g_blob;
EditableBlob g_twin;

uint8_t code_of(uint32_t layer, uint32_t i) {  // 0, 37, 74, ...: octaves 0 to 27
  return static_cast<uint8_t>((37u * i + 101u * layer) % 224u);
}

// The tiny int8 blob with type 4 variances, t = 2^-20 (the largest code's variance about 2^7);
// with `decoded`, its float32 twin holding the decoded values.
EditableBlob& tiny_log_variance(EditableBlob& blob, bool decoded) {
  pbp_test::tiny_int8(blob, decoded);
  const float t = 1.0f / 1048576.0f;
  for (uint32_t l = 0; l < 2; ++l) {
    uint8_t* record = pbp_test::layer_record(blob, l);
    uint8_t* variance_descriptor = record + fmt::layer_record::kVariance;
    uint8_t* data = pbp_test::tensor_element(blob, variance_descriptor, 0);
    const uint32_t count = pbp_test::descriptor_count(variance_descriptor);
    if (!decoded) set_f32(data, t);
    for (uint32_t i = 0; i < count; ++i) {
      if (decoded) {
        fmt::store_f32(data + 4u * i, lv::variance<float>(t, code_of(l, i)));
      } else {
        data[int8::kVarianceCodesOffset + i] = code_of(l, i);
      }
    }
    if (!decoded) {
      set_u32(record + fmt::layer_record::kMean + fmt::tensor::kStorage,
              PBP_STORAGE_INT8_LOG_VARIANCE);
      set_u32(variance_descriptor + fmt::tensor::kStorage, PBP_STORAGE_INT8_LOG_VARIANCE);
    }
  }
  pbp_test::reseal(blob);
  return blob;
}

uint8_t* variance_bytes(uint32_t layer) {
  uint8_t* record = pbp_test::layer_record(g_blob, layer);
  return pbp_test::tensor_element(g_blob, record + fmt::layer_record::kVariance, 0);
}

}  // namespace

PBP_TEST(log_variance_blob_opens) {
  pbp_model model;
  tiny_log_variance(g_blob, false);
  PBP_CHECK_EQ(pbp_open(&model, g_blob.bytes, g_blob.size), PBP_OK);
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    PBP_CHECK_EQ(model.layers[l].storage, PBP_STORAGE_INT8_LOG_VARIANCE);
  }
}

PBP_TEST(log_variance_storage_is_the_layers) {
  const uint32_t tensors[2] = {fmt::layer_record::kMean, fmt::layer_record::kVariance};
  for (uint32_t tensor : tensors) {
    tiny_log_variance(g_blob, false);  // type 3 beside type 4 in one layer: refused
    set_u32(pbp_test::layer_record(g_blob, 1) + tensor + fmt::tensor::kStorage, PBP_STORAGE_INT8);
    PBP_CHECK_EQ(open_resealed(g_blob), PBP_ERR_STORAGE_TYPE);
  }
}

PBP_TEST(log_variance_scales_and_codes) {
  const float bad_scales[] = {0.0f,
                              -0.0f,
                              -1.0f,
                              0x1p95f,  // the largest code's variance would pass float's largest
                              pbp::math::infinity<float>(),
                              pbp::math::quiet_nan<float>()};
  for (float bad : bad_scales) {
    for (uint32_t l = 0; l < 2; ++l) {
      tiny_log_variance(g_blob, false);
      set_f32(variance_bytes(l), bad);
      PBP_CHECK_EQ(open_resealed(g_blob), PBP_ERR_BAD_SCALE);
    }
  }
  tiny_log_variance(g_blob, false);  // just below the bound, and the smallest positive scale
  set_f32(variance_bytes(0), 0x1.fffffep94f);
  set_f32(variance_bytes(1), 1.4e-45f);
  PBP_CHECK_EQ(open_resealed(g_blob), PBP_OK);
  tiny_log_variance(g_blob, false);  // every code is a variance > 0: 0 and 255 too
  variance_bytes(0)[int8::kVarianceCodesOffset] = 0u;
  variance_bytes(0)[int8::kVarianceCodesOffset + 1u] = 255u;
  PBP_CHECK_EQ(open_resealed(g_blob), PBP_OK);
}

// The int8 kernel's integer sums over the logarithmic codes against the float32 kernel on the
// decoded weights: as for type 3 (int8_test.cpp), only the unit moments' int16 codes differ, each
// within 2^-15 of its vector's largest, so a layer's sums move by at most (n + 1) 2^-15 of their
// largest term: 3 + 4 terms in the tiny blob's two layers, 2^-12 of the output (measured on the
// host: 3e-5 at most).
PBP_TEST(log_variance_predictions_match_the_decoded_float32_blob) {
  static pbp_model model, twin_model;
  tiny_log_variance(g_blob, false);
  tiny_log_variance(g_twin, true);
  PBP_CHECK_EQ(pbp_open(&model, g_blob.bytes, g_blob.size), PBP_OK);
  PBP_CHECK_EQ(pbp_open(&twin_model, g_twin.bytes, g_twin.size), PBP_OK);
  PBP_CHECK_EQ(twin_model.layers[0].storage, PBP_STORAGE_FLOAT32);
  pbp_test::check_tiny_predictions_match(model, twin_model, 1.0f / 4096.0f);
}
