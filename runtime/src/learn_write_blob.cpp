// SPDX-License-Identifier: Apache-2.0
// pbp_learn_write_blob: the learnt model as a blob, laid out as its source with float32 weights.
#include "blob_view.hpp"
#include "learn_state.hpp"

namespace pbp::detail {
namespace {

namespace fmt = format;

void copy_bytes(uint8_t* to, const uint8_t* from, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) to[i] = from[i];
}

void store_floats(uint8_t* to, const float* values, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) fmt::store_f32(to + 4u * i, values[i]);
}

// Writes the blob. A float32 source keeps its layout: the weights are overwritten in place. A
// float16 or int8 source's weight tensors become float32 tensors appended to the tensor data
// section (its old bytes stay, unreferenced), and every section after it moves by the growth.
pbp_status write_blob(const pbp_learner& learner, uint8_t* out) {
  const pbp_model& model = learner.model;
  const uint8_t* source = model.blob;
  Sections sections{};
  const pbp_status located = locate_sections(source, model.blob_size, &sections);
  if (located != PBP_OK) return located;
  const uint32_t growth = learner.blob_bytes - model.blob_size;
  const uint32_t data_start = static_cast<uint32_t>(sections.tensor_data.data - source);
  const uint32_t data_end = data_start + sections.tensor_data.size;
  const uint32_t body_end = model.blob_size - fmt::kCrcSize;
  // Where a byte of the source lands in the output.
  const auto moved = [&](uint32_t offset) { return offset < data_end ? offset : offset + growth; };
  copy_bytes(out, source, data_end);
  copy_bytes(out + data_end + growth, source + data_end, body_end - data_end);
  if (growth != 0) {
    const uint32_t header_size = fmt::load_u32(source + fmt::header::kHeaderSize);
    const uint32_t count = fmt::load_u32(source + fmt::header::kSectionCount);
    for (uint32_t s = 0; s < count; ++s) {
      uint8_t* entry = out + header_size + s * fmt::section_entry::kSize;
      const uint32_t offset = fmt::load_u32(entry + fmt::section_entry::kOffset);
      if (offset == data_start && fmt::load_u32(entry + fmt::section_entry::kType) ==
                                      static_cast<uint32_t>(fmt::SectionType::tensor_data)) {
        const uint32_t length = fmt::load_u32(entry + fmt::section_entry::kLength);
        fmt::store_u32(entry + fmt::section_entry::kLength, length + growth);
      } else {
        fmt::store_u32(entry + fmt::section_entry::kOffset, moved(offset));
      }
    }
    fmt::store_u32(out + fmt::header::kTotalSize, learner.blob_bytes);
  }
  uint8_t* model_section = out + moved(static_cast<uint32_t>(sections.model.data - source));
  fmt::store_f32(model_section + fmt::model_section::kNoiseA, model.noise_a);
  fmt::store_f32(model_section + fmt::model_section::kNoiseB, model.noise_b);
  if (model.likelihood == PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED) {
    fmt::store_f32(model_section + fmt::model_section::kEpistemicScale, model.epistemic_scale);
  }
  const uint32_t layers_at = static_cast<uint32_t>(sections.layers.data - source);
  uint32_t appended = data_end - data_start;  // from the tensor data start
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    const pbp_layer& layer = model.layers[l];
    const uint32_t elements = layer.outputs * (layer.inputs + 1u);
    uint8_t* record = out + moved(layers_at + l * fmt::layer_record::kSize);
    const uint32_t descriptors[2] = {fmt::layer_record::kMean, fmt::layer_record::kVariance};
    const float* values[2] = {layer.mean, layer.variance};
    for (uint32_t t = 0; t < 2; ++t) {
      uint8_t* descriptor = record + descriptors[t];
      if (fmt::load_u32(descriptor + fmt::tensor::kStorage) != PBP_STORAGE_FLOAT32) {
        fmt::store_u32(descriptor + fmt::tensor::kStorage, PBP_STORAGE_FLOAT32);
        fmt::store_u32(descriptor + fmt::tensor::kOffset, appended);
        fmt::store_u32(descriptor + fmt::tensor::kByteLength, 4u * elements);
        appended += 4u * elements;
      }
      const uint32_t offset = fmt::load_u32(descriptor + fmt::tensor::kOffset);
      store_floats(out + data_start + offset, values[t], elements);
    }
  }
  const uint32_t size = learner.blob_bytes - fmt::kCrcSize;
  fmt::store_u32(out + size, fmt::crc32(out, size));
  // What was written must open: a model never leaves here that a device could not load.
  pbp_model check{};
  return pbp_open(&check, out, learner.blob_bytes);
}

}  // namespace
}  // namespace pbp::detail

extern "C" pbp_status pbp_learn_write_blob(const pbp_learner* learner, void* out, size_t capacity,
                                           size_t* written) {
  if (written != nullptr) *written = 0;
  if (learner == nullptr || out == nullptr || written == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (learner->learn_marker != pbp::detail::kLearnMarker) return PBP_ERR_MODEL_NOT_OPEN;
  if (reinterpret_cast<uintptr_t>(out) % 4u != 0) return PBP_ERR_MISALIGNED_POINTER;
  if (capacity < learner->blob_bytes) return PBP_ERR_BUFFER_TOO_SMALL;
  const pbp_status status = pbp::detail::write_blob(*learner, static_cast<uint8_t*>(out));
  if (status == PBP_OK) *written = learner->blob_bytes;
  return status;
}
