// SPDX-License-Identifier: Apache-2.0
// The outer checks of a blob: envelope (size, magic, version, total size, CRC) and the section
// table. Order matters: no field is used before the checks that make it trustworthy.
#include "blob_view.hpp"

namespace pbp::detail {

pbp_status check_envelope(const uint8_t* blob, size_t size) {
  if (size < format::kMinimumBlobSize) return PBP_ERR_TOO_SMALL;
  for (uint32_t i = 0; i < 4; ++i) {
    if (blob[format::header::kMagic + i] != format::kMagic[i]) return PBP_ERR_BAD_MAGIC;
  }
  if (format::load_u32(blob + format::header::kVersion) != format::kVersion) {
    return PBP_ERR_UNSUPPORTED_VERSION;
  }
  // Exact equality: a flipped bit in total_size can never move the CRC window.
  if (static_cast<uint64_t>(format::load_u32(blob + format::header::kTotalSize)) != size) {
    return PBP_ERR_SIZE_MISMATCH;
  }
  const size_t covered = size - format::kCrcSize;
  if (format::crc32(blob, covered) != format::load_u32(blob + covered)) {
    return PBP_ERR_CRC_MISMATCH;
  }
  return PBP_OK;
}

namespace {

Span* known_section(Sections* sections, uint32_t type) {
  switch (static_cast<format::SectionType>(type)) {
    case format::SectionType::model:
      return &sections->model;
    case format::SectionType::layers:
      return &sections->layers;
    case format::SectionType::standardisation:
      return &sections->standardisation;
    case format::SectionType::tensor_data:
      return &sections->tensor_data;
    case format::SectionType::metadata:
      return &sections->metadata;
    case format::SectionType::learn_check:
      return &sections->learn_check;
    case format::SectionType::input_occupancy:
      // a runtime built without it does not know it: the required flag refuses the blob
      return PBP_WITH_DATA_DISTANCE ? &sections->input_occupancy : nullptr;
    case format::SectionType::input_pair_occupancy:
      return PBP_WITH_DATA_DISTANCE ? &sections->input_pair_occupancy : nullptr;
    case format::SectionType::predictive_tail:
      return PBP_WITH_PREDICTIVE_TAIL ? &sections->predictive_tail : nullptr;
  }
  return nullptr;
}

}  // namespace

pbp_status locate_sections(const uint8_t* blob, uint32_t size, Sections* sections) {
  *sections = Sections{};
  // The body is everything before the CRC trailer; check_envelope made size >= the minimum.
  const uint32_t body_end = size - format::kCrcSize;
  const uint32_t header_size = format::load_u32(blob + format::header::kHeaderSize);
  if (header_size < format::header::kSize || header_size % 4u != 0 || header_size > body_end) {
    return PBP_ERR_HEADER_SIZE;
  }
  const uint32_t count = format::load_u32(blob + format::header::kSectionCount);
  const uint64_t table_end = static_cast<uint64_t>(header_size) +
                             static_cast<uint64_t>(count) * format::section_entry::kSize;
  if (count == 0 || count > PBP_MAX_SECTIONS || table_end > body_end) return PBP_ERR_SECTION_COUNT;

  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* entry = blob + header_size + i * format::section_entry::kSize;
    const uint32_t type = format::load_u32(entry + format::section_entry::kType);
    const uint32_t flags = format::load_u32(entry + format::section_entry::kFlags);
    const uint32_t offset = format::load_u32(entry + format::section_entry::kOffset);
    const uint32_t length = format::load_u32(entry + format::section_entry::kLength);
    if (offset % 4u != 0) return PBP_ERR_SECTION_MISALIGNED;
    // Sections live after the table and before the trailer; 64-bit sums cannot overflow.
    if (offset < table_end || static_cast<uint64_t>(offset) + length > body_end) {
      return PBP_ERR_SECTION_RANGE;
    }
    Span* slot = known_section(sections, type);
    if (slot == nullptr) {
      if (flags & format::kSectionRequired) return PBP_ERR_UNKNOWN_REQUIRED_SECTION;
      continue;  // an optional section of a later version: skipped
    }
    if (slot->data != nullptr) return PBP_ERR_DUPLICATE_SECTION;
    *slot = Span{blob + offset, length};
  }
  if (sections->model.data == nullptr || sections->layers.data == nullptr ||
      sections->standardisation.data == nullptr || sections->tensor_data.data == nullptr) {
    return PBP_ERR_MISSING_SECTION;
  }
  return PBP_OK;
}

pbp_status locate_float_tensor(const uint8_t* descriptor, uint32_t element_count, Span tensor_data,
                               const float** elements) {
  const uint32_t storage = format::load_u32(descriptor + format::tensor::kStorage);
  const uint32_t count = format::load_u32(descriptor + format::tensor::kElementCount);
  const uint32_t offset = format::load_u32(descriptor + format::tensor::kOffset);
  const uint32_t byte_length = format::load_u32(descriptor + format::tensor::kByteLength);
  if (storage != static_cast<uint32_t>(format::Storage::float32)) return PBP_ERR_STORAGE_TYPE;
  if (count != element_count || static_cast<uint64_t>(byte_length) != 4ull * count) {
    return PBP_ERR_TENSOR_SIZE;
  }
  if (offset % 4u != 0) return PBP_ERR_TENSOR_MISALIGNED;
  if (static_cast<uint64_t>(offset) + byte_length > tensor_data.size) return PBP_ERR_TENSOR_RANGE;
  // The blob is 4-byte aligned (pbp_open checks) and so are the section and the offset.
  *elements = reinterpret_cast<const float*>(tensor_data.data + offset);
  return PBP_OK;
}

pbp_status check_finite(const float* values, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    if (!math::is_finite(values[i])) return PBP_ERR_NONFINITE_VALUE;
  }
  return PBP_OK;
}

pbp_status check_variances(const float* values, uint32_t count) {
  const pbp_status status = check_finite(values, count);
  if (status != PBP_OK) return status;
  for (uint32_t i = 0; i < count; ++i) {
    if (values[i] < 0.0f) return PBP_ERR_NEGATIVE_VARIANCE;
  }
  return PBP_OK;
}

pbp_status check_input_stds(const float* means, const float* stds, uint32_t count) {
  const pbp_status status = check_finite(stds, count);
  if (status != PBP_OK) return status;
  for (uint32_t i = 0; i < count; ++i) {
    if (!format::valid_input_standardisation(means[i], stds[i])) {
      return PBP_ERR_BAD_STANDARDISATION;
    }
  }
  return PBP_OK;
}

}  // namespace pbp::detail
