// SPDX-License-Identifier: Apache-2.0
// The model blob reader of the trainer: decodes a blob into a double-precision Model through the
// layout in format.hpp, so `pbp verify` can compare the trainer's arithmetic with the runtime's
// on the very weights a device holds.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "pbp/format.hpp"
#include "pbp/pbp.h"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/input_relevance.hpp"

namespace pbp::trainer {
namespace {

namespace fmt = pbp::format;

// A blob that pbp_open accepted: every offset below was checked to lie inside it.
class BlobReader {
 public:
  explicit BlobReader(std::span<const uint8_t> blob) : blob_(blob) {
    const uint32_t header_size = u32(fmt::header::kHeaderSize);
    const uint32_t sections = u32(fmt::header::kSectionCount);
    for (uint32_t s = 0; s < sections; ++s) {
      const uint32_t entry = header_size + s * fmt::section_entry::kSize;
      const uint32_t type = u32(entry + fmt::section_entry::kType);
      if (type == 0 || type > fmt::kKnownSectionTypes) continue;  // optional, unknown: skipped
      section_offset_[type] = u32(entry + fmt::section_entry::kOffset);
      section_length_[type] = u32(entry + fmt::section_entry::kLength);
    }
  }

  uint32_t u32(size_t at) const { return fmt::load_u32(&blob_[at]); }
  double f32(size_t at) const { return fmt::load_f32(&blob_[at]); }
  uint32_t section(fmt::SectionType type) const {
    return section_offset_[static_cast<uint32_t>(type)];
  }
  uint32_t section_length(fmt::SectionType type) const {
    return section_length_[static_cast<uint32_t>(type)];
  }

  // The elements of the tensor whose descriptor is at `descriptor`, decoded from its storage.
  std::vector<double> tensor(size_t descriptor) const {
    const uint32_t count = u32(descriptor + fmt::tensor::kElementCount);
    const size_t start =
        section(fmt::SectionType::tensor_data) + u32(descriptor + fmt::tensor::kOffset);
    const bool half = storage(descriptor) == fmt::Storage::float16;
    std::vector<double> values(count);
    for (uint32_t i = 0; i < count; ++i) {
      values[i] = half ? fmt::half_to_float(fmt::load_u16(&blob_[start + 2 * size_t{i}]))
                       : f32(start + 4 * size_t{i});
    }
    return values;
  }
  // A layer's weight tensor of `rows` rows: as tensor(), and int8 codes decoded with their
  // scales (exactly: s_j q, w u^2 and t M 2^(e - 7) are exact in double).
  std::vector<double> weights(size_t descriptor, uint32_t rows, bool variance) const {
    const fmt::Storage kind = storage(descriptor);
    if (!fmt::has_int8_means(static_cast<uint32_t>(kind))) return tensor(descriptor);
    namespace int8 = fmt::int8_weights;
    const uint32_t count = u32(descriptor + fmt::tensor::kElementCount);
    const size_t start =
        section(fmt::SectionType::tensor_data) + u32(descriptor + fmt::tensor::kOffset);
    std::vector<double> values(count);
    if (variance) {
      const float scale = fmt::load_f32(&blob_[start]);
      for (uint32_t i = 0; i < count; ++i) {
        const uint8_t code = blob_[start + int8::kVarianceCodesOffset + i];
        values[i] = fmt::int8_layer_variance<double>(static_cast<uint32_t>(kind), scale, code);
      }
      return values;
    }
    const uint32_t row_length = count / rows;
    for (uint32_t i = 0; i < count; ++i) {
      const float scale = fmt::load_f32(&blob_[start + int8::kScaleSize * (i / row_length)]);
      const int8_t code = static_cast<int8_t>(blob_[start + int8::mean_codes_offset(rows) + i]);
      values[i] = int8::mean<double>(scale, code);
    }
    return values;
  }
  fmt::Storage storage(size_t descriptor) const {
    return static_cast<fmt::Storage>(u32(descriptor + fmt::tensor::kStorage));
  }

  std::span<const uint8_t> bytes(size_t at, uint32_t length) const {
    return blob_.subspan(at, length);
  }

  std::string text(size_t at, uint32_t length) const {
    return std::string(reinterpret_cast<const char*>(&blob_[at]), length);
  }

 private:
  std::span<const uint8_t> blob_;
  uint32_t section_offset_[fmt::kKnownSectionTypes + 1] = {};
  uint32_t section_length_[fmt::kKnownSectionTypes + 1] = {};
};

// The metadata entries into model.metadata, the ARD input priors into model.input_priors (after
// the layers: their count is the model's inputs) and a Laplace model's q(phi).
void read_metadata(const BlobReader& blob, Model& model) {
  Metadata& metadata = model.metadata;
  const uint32_t start = blob.section(fmt::SectionType::metadata);
  const uint32_t end = start + blob.section_length(fmt::SectionType::metadata);
  for (uint32_t at = start; at < end;) {
    const auto key = static_cast<fmt::MetadataKey>(blob.u32(at + fmt::metadata_entry::kKey));
    const uint32_t length = blob.u32(at + fmt::metadata_entry::kLength);
    const uint32_t value = at + fmt::metadata_entry::kHeaderSize;
    switch (key) {
      case fmt::MetadataKey::name:
        metadata.name = blob.text(value, length);
        break;
      case fmt::MetadataKey::target_name:
        metadata.target_name = blob.text(value, length);
        break;
      case fmt::MetadataKey::notes:
        metadata.notes = blob.text(value, length);
        break;
      case fmt::MetadataKey::writer:
        metadata.writer = blob.text(value, length);
        break;
      case fmt::MetadataKey::training_rows:
        metadata.training_rows = blob.u32(value) | uint64_t{blob.u32(value + 4)} << 32;
        break;
      case fmt::MetadataKey::feature_name:
        metadata.feature_names.push_back(blob.text(value, length));
        break;
      case fmt::MetadataKey::input_prior_precision:
        if (!model.input_priors.empty()) throw std::invalid_argument("input priors appear twice");
        model.input_priors = decode_input_priors(blob.bytes(value, length), model.input_count());
        break;
      case fmt::MetadataKey::input_laplace_scale:
        if (model.input_laplace_scale) {
          throw std::invalid_argument("the Laplace prior's scale appears twice");
        }
        model.input_laplace_scale = decode_laplace_scale(blob.bytes(value, length));
        break;
    }
    at = value + fmt::padded_to_4(length);
  }
}

}  // namespace

Model read_blob(std::span<const uint8_t> blob) {
  // pbp_open needs 4-byte alignment, which a byte span does not promise.
  std::vector<uint32_t> aligned((blob.size() + 3) / 4);
  if (!blob.empty()) std::memcpy(aligned.data(), blob.data(), blob.size());
  pbp_model opened;
  const pbp_status status = pbp_open(&opened, aligned.data(), blob.size());
  if (status != PBP_OK) {
    throw std::invalid_argument(std::string("read_blob: not a valid model blob: ") +
                                pbp_status_string(status));
  }

  const BlobReader reader(blob);
  Model model;
  const uint32_t m = reader.section(fmt::SectionType::model);
  model.task = static_cast<Task>(opened.task);
  model.epistemic_scale = opened.epistemic_scale;
  model.noise = {reader.f32(m + fmt::model_section::kNoiseA),
                 reader.f32(m + fmt::model_section::kNoiseB)};
  model.prior = {reader.f32(m + fmt::model_section::kPriorA),
                 reader.f32(m + fmt::model_section::kPriorB)};

  const uint32_t layers = reader.section(fmt::SectionType::layers);
  const uint32_t layer_count = reader.u32(m + fmt::model_section::kLayerCount);
  for (uint32_t l = 0; l < layer_count; ++l) {
    const size_t record = layers + size_t{l} * fmt::layer_record::kSize;
    Layer layer;
    layer.inputs = reader.u32(record + fmt::layer_record::kInputs);
    layer.outputs = reader.u32(record + fmt::layer_record::kOutputs);
    // pbp_open admitted only the activations fmt::Activation names.
    layer.activation =
        static_cast<fmt::Activation>(reader.u32(record + fmt::layer_record::kActivation));
    layer.mean = reader.weights(record + fmt::layer_record::kMean, layer.outputs, false);
    layer.variance = reader.weights(record + fmt::layer_record::kVariance, layer.outputs, true);
    // pbp_open checked each layer has one storage type for both tensors.
    model.layer_storage.push_back(reader.storage(record + fmt::layer_record::kMean));
    model.layers.push_back(std::move(layer));
  }
  // One storage for the model where the layers agree; else per layer, and the coarsest overall
  // (the storage ids rise from float32 to float16 to int8; both int8 types count as int8).
  const auto coarseness = [](fmt::Storage s) {
    return fmt::has_int8_means(static_cast<uint32_t>(s)) ? fmt::Storage::int8 : s;
  };
  model.weight_storage = fmt::Storage::float32;
  for (const fmt::Storage s : model.layer_storage) {
    model.weight_storage = std::max(model.weight_storage, coarseness(s));
  }
  if (std::all_of(model.layer_storage.begin(), model.layer_storage.end(),
                  [&](fmt::Storage s) { return s == model.weight_storage; })) {
    model.layer_storage.clear();
  }

  const uint32_t s = reader.section(fmt::SectionType::standardisation);
  Standardisation& standardisation = model.standardisation;
  standardisation.target_mean = reader.f32(s + fmt::standardisation_section::kTargetMean);
  standardisation.target_std = reader.f32(s + fmt::standardisation_section::kTargetStd);
  standardisation.input_mean = reader.tensor(s + fmt::standardisation_section::kInputMean);
  standardisation.input_std = reader.tensor(s + fmt::standardisation_section::kInputStd);
  if (reader.section_length(fmt::SectionType::standardisation) >=
      fmt::standardisation_section::kSizeWithRanges) {
    standardisation.input_min = reader.tensor(s + fmt::standardisation_section::kInputMin);
    standardisation.input_max = reader.tensor(s + fmt::standardisation_section::kInputMax);
  }

  if (reader.section_length(fmt::SectionType::metadata) != 0) read_metadata(reader, model);
  return model;
}

}  // namespace pbp::trainer
