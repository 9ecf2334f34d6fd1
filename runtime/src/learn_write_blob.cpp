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

// The learner's update noise, re-fit switch and running check (format::learn_check).
void store_learn_check(const pbp_learner& learner, uint8_t* to) {
  namespace layout = fmt::learn_check;
  const pbp_learn_check& check = learner.check;
  fmt::store_f32(to + layout::kUpdateNoiseA, learner.update_noise_a);
  fmt::store_f32(to + layout::kUpdateNoiseB, learner.update_noise_b);
  fmt::store_u32(to + layout::kFlags, learner.recalibrate != 0u ? layout::kRecalibrate : 0u);
  fmt::store_u32(to + layout::kRows, check.rows);
  fmt::store_f32(to + layout::kWindow, check.window);
  fmt::store_f32(to + layout::kMeanLoglik, check.mean_loglik);
  fmt::store_f32(to + layout::kMeanZ2, check.mean_z2);
  fmt::store_f32(to + layout::kInside95, check.inside_95);
  fmt::store_u32(to + layout::kCandidateCount, layout::kCandidates);
  store_floats(to + layout::kResidualSums, check.residual_sum, layout::kCandidates);
  store_floats(to + layout::kLogSpreadSums, check.log_spread_sum, layout::kCandidates);
}

// Writes the blob. A float32 source keeps its layout: the weights are overwritten in place. A
// float16 or int8 source's weight tensors become float32 tensors appended to the tensor data
// section (its old bytes stay, unreferenced), and every section after it moves by the growth.
// A source without a learn_check section gets one: a table entry (every section moves by 16)
// and the section after the body.
pbp_status write_blob(const pbp_learner& learner, uint8_t* out) {
  const pbp_model& model = learner.model;
  const uint8_t* source = model.blob;
  Sections sections{};
  const pbp_status located = locate_sections(source, model.blob_size, &sections);
  if (located != PBP_OK) return located;
  const bool had_learn_check = sections.learn_check.data != nullptr;
  const uint32_t header_size = fmt::load_u32(source + fmt::header::kHeaderSize);
  const uint32_t count = fmt::load_u32(source + fmt::header::kSectionCount);
  const uint32_t table_end = header_size + count * fmt::section_entry::kSize;
  const uint32_t entry = had_learn_check ? 0u : fmt::section_entry::kSize;
  // The float32 copies of a float16 or int8 source's tensors (the learner's layers are float32:
  // the source's storage is in its layer records). pbp_learn_init made the blob fit 32 bits.
  uint32_t growth = 0;
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    const uint8_t* record = sections.layers.data + l * fmt::layer_record::kSize;
    if (fmt::load_u32(record + fmt::layer_record::kMean + fmt::tensor::kStorage) !=
        PBP_STORAGE_FLOAT32) {
      growth += 8u * model.layers[l].outputs * (model.layers[l].inputs + 1u);
    }
  }
  const uint32_t data_start = static_cast<uint32_t>(sections.tensor_data.data - source);
  const uint32_t data_end = data_start + sections.tensor_data.size;
  const uint32_t body_end = model.blob_size - fmt::kCrcSize;
  // Where a byte of the source lands in the output.
  const auto moved = [&](uint32_t offset) {
    return offset < table_end  ? offset
           : offset < data_end ? offset + entry
                               : offset + entry + growth;
  };
  copy_bytes(out, source, table_end);
  copy_bytes(out + table_end + entry, source + table_end, data_end - table_end);
  copy_bytes(out + data_end + entry + growth, source + data_end, body_end - data_end);
  for (uint32_t s = 0; s < count; ++s) {
    uint8_t* at = out + header_size + s * fmt::section_entry::kSize;
    const uint32_t offset = fmt::load_u32(at + fmt::section_entry::kOffset);
    fmt::store_u32(at + fmt::section_entry::kOffset, moved(offset));
    if (offset == data_start && fmt::load_u32(at + fmt::section_entry::kType) ==
                                    static_cast<uint32_t>(fmt::SectionType::tensor_data)) {
      const uint32_t length = fmt::load_u32(at + fmt::section_entry::kLength);
      fmt::store_u32(at + fmt::section_entry::kLength, length + growth);
    }
  }
  uint32_t learn_check_at = 0;
  if (had_learn_check) {
    learn_check_at = moved(static_cast<uint32_t>(sections.learn_check.data - source));
  } else {
    learn_check_at = learner.blob_bytes - fmt::kCrcSize - fmt::learn_check::kSize;
    for (uint32_t i = body_end + entry + growth; i < learn_check_at; ++i) out[i] = 0;  // padding
    uint8_t* at = out + table_end;
    fmt::store_u32(at + fmt::section_entry::kType,
                   static_cast<uint32_t>(fmt::SectionType::learn_check));
    fmt::store_u32(at + fmt::section_entry::kFlags, 0u);  // optional: older readers skip it
    fmt::store_u32(at + fmt::section_entry::kOffset, learn_check_at);
    fmt::store_u32(at + fmt::section_entry::kLength, fmt::learn_check::kSize);
    fmt::store_u32(out + fmt::header::kSectionCount, count + 1u);
  }
  store_learn_check(learner, out + learn_check_at);
  fmt::store_u32(out + fmt::header::kTotalSize, learner.blob_bytes);
  uint8_t* model_section = out + moved(static_cast<uint32_t>(sections.model.data - source));
  fmt::store_f32(model_section + fmt::model_section::kNoiseA, model.noise_a);
  fmt::store_f32(model_section + fmt::model_section::kNoiseB, model.noise_b);
  if (model.likelihood == PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED) {
    fmt::store_f32(model_section + fmt::model_section::kEpistemicScale, model.epistemic_scale);
  }
  const uint32_t layers_at = static_cast<uint32_t>(sections.layers.data - source);
  uint32_t appended = data_end - data_start;  // from the tensor data start
  const uint32_t written_data_start = moved(data_start);
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
      store_floats(out + written_data_start + offset, values[t], elements);
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
