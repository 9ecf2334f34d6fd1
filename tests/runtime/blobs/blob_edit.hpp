// SPDX-License-Identifier: Apache-2.0
// Crafting invalid blobs for the portable tests: a static, aligned copy of the tiny blob whose
// fields are edited in place and then resealed (total size and CRC recomputed), so that the
// edit reaches the check behind the CRC. No heap: one static buffer.
#pragma once
#include <stdint.h>
#include <string.h>

#include "pbp/format.hpp"
#include "pbp/pbp.h"
#include "tiny_blob.h"

namespace pbp_test {

namespace fmt = pbp::format;

struct EditableBlob {
  alignas(8) uint8_t bytes[PBP_TINY_BLOB_SIZE + 40];  // four copies must fit the micro:bit
  uint32_t size;
};

// The buffer every edit works on (tests run one at a time).
inline EditableBlob& tiny_copy() {
  static EditableBlob blob;
  memcpy(blob.bytes, pbp_tiny_blob, PBP_TINY_BLOB_SIZE);
  memset(blob.bytes + PBP_TINY_BLOB_SIZE, 0, sizeof blob.bytes - PBP_TINY_BLOB_SIZE);
  blob.size = PBP_TINY_BLOB_SIZE;
  return blob;
}

// Two models in .bss, not on the stack, shared by the tests that need a pair (they run one at a
// time): the micro:bit's 16 KiB of RAM has room for one pair.
inline pbp_model* shared_models() {
  static pbp_model models[2];
  return models;
}

inline void reseal(EditableBlob& blob) {
  const uint32_t covered = blob.size - fmt::kCrcSize;
  fmt::store_u32(blob.bytes + fmt::header::kTotalSize, blob.size);
  fmt::store_u32(blob.bytes + covered, fmt::crc32(blob.bytes, covered));
}

inline pbp_status open_blob(const EditableBlob& blob) {
  pbp_model model;
  return pbp_open(&model, blob.bytes, blob.size);
}

// Reseals, then opens.
inline pbp_status open_resealed(EditableBlob& blob) {
  reseal(blob);
  return open_blob(blob);
}

// The section table entry of the first section of `type` in the (unedited) tiny blob.
inline uint8_t* section_entry(EditableBlob& blob, fmt::SectionType type) {
  const uint32_t count = fmt::load_u32(blob.bytes + fmt::header::kSectionCount);
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t* entry = blob.bytes + fmt::header::kSize + i * fmt::section_entry::kSize;
    if (fmt::load_u32(entry) == static_cast<uint32_t>(type)) return entry;
  }
  return nullptr;
}

inline uint8_t* section(EditableBlob& blob, fmt::SectionType type) {
  return blob.bytes + fmt::load_u32(section_entry(blob, type) + fmt::section_entry::kOffset);
}

// Layer record `index` and its tensor descriptors.
inline uint8_t* layer_record(EditableBlob& blob, uint32_t index) {
  return section(blob, fmt::SectionType::layers) + index * fmt::layer_record::kSize;
}

// Element `index` of the float32 tensor whose descriptor is at `descriptor`.
inline uint8_t* tensor_element(EditableBlob& blob, const uint8_t* descriptor, uint32_t index) {
  return section(blob, fmt::SectionType::tensor_data) +
         fmt::load_u32(descriptor + fmt::tensor::kOffset) + 4u * index;
}

inline void set_u32(uint8_t* at, uint32_t value) {
  fmt::store_u32(at, value);
}
inline void set_f32(uint8_t* at, float value) {
  fmt::store_f32(at, value);
}

}  // namespace pbp_test
