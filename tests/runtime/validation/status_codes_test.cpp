// SPDX-License-Identifier: Apache-2.0
// Every pbp_status is reached: by a crafted blob (the tiny blob with one field edited and the
// CRC recomputed, so the edit gets past the envelope) or by a bad call. The last test checks
// that no code was left out.
#include "blob_edit.hpp"
#include "harness.hpp"
#include "int8_blob.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp_learn.h"
#include "simulated_nor.hpp"

namespace {

using pbp_test::EditableBlob;
using pbp_test::open_resealed;
using pbp_test::reseal;
using pbp_test::set_f32;
using pbp_test::set_u32;
namespace fmt = pbp::format;

bool g_reached[PBP_NUM_STATUSES];

void record(pbp_status status) {
  const int code = static_cast<int>(status);  // the enum may be unsigned (short enums)
  if (code >= 0 && code < PBP_NUM_STATUSES) g_reached[code] = true;
}

#define EXPECT_STATUS(call, expected)  \
  do {                                 \
    const pbp_status status_ = (call); \
    record(status_);                   \
    PBP_CHECK_EQ(status_, (expected)); \
  } while (0)

uint8_t* model_field(EditableBlob& blob, uint32_t offset) {
  return pbp_test::section(blob, fmt::SectionType::model) + offset;
}

uint8_t* standardisation_field(EditableBlob& blob, uint32_t offset) {
  return pbp_test::section(blob, fmt::SectionType::standardisation) + offset;
}

}  // namespace

PBP_TEST(tiny_blob_opens) {
  EXPECT_STATUS(pbp_test::open_blob(pbp_test::tiny_copy()), PBP_OK);
}

PBP_TEST(null_and_misaligned_arguments) {
  EditableBlob& blob = pbp_test::tiny_copy();
  pbp_model model;
  EXPECT_STATUS(pbp_open(nullptr, blob.bytes, blob.size), PBP_ERR_NULL_ARGUMENT);
  EXPECT_STATUS(pbp_open(&model, nullptr, blob.size), PBP_ERR_NULL_ARGUMENT);
  memmove(blob.bytes + 1, blob.bytes, blob.size);
  EXPECT_STATUS(pbp_open(&model, blob.bytes + 1, blob.size), PBP_ERR_MISALIGNED_POINTER);
}

PBP_TEST(envelope) {
  EditableBlob& blob = pbp_test::tiny_copy();
  blob.size = fmt::kMinimumBlobSize - 1;
  EXPECT_STATUS(pbp_test::open_blob(blob), PBP_ERR_TOO_SMALL);
  pbp_test::tiny_copy().bytes[3] = 'X';
  EXPECT_STATUS(pbp_test::open_blob(blob), PBP_ERR_BAD_MAGIC);
  set_u32(pbp_test::tiny_copy().bytes + fmt::header::kVersion, 2);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_UNSUPPORTED_VERSION);
  pbp_test::tiny_copy().size -= 4;  // the header still says the full size
  EXPECT_STATUS(pbp_test::open_blob(blob), PBP_ERR_SIZE_MISMATCH);
  pbp_test::tiny_copy().bytes[300] ^= 0x80;
  EXPECT_STATUS(pbp_test::open_blob(blob), PBP_ERR_CRC_MISMATCH);
}

PBP_TEST(header_and_section_table) {
  EditableBlob& blob = pbp_test::tiny_copy();
  const uint32_t bad_header_sizes[] = {0, 28, 34, PBP_TINY_BLOB_SIZE};
  for (uint32_t size : bad_header_sizes) {
    set_u32(pbp_test::tiny_copy().bytes + fmt::header::kHeaderSize, size);
    EXPECT_STATUS(open_resealed(blob), PBP_ERR_HEADER_SIZE);
  }
  const uint32_t bad_counts[] = {0, PBP_MAX_SECTIONS + 1, 0xFFFFFFFFu};
  for (uint32_t count : bad_counts) {
    set_u32(pbp_test::tiny_copy().bytes + fmt::header::kSectionCount, count);
    EXPECT_STATUS(open_resealed(blob), PBP_ERR_SECTION_COUNT);
  }
  // A larger header pushes the table past the body.
  set_u32(pbp_test::tiny_copy().bytes + fmt::header::kHeaderSize, PBP_TINY_BLOB_SIZE - 64);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_SECTION_COUNT);
}

PBP_TEST(section_entries) {
  EditableBlob& blob = pbp_test::tiny_copy();
  auto entry = [&](fmt::SectionType type) {
    return pbp_test::section_entry(pbp_test::tiny_copy(), type);
  };
  uint8_t* e = entry(fmt::SectionType::layers);
  set_u32(e + fmt::section_entry::kOffset, fmt::load_u32(e + fmt::section_entry::kOffset) + 2);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_SECTION_MISALIGNED);
  set_u32(entry(fmt::SectionType::model) + fmt::section_entry::kOffset, 0);  // inside the header
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_SECTION_RANGE);
  set_u32(entry(fmt::SectionType::tensor_data) + fmt::section_entry::kLength, 0xFFFFFFFCu);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_SECTION_RANGE);  // offset + length wraps in 32 bits
  set_u32(entry(fmt::SectionType::metadata) + fmt::section_entry::kOffset, PBP_TINY_BLOB_SIZE);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_SECTION_RANGE);
  set_u32(entry(fmt::SectionType::metadata), static_cast<uint32_t>(fmt::SectionType::model));
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_DUPLICATE_SECTION);
  e = entry(fmt::SectionType::metadata);
  set_u32(e, 99);
  set_u32(e + fmt::section_entry::kFlags, fmt::kSectionRequired);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_UNKNOWN_REQUIRED_SECTION);
  set_u32(entry(fmt::SectionType::metadata), 99);  // unknown optional: skipped
  EXPECT_STATUS(open_resealed(blob), PBP_OK);
  e = entry(fmt::SectionType::standardisation);
  set_u32(e, 99);
  set_u32(e + fmt::section_entry::kFlags, 0);  // now an unknown optional section: skipped
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_MISSING_SECTION);
  set_u32(entry(fmt::SectionType::model) + fmt::section_entry::kLength,
          fmt::model_section::kSize - 4);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_SECTION_SIZE);
  e = entry(fmt::SectionType::layers);
  set_u32(e + fmt::section_entry::kLength, fmt::load_u32(e + fmt::section_entry::kLength) - 4);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_SECTION_SIZE);
  set_u32(entry(fmt::SectionType::standardisation) + fmt::section_entry::kLength, 36);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_SECTION_SIZE);
}

PBP_TEST(model_description) {
  EditableBlob& blob = pbp_test::tiny_copy();
  uint32_t unknown = 0;  // the first id no line of the likelihood table holds
  while (pbp::likelihood_name(unknown) != nullptr) ++unknown;
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kLikelihood), unknown);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_UNSUPPORTED_TASK);
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kLikelihood), 0xFFFFFFFFu);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_UNSUPPORTED_TASK);
  // The scaled likelihood needs its scale after the 32 bytes the tiny blob's section has.
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kLikelihood),
          PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_EPISTEMIC_SCALE);
  const uint32_t one_output_likelihoods[] = {PBP_LIKELIHOOD_PROBIT, PBP_LIKELIHOOD_POISSON};
  for (uint32_t likelihood : one_output_likelihoods) {
    set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kLikelihood), likelihood);
    EXPECT_STATUS(open_resealed(blob), PBP_OK);  // the tiny blob's single output fits
    set_u32(model_field(blob, fmt::model_section::kOutputCount), 2);
    EXPECT_STATUS(open_resealed(blob), PBP_ERR_OUTPUT_COUNT);
  }
  const uint32_t bad_class_counts[] = {0, 1, PBP_MAX_CLASSES + 1};
  for (uint32_t classes : bad_class_counts) {
    set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kLikelihood),
            PBP_LIKELIHOOD_SOFTMAX);
    set_u32(model_field(blob, fmt::model_section::kOutputCount), classes);
    EXPECT_STATUS(open_resealed(blob), PBP_ERR_OUTPUT_COUNT);
  }
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kLikelihood),
          PBP_LIKELIHOOD_SOFTMAX);
  set_u32(model_field(blob, fmt::model_section::kOutputCount), 2);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_LAYER_SHAPE);  // the last layer has 1 output
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kLayerCount), 0);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_LAYER_COUNT);
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kLayerCount), PBP_MAX_LAYERS + 1);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_LAYER_COUNT);
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kLayerCount), 3);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_SECTION_SIZE);  // layers section holds 2 records
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kInputCount), 0);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_UNIT_COUNT);
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kInputCount), PBP_MAX_UNITS + 1);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_UNIT_COUNT);
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kOutputCount), 2);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_OUTPUT_COUNT);
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 1) + fmt::layer_record::kInputs, 0);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_UNIT_COUNT);
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 0) + fmt::layer_record::kOutputs, 70000);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_UNIT_COUNT);
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kInputCount), 3);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_LAYER_SHAPE);
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 0) + fmt::layer_record::kOutputs, 2);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_LAYER_SHAPE);
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 1) + fmt::layer_record::kOutputs, 2);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_LAYER_SHAPE);
  const uint32_t activation = fmt::layer_record::kActivation;
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 0) + activation, PBP_ACTIVATION_LINEAR);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_ACTIVATION);
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 1) + activation, PBP_ACTIVATION_RELU);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_ACTIVATION);
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 0) + activation, 7);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_ACTIVATION);
  // The first value past the known ones, and the new hidden activations on the last layer.
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 0) + activation, PBP_ACTIVATION_SIGN + 1);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_ACTIVATION);
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 1) + activation, PBP_ACTIVATION_ERF);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_ACTIVATION);
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 1) + activation, PBP_ACTIVATION_SIGN);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_ACTIVATION);
  // Erf and sign hidden layers open.
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 0) + activation, PBP_ACTIVATION_ERF);
  EXPECT_STATUS(open_resealed(blob), PBP_OK);
  set_u32(pbp_test::layer_record(pbp_test::tiny_copy(), 0) + activation, PBP_ACTIVATION_SIGN);
  EXPECT_STATUS(open_resealed(blob), PBP_OK);
}

PBP_TEST(tensor_descriptors) {
  EditableBlob& blob = pbp_test::tiny_copy();
  auto mean = [&]() {
    return pbp_test::layer_record(pbp_test::tiny_copy(), 1) + fmt::layer_record::kMean;
  };
  set_u32(mean() + fmt::tensor::kStorage, 4);  // not a storage type
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_STORAGE_TYPE);
  set_u32(mean() + fmt::tensor::kStorage, 3);  // int8: reserved, not readable yet
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_STORAGE_TYPE);
  uint8_t* d = mean();
  set_u32(d + fmt::tensor::kElementCount, fmt::load_u32(d + fmt::tensor::kElementCount) + 1);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_TENSOR_SIZE);
  d = mean();
  set_u32(d + fmt::tensor::kByteLength, fmt::load_u32(d + fmt::tensor::kByteLength) - 4);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_TENSOR_SIZE);
  d = mean();
  set_u32(d + fmt::tensor::kOffset, fmt::load_u32(d + fmt::tensor::kOffset) + 1);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_TENSOR_MISALIGNED);
  set_u32(mean() + fmt::tensor::kOffset, 0xFFFFFFFCu);  // offset + length wraps in 32 bits
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_TENSOR_RANGE);
  uint8_t* data_entry =
      pbp_test::section_entry(pbp_test::tiny_copy(), fmt::SectionType::tensor_data);
  set_u32(data_entry + fmt::section_entry::kLength, 8);  // tensors now past the section's end
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_TENSOR_RANGE);
  const uint8_t* std_descriptor =
      standardisation_field(pbp_test::tiny_copy(), fmt::standardisation_section::kInputStd);
  set_u32(const_cast<uint8_t*>(std_descriptor) + fmt::tensor::kElementCount, 3);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_TENSOR_SIZE);
}

// Tensors that share bytes are refused (SECURITY.md): otherwise the same byte range could serve
// every layer, and weight_count (the sum of the layers' weights) could pass 2^32 in a blob of a
// few hundred MiB. Here layer 1's variances (4, all >= 0) alias layer 0's: valid values, so only
// the overlap check can refuse them.
PBP_TEST(aliased_tensors) {
  EditableBlob& blob = pbp_test::tiny_copy();
  const uint32_t layer0_variance = fmt::load_u32(
      pbp_test::layer_record(blob, 0) + fmt::layer_record::kVariance + fmt::tensor::kOffset);
  // The same start, one element in, and the last 4 of layer 0's 9 variances.
  const uint32_t shifts[3] = {0, 1, 5};
  for (uint32_t shift : shifts) {
    pbp_test::tiny_copy();
    set_u32(pbp_test::layer_record(blob, 1) + fmt::layer_record::kVariance + fmt::tensor::kOffset,
            layer0_variance + 4u * shift);
    EXPECT_STATUS(open_resealed(blob), PBP_ERR_TENSOR_OVERLAP);
  }
  // Adjacent is not overlapping: the tiny blob itself packs its tensors back to back.
  EXPECT_STATUS(pbp_test::open_blob(pbp_test::tiny_copy()), PBP_OK);
}

PBP_TEST(values) {
  EditableBlob& blob = pbp_test::tiny_copy();
  const float nan = pbp::math::quiet_nan<float>();
  const float inf = pbp::math::infinity<float>();
  auto weight = [&](uint32_t layer, uint32_t which, uint32_t index) {
    EditableBlob& b = pbp_test::tiny_copy();
    return pbp_test::tensor_element(b, pbp_test::layer_record(b, layer) + which, index);
  };
  set_f32(weight(0, fmt::layer_record::kMean, 4), nan);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_NONFINITE_VALUE);
  set_f32(weight(1, fmt::layer_record::kVariance, 3), inf);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_NONFINITE_VALUE);
  set_f32(weight(1, fmt::layer_record::kVariance, 0), -0.25f);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_NEGATIVE_VARIANCE);
  set_f32(weight(0, fmt::layer_record::kVariance, 0), 0.0f);  // a certain weight is fine
  EXPECT_STATUS(open_resealed(blob), PBP_OK);
  set_f32(model_field(pbp_test::tiny_copy(), fmt::model_section::kNoiseB), inf);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_NONFINITE_VALUE);
  const uint32_t gamma_fields[] = {fmt::model_section::kNoiseA, fmt::model_section::kPriorA};
  for (uint32_t field : gamma_fields) {
    set_f32(model_field(pbp_test::tiny_copy(), field), 1.0f);
    EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_GAMMA);
    set_f32(model_field(pbp_test::tiny_copy(), field), 0.5f);
    EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_GAMMA);
  }
  set_f32(model_field(pbp_test::tiny_copy(), fmt::model_section::kPriorB), 0.0f);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_GAMMA);
  set_f32(standardisation_field(pbp_test::tiny_copy(), fmt::standardisation_section::kTargetStd),
          0.0f);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_STANDARDISATION);
  set_f32(standardisation_field(pbp_test::tiny_copy(), fmt::standardisation_section::kTargetMean),
          nan);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_NONFINITE_VALUE);
  EditableBlob& b = pbp_test::tiny_copy();
  uint8_t* input_std = standardisation_field(b, fmt::standardisation_section::kInputStd);
  set_f32(pbp_test::tensor_element(b, input_std, 1), -1.0f);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_STANDARDISATION);
  pbp_test::tiny_copy();
  uint8_t* input_mean = standardisation_field(b, fmt::standardisation_section::kInputMean);
  set_f32(pbp_test::tensor_element(b, input_mean, 0), inf);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_NONFINITE_VALUE);
}

// The tiny blob's metadata: name "tiny", target "y", notes "n", rows, feature names "a", "bc".
PBP_TEST(metadata) {
  EditableBlob& blob = pbp_test::tiny_copy();
  auto first_entry = [&]() {
    return pbp_test::section(pbp_test::tiny_copy(), fmt::SectionType::metadata);
  };
  set_u32(first_entry() + fmt::metadata_entry::kLength, 0xFFFFFFFFu);  // padding would wrap
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_METADATA);
  set_u32(first_entry() + fmt::metadata_entry::kLength, 200);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_METADATA);
  uint8_t* target = first_entry() + 12;  // name entry: 8 + "tiny" (4)
  set_u32(target, static_cast<uint32_t>(fmt::MetadataKey::name));
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_METADATA);  // two names
  set_u32(first_entry() + 12, static_cast<uint32_t>(fmt::MetadataKey::training_rows));
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_METADATA);  // rows of 1 byte
  set_u32(first_entry() + 12, static_cast<uint32_t>(fmt::MetadataKey::feature_name));
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_METADATA);  // 3 feature names for 2 inputs
  set_u32(first_entry() + 12, 1000);                         // unknown key: skipped
  EXPECT_STATUS(open_resealed(blob), PBP_OK);
  uint8_t* e = pbp_test::section_entry(pbp_test::tiny_copy(), fmt::SectionType::metadata);
  set_u32(e + fmt::section_entry::kLength, fmt::load_u32(e + fmt::section_entry::kLength) - 2);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_METADATA);
}

PBP_TEST(prediction_arguments) {
  EditableBlob& blob = pbp_test::tiny_copy();
  pbp_model model;
  PBP_CHECK_EQ(pbp_open(&model, blob.bytes, blob.size), PBP_OK);
  static float workspace[PBP_WORKSPACE_FLOATS(2, 3) + 1];
  const size_t bytes = PBP_WORKSPACE_BYTES(2, 3);
  pbp_prediction p;
  const float x[2] = {0.5f, 1.0f};
  EXPECT_STATUS(pbp_predict(&model, x, 2, 0.9f, workspace, bytes, &p), PBP_OK);
  EXPECT_STATUS(pbp_predict(&model, nullptr, 2, 0.9f, workspace, bytes, &p), PBP_ERR_NULL_ARGUMENT);
  EXPECT_STATUS(pbp_predict(&model, x, 1, 0.9f, workspace, bytes, &p), PBP_ERR_INPUT_WIDTH);
  EXPECT_STATUS(pbp_predict(&model, x, 2, 1.0f, workspace, bytes, &p), PBP_ERR_BAD_PROBABILITY);
  EXPECT_STATUS(pbp_predict(&model, x, 2, 0.9f, workspace, bytes - 1, &p),
                PBP_ERR_WORKSPACE_TOO_SMALL);
  EXPECT_STATUS(
      pbp_predict(&model, x, 2, 0.9f, reinterpret_cast<uint8_t*>(workspace) + 2, bytes, &p),
      PBP_ERR_MISALIGNED_POINTER);
  const float bad[2] = {pbp::math::quiet_nan<float>(), 0.0f};
  EXPECT_STATUS(pbp_predict(&model, bad, 2, 0.9f, workspace, bytes, &p), PBP_ERR_NONFINITE_INPUT);
  const float huge[2] = {3.0e38f, -3.0e38f};  // standardises to infinity
  EXPECT_STATUS(pbp_predict(&model, huge, 2, 0.9f, workspace, bytes, &p), PBP_ERR_NONFINITE_OUTPUT);
  pbp_string name;
  EXPECT_STATUS(pbp_feature_name(&model, 2, &name), PBP_ERR_INDEX_OUT_OF_RANGE);
  blob.bytes[0] = 0;
  EXPECT_STATUS(pbp_open(&model, blob.bytes, blob.size), PBP_ERR_BAD_MAGIC);
  EXPECT_STATUS(pbp_predict(&model, x, 2, 0.9f, workspace, bytes, &p), PBP_ERR_MODEL_NOT_OPEN);
}

// The task-specific predict functions on the tiny blob with its task field edited.
PBP_TEST(task_prediction_arguments) {
  static float workspace[PBP_WORKSPACE_FLOATS(2, 3)];
  const size_t bytes = sizeof workspace;
  const float x[2] = {0.5f, 1.0f};
  pbp_model model;
  pbp_class_result classes;
  pbp_count_result count;
  float probabilities[2];
  EditableBlob& blob = pbp_test::tiny_copy();  // regression
  PBP_CHECK_EQ(pbp_open(&model, blob.bytes, blob.size), PBP_OK);
  EXPECT_STATUS(pbp_predict_classes(&model, x, 2, workspace, bytes, probabilities, 2, &classes),
                PBP_ERR_WRONG_TASK);
  EXPECT_STATUS(pbp_predict_count(&model, x, 2, 0.9f, workspace, bytes, &count),
                PBP_ERR_WRONG_TASK);

  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kLikelihood),
          PBP_LIKELIHOOD_PROBIT);
  PBP_CHECK_EQ(open_resealed(blob), PBP_OK);
  PBP_CHECK_EQ(pbp_open(&model, blob.bytes, blob.size), PBP_OK);
  EXPECT_STATUS(pbp_predict_classes(&model, x, 2, workspace, bytes, probabilities, 2, &classes),
                PBP_OK);
  EXPECT_STATUS(pbp_predict_classes(&model, x, 2, workspace, bytes, nullptr, 0, &classes), PBP_OK);
  EXPECT_STATUS(pbp_predict_classes(&model, x, 2, workspace, bytes, probabilities, 1, &classes),
                PBP_ERR_OUTPUT_CAPACITY);
  EXPECT_STATUS(pbp_predict_classes(&model, x, 2, workspace, bytes, nullptr, 2, &classes),
                PBP_ERR_NULL_ARGUMENT);
  EXPECT_STATUS(pbp_predict_classes(&model, x, 2, workspace, bytes, probabilities, 2, nullptr),
                PBP_ERR_NULL_ARGUMENT);
  EXPECT_STATUS(pbp_predict_count(&model, x, 2, 0.9f, workspace, bytes, &count),
                PBP_ERR_WRONG_TASK);

  // Count, with the output bias raised so that e^nu is far above PBP_COUNT_MAX_STEPS.
  set_u32(model_field(pbp_test::tiny_copy(), fmt::model_section::kLikelihood),
          PBP_LIKELIHOOD_POISSON);
  set_f32(
      pbp_test::tensor_element(blob, pbp_test::layer_record(blob, 1) + fmt::layer_record::kMean, 3),
      30.0f);
  PBP_CHECK_EQ(open_resealed(blob), PBP_OK);
  PBP_CHECK_EQ(pbp_open(&model, blob.bytes, blob.size), PBP_OK);
  EXPECT_STATUS(pbp_predict_count(&model, x, 2, 0.9f, workspace, bytes, &count),
                PBP_ERR_COUNT_STEPS);
  EXPECT_STATUS(pbp_predict_count(&model, x, 2, 0.0f, workspace, bytes, &count),
                PBP_ERR_BAD_PROBABILITY);
  EXPECT_STATUS(pbp_predict_count(&model, x, 1, 0.9f, workspace, bytes, &count),
                PBP_ERR_INPUT_WIDTH);
  EXPECT_STATUS(pbp_predict_classes(&model, x, 2, workspace, bytes, probabilities, 2, &classes),
                PBP_ERR_WRONG_TASK);
}

namespace {

// Sets the standardisation section's length in the section table of `blob`.
void set_standardisation_length(EditableBlob& blob, uint32_t length) {
  uint8_t* e = pbp_test::section_entry(blob, fmt::SectionType::standardisation);
  set_u32(e + fmt::section_entry::kLength, length);
}

// Element `index` of the standardisation tensor whose descriptor is at `descriptor`.
uint8_t* standardisation_element(EditableBlob& blob, uint32_t descriptor, uint32_t index) {
  return pbp_test::tensor_element(blob, standardisation_field(blob, descriptor), index);
}

}  // namespace

// The input std against 2^-14 |mean| (format::valid_input_standardisation), on the tiny blob
// without its input ranges (so that the mean may move): mean -8192 with std 0.5 is the bound
// itself, accepted; the next float below it, or a subnormal std, is not.
PBP_TEST(input_std_bound) {
  namespace layout = fmt::standardisation_section;
  EditableBlob& blob = pbp_test::tiny_copy();
  set_standardisation_length(blob, layout::kSize);
  set_f32(standardisation_element(blob, layout::kInputMean, 0), -8192.0f);
  EXPECT_STATUS(open_resealed(blob), PBP_OK);
  set_f32(standardisation_element(blob, layout::kInputStd, 0), 0.49999997f);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_STANDARDISATION);
  set_f32(standardisation_element(blob, layout::kInputMean, 0), 0.0f);
  set_f32(standardisation_element(blob, layout::kInputStd, 0), 1e-39f);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_STANDARDISATION);
  set_f32(standardisation_element(blob, layout::kInputStd, 0), 1.2e-38f);  // smallest normals: fine
  EXPECT_STATUS(open_resealed(blob), PBP_OK);
}

// The tiny blob's appended input ranges: min {-2, -2.5}, max {0.5, 1}; means -1, -0.75.
PBP_TEST(input_ranges) {
  namespace layout = fmt::standardisation_section;
  EditableBlob& blob = pbp_test::tiny_copy();
  auto element = [&](uint32_t descriptor, uint32_t index) {
    return standardisation_element(blob, descriptor, index);
  };
  pbp_model model;
  EXPECT_STATUS(pbp_open(&model, blob.bytes, blob.size), PBP_OK);
  PBP_CHECK(model.input_min != nullptr && model.input_max != nullptr);
  set_standardisation_length(blob, layout::kSize);  // a blob written before ranges: opens
  reseal(blob);
  EXPECT_STATUS(pbp_open(&model, blob.bytes, blob.size), PBP_OK);
  PBP_CHECK(model.input_min == nullptr && model.input_max == nullptr);
  set_standardisation_length(pbp_test::tiny_copy(), layout::kSizeWithRanges - 4);  // partial
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_SECTION_SIZE);
  pbp_test::tiny_copy();
  set_f32(element(layout::kInputMin, 0), -0.5f);  // above the mean -1
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_RANGE);
  pbp_test::tiny_copy();
  set_f32(element(layout::kInputMax, 1), -1.0f);  // below the mean -0.75 and the minimum
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_RANGE);
  pbp_test::tiny_copy();
  set_f32(element(layout::kInputMax, 0), -1.0f);  // min = mean = max: a constant column's range
  set_f32(element(layout::kInputMin, 0), -1.0f);
  EXPECT_STATUS(open_resealed(blob), PBP_OK);
  pbp_test::tiny_copy();
  set_f32(element(layout::kInputMax, 1), pbp::math::infinity<float>());
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_NONFINITE_VALUE);
  pbp_test::tiny_copy();
  set_f32(element(layout::kInputMin, 0), pbp::math::quiet_nan<float>());
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_NONFINITE_VALUE);
  pbp_test::tiny_copy();
  set_u32(standardisation_field(blob, layout::kInputMin) + fmt::tensor::kElementCount, 3);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_TENSOR_SIZE);
  pbp_test::tiny_copy();
  set_u32(standardisation_field(blob, layout::kInputMax) + fmt::tensor::kOffset, 0xFFFFFFF0u);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_TENSOR_RANGE);
}

// The learner's own statuses (pbp_learn.h; the rest are tests/runtime/learn's and the host's).
PBP_TEST(learner_statuses) {
  EditableBlob& blob = pbp_test::tiny_copy();
  pbp_model model;
  EXPECT_STATUS(pbp_open(&model, blob.bytes, blob.size), PBP_OK);
  static float state[PBP_LEARN_STATE_BYTES(3u * 3u + 1u * 4u) / 4];  // 2 -> 3 -> 1
  static float workspace[PBP_LEARN_WORKSPACE_FLOATS(2u, 4u)];
  pbp_learner learner;
  EXPECT_STATUS(pbp_learn_init(&learner, &model, state, sizeof state - 4),
                PBP_ERR_BUFFER_TOO_SMALL);
  EXPECT_STATUS(pbp_learn_init(&learner, &model, state, sizeof state), PBP_OK);
  const float x[2] = {0.5f, -0.5f};
  EXPECT_STATUS(pbp_learn_update(&learner, x, 2, pbp::math::quiet_nan<float>(), workspace,
                                 sizeof workspace, nullptr),
                PBP_ERR_BAD_TARGET);
  EXPECT_STATUS(pbp_learn_update(&learner, x, 2, 1.0f, workspace, sizeof workspace, nullptr),
                PBP_OK);
}

// The store's own statuses (pbp_store.h; every path: tests/runtime/store).
PBP_TEST(store_statuses) {
  // On the stack: the micro:bit's .bss has no 1.3 KB left for it (its heap needs 2 KiB).
  uint32_t flash_memory[2u * 640u / 4u];  // two slots of ten 64-byte pages
  uint32_t boot[1];  // no slot gets valid: boot opens the factory blob in place
  pbp_test::SimulatedNor nor;
  nor.format(reinterpret_cast<uint8_t*>(flash_memory), sizeof flash_memory, 64, 4);
  const pbp_flash flash = nor.flash();
  EditableBlob& blob = pbp_test::tiny_copy();
  pbp_store store;
  EXPECT_STATUS(pbp_store_init(&store, &flash, 0, 320, 640, blob.bytes, blob.size),
                PBP_ERR_STORE_LAYOUT);  // the slots overlap
  EXPECT_STATUS(pbp_store_init(&store, &flash, 0, 640, 640, blob.bytes, blob.size), PBP_OK);
  nor.stuck_offset = PBP_STORE_HEADER_BYTES;  // slot 0's first blob byte stays 0xFF
  nor.stuck_mask = 0xFF;
  EXPECT_STATUS(pbp_store_save_blob(&store, blob.bytes, blob.size), PBP_ERR_FLASH_VERIFY);
  nor.power_on();
  nor.cut_power_in(0, pbp_test::Partial::none);
  EXPECT_STATUS(pbp_store_save_blob(&store, blob.bytes, blob.size), PBP_ERR_FLASH);
  nor.power_on();
  pbp_model model;
  pbp_store_source source;
  EXPECT_STATUS(pbp_store_boot(&store, boot, sizeof boot, &model, &source), PBP_OK);
  PBP_CHECK_EQ(source, PBP_STORE_FACTORY);
}

PBP_TEST(int8_scale_status) {  // every int8 path: int8_test.cpp
  static EditableBlob blob;
  pbp_test::tiny_int8(blob, false);
  EXPECT_STATUS(open_resealed(blob), PBP_OK);
  uint8_t* variance = pbp_test::layer_record(blob, 0) + fmt::layer_record::kVariance;
  set_f32(pbp_test::tensor_element(blob, variance, 0), 0.0f);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_SCALE);
}

// A learn_check section out of range (every field: tests/host/learn/learn_restart_test.cpp): a
// reader that only predicts opens the blob; the learner refuses it and writes nothing.
PBP_TEST(learn_check_status) {
  pbp_model& model = pbp_test::shared_models()[0];
  pbp_learner learner;  // on the stack, as learner_statuses'
  static float state[64];
  alignas(4) static uint8_t written[PBP_LEARN_WRITTEN_BYTES(PBP_TINY_BLOB_SIZE) + 4u];
  EXPECT_STATUS(pbp_open(&model, pbp_test::tiny_copy().bytes, PBP_TINY_BLOB_SIZE), PBP_OK);
  EXPECT_STATUS(pbp_learn_init(&learner, &model, state, sizeof state), PBP_OK);
  size_t size = 0;
  EXPECT_STATUS(pbp_learn_write_blob(&learner, written, sizeof written, &size), PBP_OK);
  // The section is the last 180 bytes before the trailer; its flags allow bit 0 only.
  const uint32_t at = static_cast<uint32_t>(size) - 4u - fmt::learn_check::kSize;
  set_u32(written + at + fmt::learn_check::kFlags, 2u);
  fmt::store_u32(written + size - 4u, fmt::crc32(written, size - 4u));
  EXPECT_STATUS(pbp_open(&model, written, size), PBP_OK);
  for (float& value : state) value = 7.0f;
  EXPECT_STATUS(pbp_learn_init(&learner, &model, state, sizeof state), PBP_ERR_BAD_LEARN_CHECK);
  PBP_CHECK_EQ(learner.learn_marker, 0u);
  for (const float value : state) PBP_CHECK(value == 7.0f);
}

// A predictive_tail section (the metadata entry retyped): 2 degrees of freedom (no variance); and
// on a binary model. Every case: tests/runtime/predictive_tail.
PBP_TEST(predictive_tail_status) {
  EditableBlob& blob = pbp_test::tiny_copy();
  uint8_t* entry = pbp_test::section_entry(blob, fmt::SectionType::metadata);
  set_u32(entry + fmt::section_entry::kType,
          static_cast<uint32_t>(fmt::SectionType::predictive_tail));
  set_u32(entry + fmt::section_entry::kLength, fmt::predictive_tail_section::kSize);
  uint8_t* dof = pbp_test::section(blob, fmt::SectionType::predictive_tail);
  set_u32(dof, 6u);
  EXPECT_STATUS(open_resealed(blob), PBP_OK);
  set_u32(dof, 7u);
  EXPECT_STATUS(open_resealed(blob), PBP_OK);
  set_u32(dof, 2u);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_PREDICTIVE_TAIL);
  set_u32(dof, 6u);
  set_u32(model_field(blob, fmt::model_section::kLikelihood), PBP_LIKELIHOOD_PROBIT);
  EXPECT_STATUS(open_resealed(blob), PBP_ERR_BAD_PREDICTIVE_TAIL);
}

PBP_TEST(every_status_code_was_reached) {
  for (int code = 0; code < PBP_NUM_STATUSES; ++code) {
    if (!g_reached[code])
      pbp_test::note("not reached: %s", pbp_status_name(static_cast<pbp_status>(code)));
    PBP_CHECK(g_reached[code]);
  }
}
