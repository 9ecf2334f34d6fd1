// SPDX-License-Identifier: Apache-2.0
// The model blob writer: lays the sections out in the order FORMAT.md shows, then checks the
// result with the runtime's own reader.
#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "blob_model_check.hpp"
#include "int8_codes.hpp"
#include "pbp/activations.hpp"
#include "pbp/format.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp.h"
#include "pbp/storage_types.hpp"
#include "pbp/trainer/atomic_file.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/input_relevance.hpp"

namespace pbp::trainer {
namespace {

namespace fmt = pbp::format;

// Appends little-endian fields; positions are byte offsets into the growing blob.
class ByteWriter {
 public:
  size_t size() const { return bytes_.size(); }
  size_t reserve(size_t count) {  // zero-filled, returns its offset
    const size_t at = bytes_.size();
    bytes_.resize(at + count, 0);
    return at;
  }
  void align4() { bytes_.resize(fmt::padded_to_4(static_cast<uint32_t>(bytes_.size())), 0); }
  void put_u32(size_t at, uint32_t value) { fmt::store_u32(&bytes_[at], value); }
  void put_f32(size_t at, float value) { fmt::store_f32(&bytes_[at], value); }
  void append_bytes(const void* data, size_t count) {
    const size_t at = reserve(count);
    if (count) std::memcpy(&bytes_[at], data, count);
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

float to_float(double value, const char* what) {
  const float f = static_cast<float>(value);
  if (!(f - f == 0.0f)) {  // NaN or Inf, also after rounding to float32
    throw std::invalid_argument(std::string("write_blob: ") + what + " is not finite in float32");
  }
  return f;
}

// Writes a tensor descriptor at `at` and its float32 data at the end of the tensor data.
void put_tensor(ByteWriter& out, size_t at, const std::vector<double>& values, size_t data_start,
                const char* what) {
  out.align4();
  const size_t offset = out.size() - data_start;
  const size_t data_at = out.reserve(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i)
    out.put_f32(data_at + 4 * i, to_float(values[i], what));
  out.put_u32(at + fmt::tensor::kStorage, static_cast<uint32_t>(fmt::Storage::float32));
  out.put_u32(at + fmt::tensor::kElementCount, static_cast<uint32_t>(values.size()));
  out.put_u32(at + fmt::tensor::kOffset, static_cast<uint32_t>(offset));
  out.put_u32(at + fmt::tensor::kByteLength, static_cast<uint32_t>(values.size() * 4));
}

// A layer's weight tensor (`variance`: its variances) in the storage type `Codec` (the storage
// table's, storage_types.hpp), by the codec's own encoder: its descriptor at `at`, its bytes at
// the end of the tensor data.
template <class Codec>
void put_encoded_tensor(ByteWriter& out, size_t at, const Layer& layer, bool variance,
                        size_t data_start) {
  const std::vector<double>& values = variance ? layer.variance : layer.mean;
  const uint32_t count = static_cast<uint32_t>(values.size());
  const uint64_t length = Codec::byte_length(variance, layer.outputs, count);
  out.align4();
  const size_t offset = out.size() - data_start;
  const size_t data_at = out.reserve(length);
  const char* problem = Codec::encode(values.data(), variance, layer.outputs, layer.row_length(),
                                      out.bytes().data() + data_at);
  if (problem != nullptr) {
    throw std::invalid_argument(std::string("write_blob: ") +
                                (variance ? "a weight variance" : "a weight mean") + problem);
  }
  out.put_u32(at + fmt::tensor::kStorage, Codec::kId);
  out.put_u32(at + fmt::tensor::kElementCount, count);
  out.put_u32(at + fmt::tensor::kOffset, static_cast<uint32_t>(offset));
  out.put_u32(at + fmt::tensor::kByteLength, static_cast<uint32_t>(length));
}

// A layer's weight tensors in storage type 3 or 4 (int8_codes.hpp's rules).
void put_int8_weights(ByteWriter& out, size_t record, const Layer& layer, fmt::Storage storage,
                      size_t data_start) {
  namespace int8 = fmt::int8_weights;
  const uint32_t rows = layer.outputs;
  const uint32_t count = rows * layer.row_length();
  for (uint32_t i = 0; i < count; ++i) {
    to_float(layer.mean[i], "a weight mean");  // finite in float32, as every blob value
    to_float(layer.variance[i], "a weight variance");
    if (layer.variance[i] < 0.0)
      throw std::invalid_argument("write_blob: a weight variance is < 0");
  }
  const detail::Int8Codes codes =
      detail::int8_codes(layer, storage == fmt::Storage::int8_log_variance);
  out.align4();
  const size_t mean_at = out.reserve(int8::mean_byte_length(rows, count));
  for (uint32_t j = 0; j < rows; ++j)
    out.put_f32(mean_at + int8::kScaleSize * j, codes.row_scales[j]);
  for (uint32_t i = 0; i < count; ++i) {
    out.bytes()[mean_at + int8::mean_codes_offset(rows) + i] = static_cast<uint8_t>(codes.means[i]);
  }
  out.put_u32(record + fmt::layer_record::kMean + fmt::tensor::kStorage,
              static_cast<uint32_t>(storage));
  out.put_u32(record + fmt::layer_record::kMean + fmt::tensor::kElementCount, count);
  out.put_u32(record + fmt::layer_record::kMean + fmt::tensor::kOffset,
              static_cast<uint32_t>(mean_at - data_start));
  out.put_u32(record + fmt::layer_record::kMean + fmt::tensor::kByteLength,
              static_cast<uint32_t>(int8::mean_byte_length(rows, count)));

  out.align4();
  const size_t variance_at = out.reserve(int8::variance_byte_length(count));
  out.put_f32(variance_at, codes.variance_scale);
  for (uint32_t i = 0; i < count; ++i) {
    out.bytes()[variance_at + int8::kVarianceCodesOffset + i] = codes.variances[i];
  }
  out.put_u32(record + fmt::layer_record::kVariance + fmt::tensor::kStorage,
              static_cast<uint32_t>(storage));
  out.put_u32(record + fmt::layer_record::kVariance + fmt::tensor::kElementCount, count);
  out.put_u32(record + fmt::layer_record::kVariance + fmt::tensor::kOffset,
              static_cast<uint32_t>(variance_at - data_start));
  out.put_u32(record + fmt::layer_record::kVariance + fmt::tensor::kByteLength,
              static_cast<uint32_t>(int8::variance_byte_length(count)));
}

// A storage type whose codec encodes a tensor by itself (not int8's: int8_codes.cpp).
template <class Codec>
concept EncodesTensors = requires(const double* values, uint8_t* bytes) {
  { Codec::encode(values, false, 1u, 1u, bytes) } -> std::same_as<const char*>;
};

// Both tensors of `layer` if `storage` is Codec's and it encodes tensors by itself.
template <class Codec>
bool put_encoded_layer(ByteWriter& out, size_t record, const Layer& layer, fmt::Storage storage,
                       size_t data_start) {
  if constexpr (EncodesTensors<Codec>) {
    if (static_cast<uint32_t>(storage) != Codec::kId) return false;
    put_encoded_tensor<Codec>(out, record + fmt::layer_record::kMean, layer, false, data_start);
    put_encoded_tensor<Codec>(out, record + fmt::layer_record::kVariance, layer, true, data_start);
    return true;
  }
  return false;
}

// A layer's two weight tensors in `storage`, a type of the storage table (check_blob_model): its
// codec's encoder, or the int8 codes' search, which encodes both tensors of a layer at once.
void put_layer_weights(ByteWriter& out, size_t record, const Layer& layer, fmt::Storage storage,
                       size_t data_start) {
#define PBP_PUT_STORAGE(Codec, name, built, kernel, validator) \
  if (put_encoded_layer<Codec>(out, record, layer, storage, data_start)) return;
  PBP_STORAGE_TYPES(PBP_PUT_STORAGE)
#undef PBP_PUT_STORAGE
  put_int8_weights(out, record, layer, storage, data_start);  // the types without an encode
}

void put_metadata_entry(ByteWriter& out, fmt::MetadataKey key, const void* value, size_t length) {
  const size_t at = out.reserve(fmt::metadata_entry::kHeaderSize);
  out.put_u32(at + fmt::metadata_entry::kKey, static_cast<uint32_t>(key));
  out.put_u32(at + fmt::metadata_entry::kLength, static_cast<uint32_t>(length));
  out.append_bytes(value, length);
  out.align4();
}

void put_metadata(ByteWriter& out, const Model& model) {
  using Key = fmt::MetadataKey;
  const Metadata& m = model.metadata;
  if (!m.name.empty()) put_metadata_entry(out, Key::name, m.name.data(), m.name.size());
  if (!m.target_name.empty()) {
    put_metadata_entry(out, Key::target_name, m.target_name.data(), m.target_name.size());
  }
  if (!m.notes.empty()) put_metadata_entry(out, Key::notes, m.notes.data(), m.notes.size());
  // Every blob says which version wrote it (pbp inspect shows it), whatever the model was read as.
  static constexpr char kWriter[] = "pbp-edge " PBP_VERSION_STRING;
  put_metadata_entry(out, Key::writer, kWriter, sizeof kWriter - 1);
  if (m.training_rows != 0) {
    uint8_t rows[8];
    fmt::store_u32(rows, static_cast<uint32_t>(m.training_rows));
    fmt::store_u32(rows + 4, static_cast<uint32_t>(m.training_rows >> 32));
    put_metadata_entry(out, Key::training_rows, rows, sizeof rows);
  }
  for (const std::string& feature : m.feature_names) {
    put_metadata_entry(out, Key::feature_name, feature.data(), feature.size());
  }
  if (!model.input_priors.empty()) {
    std::vector<uint8_t> priors;
    try {
      priors = encode_input_priors(model.input_priors);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("write_blob: ") + e.what());
    }
    put_metadata_entry(out, Key::input_prior_precision, priors.data(), priors.size());
  }
  if (model.input_laplace_scale) {
    std::vector<uint8_t> scale;
    try {
      scale = encode_laplace_scale(*model.input_laplace_scale);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("write_blob: ") + e.what());
    }
    put_metadata_entry(out, Key::input_laplace_scale, scale.data(), scale.size());
  }
}

}  // namespace

std::vector<uint8_t> write_blob(const Model& model) {
  check_blob_model(model);
  // metadata always (at least the writer's version); the input occupancies when the model has them
  const bool occupancy = !model.input_occupancy.empty();
  const bool pair_occupancy = !model.pair_occupancy.empty();
  const bool tail = model.tail_dof != 0;
  const uint32_t section_count =
      5u + (occupancy ? 1u : 0u) + (pair_occupancy ? 1u : 0u) + (tail ? 1u : 0u);
  const uint32_t layer_count = static_cast<uint32_t>(model.layers.size());

  ByteWriter out;
  const size_t header = out.reserve(fmt::header::kSize);
  const size_t table = out.reserve(section_count * fmt::section_entry::kSize);
  uint32_t next_entry = 0;
  // Records a section that starts at `start` and ends at the current size.
  auto close_section = [&](fmt::SectionType type, bool required, size_t start) {
    const size_t entry = table + next_entry++ * fmt::section_entry::kSize;
    out.put_u32(entry + fmt::section_entry::kType, static_cast<uint32_t>(type));
    out.put_u32(entry + fmt::section_entry::kFlags, required ? fmt::kSectionRequired : 0u);
    out.put_u32(entry + fmt::section_entry::kOffset, static_cast<uint32_t>(start));
    out.put_u32(entry + fmt::section_entry::kLength, static_cast<uint32_t>(out.size() - start));
  };

  const uint32_t likelihood = model_blob_likelihood(model);
  const bool scaled = likelihood_has_epistemic_scale(likelihood);
  const size_t model_at =
      out.reserve(scaled ? fmt::model_section::kSizeWithEpistemicScale : fmt::model_section::kSize);
  out.put_u32(model_at + fmt::model_section::kLikelihood, likelihood);
  if (scaled) {
    out.put_f32(model_at + fmt::model_section::kEpistemicScale,
                static_cast<float>(model.epistemic_scale));
  }
  out.put_u32(model_at + fmt::model_section::kInputCount, model.input_count());
  out.put_u32(model_at + fmt::model_section::kOutputCount, model.output_count());
  out.put_u32(model_at + fmt::model_section::kLayerCount, layer_count);
  out.put_f32(model_at + fmt::model_section::kNoiseA, to_float(model.noise.a, "noise a"));
  out.put_f32(model_at + fmt::model_section::kNoiseB, to_float(model.noise.b, "noise b"));
  out.put_f32(model_at + fmt::model_section::kPriorA, to_float(model.prior.a, "prior a"));
  out.put_f32(model_at + fmt::model_section::kPriorB, to_float(model.prior.b, "prior b"));
  close_section(fmt::SectionType::model, true, model_at);

  const size_t layers_at = out.reserve(layer_count * fmt::layer_record::kSize);
  close_section(fmt::SectionType::layers, true, layers_at);

  const Standardisation& s = model.standardisation;
  const bool ranges = !s.input_min.empty();
  const size_t standardisation_at = out.reserve(
      ranges ? fmt::standardisation_section::kSizeWithRanges : fmt::standardisation_section::kSize);
  out.put_f32(standardisation_at + fmt::standardisation_section::kTargetMean,
              to_float(s.target_mean, "target mean"));
  out.put_f32(standardisation_at + fmt::standardisation_section::kTargetStd,
              to_float(s.target_std, "target std"));
  close_section(fmt::SectionType::standardisation, true, standardisation_at);

  const size_t metadata_at = out.size();
  put_metadata(out, model);
  close_section(fmt::SectionType::metadata, false, metadata_at);

  if (occupancy) {
    namespace layout = fmt::input_occupancy_section;
    const size_t occupancy_at = out.reserve(static_cast<size_t>(layout::size(model.input_count())));
    out.put_f32(occupancy_at + layout::kDistanceScale,
                to_float(model.distance_scale, "distance scale"));
    for (size_t w = 0; w < model.input_occupancy.size(); ++w) {
      out.put_u32(occupancy_at + layout::kBitmaps + 4 * w, model.input_occupancy[w]);
    }
    close_section(fmt::SectionType::input_occupancy, true, occupancy_at);
  }
  if (pair_occupancy) {
    namespace layout = fmt::input_pair_occupancy_section;
    const size_t pairs_at = out.reserve(static_cast<size_t>(layout::size(model.input_count())));
    out.put_f32(pairs_at + layout::kPairScale, to_float(model.pair_scale, "pair scale"));
    for (size_t w = 0; w < model.pair_occupancy.size(); ++w) {
      out.put_u32(pairs_at + layout::kGrids + 4 * w, model.pair_occupancy[w]);
    }
    close_section(fmt::SectionType::input_pair_occupancy, true, pairs_at);
  }
  if (tail) {
    namespace layout = fmt::predictive_tail_section;
    const size_t tail_at = out.reserve(layout::kSize);
    out.put_u32(tail_at + layout::kDegreesOfFreedom, model.tail_dof);
    close_section(fmt::SectionType::predictive_tail, true, tail_at);
  }

  // Tensor data last: every descriptor above is patched as its tensor is appended.
  const size_t data_at = out.size();
  for (uint32_t l = 0; l < layer_count; ++l) {
    const Layer& layer = model.layers[l];
    const size_t record = layers_at + l * fmt::layer_record::kSize;
    out.put_u32(record + fmt::layer_record::kInputs, layer.inputs);
    out.put_u32(record + fmt::layer_record::kOutputs, layer.outputs);
    out.put_u32(record + fmt::layer_record::kActivation, static_cast<uint32_t>(layer.activation));
    put_layer_weights(out, record, layer, model.storage_of(l), data_at);
  }
  put_tensor(out, standardisation_at + fmt::standardisation_section::kInputMean, s.input_mean,
             data_at, "an input mean");
  put_tensor(out, standardisation_at + fmt::standardisation_section::kInputStd, s.input_std,
             data_at, "an input std");
  if (ranges) {
    put_tensor(out, standardisation_at + fmt::standardisation_section::kInputMin, s.input_min,
               data_at, "an input minimum");
    put_tensor(out, standardisation_at + fmt::standardisation_section::kInputMax, s.input_max,
               data_at, "an input maximum");
  }
  close_section(fmt::SectionType::tensor_data, true, data_at);

  const size_t crc_at = out.reserve(fmt::kCrcSize);
  if (out.size() > UINT32_MAX) throw std::invalid_argument("write_blob: model larger than 4 GiB");
  for (uint32_t i = 0; i < 4; ++i) out.bytes()[header + fmt::header::kMagic + i] = fmt::kMagic[i];
  out.put_u32(header + fmt::header::kVersion, fmt::kVersion);
  out.put_u32(header + fmt::header::kTotalSize, static_cast<uint32_t>(out.size()));
  out.put_u32(header + fmt::header::kHeaderSize, fmt::header::kSize);
  out.put_u32(header + fmt::header::kSectionCount, section_count);
  out.put_u32(crc_at, fmt::crc32(out.bytes().data(), crc_at));

  std::vector<uint8_t> blob = std::move(out.bytes());
  pbp_model opened;
  const pbp_status status = pbp_open(&opened, blob.data(), blob.size());
  if (status != PBP_OK) {
    throw std::invalid_argument(std::string("write_blob: the model does not form a valid blob: ") +
                                pbp_status_string(status));
  }
  return blob;
}

void write_blob_file(const Model& model, const std::string& path) {
  const std::vector<uint8_t> blob = write_blob(model);
  write_file_atomically(path, std::span<const uint8_t>(blob));
}

Layer int8_decoded(const Layer& layer, fmt::Storage storage) {
  namespace int8 = fmt::int8_weights;
  const detail::Int8Codes codes =
      detail::int8_codes(layer, storage == fmt::Storage::int8_log_variance);
  Layer decoded = layer;
  const uint32_t row_length = layer.row_length();
  for (size_t i = 0; i < layer.mean.size(); ++i) {
    decoded.mean[i] = int8::mean<double>(codes.row_scales[i / row_length], codes.means[i]);
    decoded.variance[i] = fmt::int8_layer_variance<double>(
        static_cast<uint32_t>(storage), codes.variance_scale, codes.variances[i]);
  }
  return decoded;
}

}  // namespace pbp::trainer
