// SPDX-License-Identifier: Apache-2.0
// int8 weight tensors (storage type 3): the tiny blob with its layers re-encoded as int8 in place
// (int8_blob.hpp), then edited like status_codes_test's blobs: every check pbp_open makes of an
// int8 tensor is reached, and an int8 model predicts what its decoded float32 twin does, up to the
// rounding of the kernel's other summation order.
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

EditableBlob g_int8;
EditableBlob g_twin;

EditableBlob& int8_copy() {
  return pbp_test::tiny_int8(g_int8, false);
}

uint8_t* descriptor(uint32_t layer, uint32_t tensor) {
  return pbp_test::layer_record(g_int8, layer) + tensor;
}

uint8_t* tensor_bytes(uint32_t layer, uint32_t tensor) {
  return pbp_test::tensor_element(g_int8, descriptor(layer, tensor), 0);
}

uint32_t rows(uint32_t layer) {
  return fmt::load_u32(pbp_test::layer_record(g_int8, layer) + fmt::layer_record::kOutputs);
}

}  // namespace

PBP_TEST(int8_blob_opens_with_int8_layers) {
  pbp_model model;
  int8_copy();
  PBP_CHECK_EQ(pbp_open(&model, g_int8.bytes, g_int8.size), PBP_OK);
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    PBP_CHECK_EQ(model.layers[l].storage, PBP_STORAGE_INT8);
    PBP_CHECK(model.layers[l].mean == nullptr && model.layers[l].variance == nullptr);
    PBP_CHECK(model.layers[l].stored_mean == tensor_bytes(l, fmt::layer_record::kMean));
    PBP_CHECK(model.layers[l].stored_variance == tensor_bytes(l, fmt::layer_record::kVariance));
  }
}

PBP_TEST(int8_descriptors) {
  int8_copy();
  set_u32(descriptor(1, fmt::layer_record::kVariance) + fmt::tensor::kStorage, PBP_STORAGE_FLOAT32);
  PBP_CHECK_EQ(open_resealed(g_int8), PBP_ERR_STORAGE_TYPE);  // one storage type per layer
  int8_copy();
  uint8_t* input_std = pbp_test::section(g_int8, fmt::SectionType::standardisation) +
                       fmt::standardisation_section::kInputStd;
  set_u32(input_std + fmt::tensor::kStorage, PBP_STORAGE_INT8);  // weights only
  PBP_CHECK_EQ(open_resealed(g_int8), PBP_ERR_STORAGE_TYPE);
  // Byte lengths: the mean's has one scale per row, the variance's one scale in all.
  uint8_t* mean = descriptor(0, fmt::layer_record::kMean);
  uint8_t* variance = descriptor(0, fmt::layer_record::kVariance);
  const uint32_t count = pbp_test::descriptor_count(mean);
  const uint32_t bad_mean_lengths[] = {4u + count, 4u * rows(0) + count + 1u, 4u * count};
  for (uint32_t length : bad_mean_lengths) {
    int8_copy();
    set_u32(mean + fmt::tensor::kByteLength, length);
    PBP_CHECK_EQ(open_resealed(g_int8), PBP_ERR_TENSOR_SIZE);
  }
  const uint32_t bad_variance_lengths[] = {4u * rows(0) + count, count, 4u + count + 3u};
  for (uint32_t length : bad_variance_lengths) {
    int8_copy();
    set_u32(variance + fmt::tensor::kByteLength, length);
    PBP_CHECK_EQ(open_resealed(g_int8), PBP_ERR_TENSOR_SIZE);
  }
  int8_copy();
  set_u32(mean + fmt::tensor::kOffset, fmt::load_u32(mean + fmt::tensor::kOffset) + 1u);
  PBP_CHECK_EQ(open_resealed(g_int8), PBP_ERR_TENSOR_MISALIGNED);
  int8_copy();
  const uint32_t data_length = fmt::load_u32(
      pbp_test::section_entry(g_int8, fmt::SectionType::tensor_data) + fmt::section_entry::kLength);
  set_u32(variance + fmt::tensor::kOffset, data_length - 4u);  // 4 + 9 bytes do not fit in 4
  PBP_CHECK_EQ(open_resealed(g_int8), PBP_ERR_TENSOR_RANGE);
}

PBP_TEST(int8_scales) {
  const float bad_scales[] = {0.0f,
                              -0.0f,
                              -1.0f,
                              pbp::math::infinity<float>(),
                              -pbp::math::infinity<float>(),
                              pbp::math::quiet_nan<float>()};
  for (float bad : bad_scales) {
    for (uint32_t l = 0; l < 2; ++l) {
      int8_copy();  // the last row's mean scale
      set_f32(tensor_bytes(l, fmt::layer_record::kMean) + int8::kScaleSize * (rows(l) - 1u), bad);
      PBP_CHECK_EQ(open_resealed(g_int8), PBP_ERR_BAD_SCALE);
      int8_copy();
      set_f32(tensor_bytes(l, fmt::layer_record::kVariance), bad);
      PBP_CHECK_EQ(open_resealed(g_int8), PBP_ERR_BAD_SCALE);
    }
  }
  int8_copy();  // the smallest positive (subnormal) and the largest finite scales are valid
  set_f32(tensor_bytes(0, fmt::layer_record::kMean), 1.4e-45f);
  set_f32(tensor_bytes(1, fmt::layer_record::kVariance), 3.4028235e38f);
  PBP_CHECK_EQ(open_resealed(g_int8), PBP_OK);
}

PBP_TEST(int8_codes) {
  for (uint32_t l = 0; l < 2; ++l) {
    const uint32_t count = pbp_test::descriptor_count(descriptor(l, fmt::layer_record::kVariance));
    const uint32_t ends[2] = {0u, count - 1u};
    for (uint32_t i : ends) {  // a variance code of 0 decodes to variance 0
      int8_copy();
      tensor_bytes(l, fmt::layer_record::kVariance)[int8::kVarianceCodesOffset + i] = 0u;
      PBP_CHECK_EQ(open_resealed(g_int8), PBP_ERR_NEGATIVE_VARIANCE);
    }
  }
  int8_copy();  // every mean code is a mean, -128 too; 1 and 255 are variances
  uint8_t* codes = tensor_bytes(0, fmt::layer_record::kMean) + int8::mean_codes_offset(rows(0));
  codes[0] = 0x80u;
  codes[1] = 0x7Fu;
  codes[2] = 0u;
  tensor_bytes(0, fmt::layer_record::kVariance)[int8::kVarianceCodesOffset] = 1u;
  tensor_bytes(0, fmt::layer_record::kVariance)[int8::kVarianceCodesOffset + 1u] = 255u;
  PBP_CHECK_EQ(open_resealed(g_int8), PBP_OK);
}

PBP_TEST(int8_tensors_must_not_overlap) {
  int8_copy();
  // Layer 0's variance moved onto the last 4 bytes of its mean (3 scales and 9 codes: bytes
  // 0 .. 20), the moved bytes made a valid variance so that only the overlap is wrong.
  uint8_t* mean = descriptor(0, fmt::layer_record::kMean);
  uint8_t* variance = descriptor(0, fmt::layer_record::kVariance);
  const uint32_t mean_offset = fmt::load_u32(mean + fmt::tensor::kOffset);
  set_u32(variance + fmt::tensor::kOffset, mean_offset + 16u);
  uint8_t* moved = tensor_bytes(0, fmt::layer_record::kVariance);
  set_f32(moved, 1.0f);
  for (uint32_t i = 0; i < pbp_test::descriptor_count(variance); ++i) {
    moved[int8::kVarianceCodesOffset + i] = 1u;
  }
  PBP_CHECK_EQ(open_resealed(g_int8), PBP_ERR_TENSOR_OVERLAP);
}

// The int8 kernel against the float32 kernel on the decoded weights: the int8 kernel rounds each
// layer's unit moments to int16 codes, each within 2^-15 of its vector's largest, so a layer's
// sums move by at most (n + 1) 2^-15 of their largest term: 3 + 4 terms in the tiny blob's two
// layers, 2^-12 of the output's size (float rounding, a few ulps, is lost in it).
PBP_TEST(int8_predictions_match_the_decoded_float32_blob) {
  pbp_model& int8_model = pbp_test::shared_models()[0];
  pbp_model& twin_model = pbp_test::shared_models()[1];
  int8_copy();
  pbp_test::tiny_int8(g_twin, true);
  PBP_CHECK_EQ(pbp_open(&int8_model, g_int8.bytes, g_int8.size), PBP_OK);
  PBP_CHECK_EQ(pbp_open(&twin_model, g_twin.bytes, g_twin.size), PBP_OK);
  PBP_CHECK_EQ(twin_model.layers[0].storage, PBP_STORAGE_FLOAT32);
  pbp_test::check_tiny_predictions_match(int8_model, twin_model, 1.0f / 4096.0f);
}
