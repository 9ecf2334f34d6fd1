// SPDX-License-Identifier: Apache-2.0
// float16 weight tensors (storage type 2): the tiny blob with its layers' weights re-encoded as
// halves in place, then edited like status_codes_test's blobs: every check pbp_open makes of a
// float16 tensor is reached, and a float16 model predicts what its decoded float32 twin does, bit
// for bit, on every target.
#include "pbp/float16.hpp"
#include "blob_edit.hpp"
#include "harness.hpp"

namespace {

using pbp_test::EditableBlob;
using pbp_test::open_resealed;
using pbp_test::set_u32;
namespace fmt = pbp::format;

constexpr uint32_t kTensors[2] = {fmt::layer_record::kMean, fmt::layer_record::kVariance};

uint32_t element_count(const uint8_t* descriptor) {
  return fmt::load_u32(descriptor + fmt::tensor::kElementCount);
}

// The tiny blob, each layer tensor's floats rounded to halves; with `as_halves` stored as halves
// (storage 2, in the first half of each tensor's bytes), else as the float32 values of those
// halves: the float16 blob's decoded twin. Resealed.
EditableBlob& tiny_rounded(EditableBlob& blob, bool as_halves) {
  memcpy(blob.bytes, pbp_tiny_blob, PBP_TINY_BLOB_SIZE);
  blob.size = PBP_TINY_BLOB_SIZE;
  const uint32_t layers = fmt::load_u32(pbp_test::section(blob, fmt::SectionType::model) +
                                        fmt::model_section::kLayerCount);
  for (uint32_t l = 0; l < layers; ++l) {
    for (uint32_t t : kTensors) {
      uint8_t* descriptor = pbp_test::layer_record(blob, l) + t;
      const uint32_t count = element_count(descriptor);
      uint8_t* data = pbp_test::tensor_element(blob, descriptor, 0);
      for (uint32_t i = 0; i < count; ++i) {  // halves fill the front: i < the floats not read
        const uint16_t half = fmt::float_to_half(fmt::load_f32(data + 4u * i));
        if (as_halves) {
          fmt::store_u16(data + 2u * i, half);
        } else {
          fmt::store_f32(data + 4u * i, fmt::half_to_float(half));
        }
      }
      if (as_halves) {
        set_u32(descriptor + fmt::tensor::kStorage, PBP_STORAGE_FLOAT16);
        set_u32(descriptor + fmt::tensor::kByteLength, 2u * count);
      }
    }
  }
  pbp_test::reseal(blob);
  return blob;
}

EditableBlob g_half;
EditableBlob g_twin;

EditableBlob& half_copy() {
  return tiny_rounded(g_half, true);
}

uint8_t* descriptor(uint32_t layer, uint32_t tensor) {
  return pbp_test::layer_record(g_half, layer) + tensor;
}

uint8_t* half_at(uint32_t layer, uint32_t tensor, uint32_t index) {
  return pbp_test::tensor_element(g_half, descriptor(layer, tensor), 0) + 2u * index;
}

}  // namespace

PBP_TEST(float16_blob_opens_with_half_layers) {
  pbp_model model;
  half_copy();
  PBP_CHECK_EQ(pbp_open(&model, g_half.bytes, g_half.size), PBP_OK);
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    PBP_CHECK_EQ(model.layers[l].storage, PBP_STORAGE_FLOAT16);
    PBP_CHECK(model.layers[l].mean == nullptr && model.layers[l].variance == nullptr);
    PBP_CHECK(model.layers[l].stored_mean != nullptr);
  }
  PBP_CHECK_EQ(pbp_open(&model, pbp_tiny_blob, PBP_TINY_BLOB_SIZE), PBP_OK);
  PBP_CHECK_EQ(model.layers[0].storage, PBP_STORAGE_FLOAT32);
  PBP_CHECK(model.layers[0].stored_mean == model.layers[0].mean);
}

PBP_TEST(float16_descriptors) {
  half_copy();
  set_u32(descriptor(1, fmt::layer_record::kVariance) + fmt::tensor::kStorage, PBP_STORAGE_FLOAT32);
  PBP_CHECK_EQ(open_resealed(g_half), PBP_ERR_STORAGE_TYPE);  // one storage type per layer
  half_copy();
  // Weights as float16 are fine, the standardisation's tensors must stay float32.
  uint8_t* input_mean = pbp_test::section(g_half, fmt::SectionType::standardisation) +
                        fmt::standardisation_section::kInputMean;
  set_u32(input_mean + fmt::tensor::kStorage, PBP_STORAGE_FLOAT16);
  set_u32(input_mean + fmt::tensor::kByteLength, 2u * element_count(input_mean));
  PBP_CHECK_EQ(open_resealed(g_half), PBP_ERR_STORAGE_TYPE);
  half_copy();
  uint8_t* d = descriptor(0, fmt::layer_record::kMean);
  set_u32(d + fmt::tensor::kByteLength, 4u * element_count(d));  // float32's length
  PBP_CHECK_EQ(open_resealed(g_half), PBP_ERR_TENSOR_SIZE);
  half_copy();
  set_u32(d + fmt::tensor::kByteLength, 2u * element_count(d) + 2u);  // padding counted
  PBP_CHECK_EQ(open_resealed(g_half), PBP_ERR_TENSOR_SIZE);
  half_copy();
  set_u32(d + fmt::tensor::kOffset, fmt::load_u32(d + fmt::tensor::kOffset) + 2u);
  PBP_CHECK_EQ(open_resealed(g_half), PBP_ERR_TENSOR_MISALIGNED);
  half_copy();
  const uint32_t data_length = fmt::load_u32(
      pbp_test::section_entry(g_half, fmt::SectionType::tensor_data) + fmt::section_entry::kLength);
  set_u32(d + fmt::tensor::kOffset, data_length - 4u);  // 9 halves do not fit in 4 bytes
  PBP_CHECK_EQ(open_resealed(g_half), PBP_ERR_TENSOR_RANGE);
}

PBP_TEST(float16_values) {
  const uint16_t bad_means[] = {0x7C00u, 0xFC00u, 0x7E00u, 0x7C01u};  // +-inf, NaNs
  for (uint16_t bad : bad_means) {
    half_copy();
    fmt::store_u16(half_at(0, fmt::layer_record::kMean, 8), bad);
    PBP_CHECK_EQ(open_resealed(g_half), PBP_ERR_NONFINITE_VALUE);
    half_copy();
    fmt::store_u16(half_at(1, fmt::layer_record::kVariance, 3), bad);
    PBP_CHECK_EQ(open_resealed(g_half), PBP_ERR_NONFINITE_VALUE);
  }
  // Variances above zero: not +0, -0 or negative.
  const uint16_t bad_variances[] = {0x0000u, 0x8000u, 0x8001u, 0xBC00u};
  for (uint16_t bad : bad_variances) {
    half_copy();
    fmt::store_u16(half_at(1, fmt::layer_record::kVariance, 0), bad);
    PBP_CHECK_EQ(open_resealed(g_half), PBP_ERR_NEGATIVE_VARIANCE);
  }
  half_copy();
  fmt::store_u16(half_at(0, fmt::layer_record::kVariance, 2), 0x0001u);  // smallest positive
  fmt::store_u16(half_at(0, fmt::layer_record::kMean, 2), 0x8000u);      // -0 mean is a mean
  fmt::store_u16(half_at(0, fmt::layer_record::kMean, 3), 0xFBFFu);      // -65504
  PBP_CHECK_EQ(open_resealed(g_half), PBP_OK);
}

PBP_TEST(float16_tensors_must_not_overlap) {
  half_copy();
  // Layer 0's variance moved onto the last half of its mean (9 halves: bytes 0 .. 17), then
  // filled with valid variances so that only the overlap is wrong.
  uint8_t* mean = descriptor(0, fmt::layer_record::kMean);
  uint8_t* variance = descriptor(0, fmt::layer_record::kVariance);
  set_u32(variance + fmt::tensor::kOffset, fmt::load_u32(mean + fmt::tensor::kOffset) + 16u);
  for (uint32_t i = 0; i < element_count(variance); ++i) {
    fmt::store_u16(half_at(0, fmt::layer_record::kVariance, i), 0x3C00u);  // 1.0
  }
  PBP_CHECK_EQ(open_resealed(g_half), PBP_ERR_TENSOR_OVERLAP);
  half_copy();
  set_u32(variance + fmt::tensor::kOffset, fmt::load_u32(mean + fmt::tensor::kOffset) + 20u);
  for (uint32_t i = 0; i < element_count(variance); ++i) {
    fmt::store_u16(half_at(0, fmt::layer_record::kVariance, i), 0x3C00u);
  }
  PBP_CHECK_EQ(open_resealed(g_half), PBP_OK);  // adjacent after padding: fine
}

// The float16 kernel against the float32 kernel on the same (decoded) weights: every output bit.
PBP_TEST(float16_predictions_equal_the_decoded_float32_blob) {
  pbp_model& half_model = pbp_test::shared_models()[0];
  pbp_model& twin_model = pbp_test::shared_models()[1];
  half_copy();
  tiny_rounded(g_twin, false);
  PBP_CHECK_EQ(pbp_open(&half_model, g_half.bytes, g_half.size), PBP_OK);
  PBP_CHECK_EQ(pbp_open(&twin_model, g_twin.bytes, g_twin.size), PBP_OK);
  PBP_CHECK_EQ(twin_model.layers[0].storage, PBP_STORAGE_FLOAT32);
  static float workspace[PBP_WORKSPACE_FLOATS(2, 3)];
  for (uint32_t r = 0; r < PBP_TINY_ROW_COUNT; ++r) {
    pbp_prediction a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    PBP_CHECK_EQ(
        pbp_predict(&half_model, pbp_tiny_rows[r], 2, 0.9f, workspace, sizeof workspace, &a),
        PBP_OK);
    PBP_CHECK_EQ(
        pbp_predict(&twin_model, pbp_tiny_rows[r], 2, 0.9f, workspace, sizeof workspace, &b),
        PBP_OK);
    PBP_CHECK(memcmp(&a, &b, sizeof a) == 0);
  }
}

// half_to_float (the FPU's conversion where the build has one: PBP_HALF_TO_FLOAT_IN_HARDWARE)
// against the integer conversion, every finite half: the same bits, so a float16 blob predicts
// the same on every target whichever the build takes. Exponent 31 (inf, NaN) pbp_open rejects.
PBP_TEST(float16_conversion_matches_the_integer_one) {
  uint32_t mismatches = 0;
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7C00u) == 0x7C00u) continue;
    const uint16_t half = static_cast<uint16_t>(h);
    if (pbp_test::float_bits(fmt::half_to_float(half)) !=
        pbp_test::float_bits(fmt::half_to_float_portable(half))) {
      ++mismatches;
    }
  }
  PBP_CHECK_EQ(mismatches, 0u);
  pbp_test::note("half_to_float in hardware: %d", PBP_HALF_TO_FLOAT_IN_HARDWARE);
}
