// SPDX-License-Identifier: Apache-2.0
// Reading a blob through the model pbp_open validated: the one reader of blob bytes, on the device
// (pbp_open's own walks, the learner) and on the host (the trainer's read_blob, `pbp inspect`).
// Every accessor trusts what pbp_open checked: offsets inside the blob, lengths, storage types.
// The layout itself is format.hpp's.
#pragma once
#include <stdint.h>

#include "pbp/format.hpp"
#include "pbp/pbp.h"
#include "pbp/storage_types.hpp"

namespace pbp::model_view {

// One entry of the section table (format::section_entry).
struct SectionEntry {
  uint32_t type;  // format::SectionType, or a later version's
  uint32_t flags;
  uint32_t offset;
  uint32_t length;
};

// The entry at `entry` (inside a table pbp_open's locate_sections bounded): its fields as stored.
inline SectionEntry section_entry_at(const uint8_t* entry) {
  return SectionEntry{format::load_u32(entry + format::section_entry::kType),
                      format::load_u32(entry + format::section_entry::kFlags),
                      format::load_u32(entry + format::section_entry::kOffset),
                      format::load_u32(entry + format::section_entry::kLength)};
}
// Entries of an opened model's section table, and entry `index` (< section_count).
inline uint32_t section_count(const pbp_model& model) {
  return format::load_u32(model.blob + format::header::kSectionCount);
}
inline SectionEntry section_entry(const pbp_model& model, uint32_t index) {
  const uint32_t header_size = format::load_u32(model.blob + format::header::kHeaderSize);
  return section_entry_at(model.blob + header_size + index * format::section_entry::kSize);
}

// The CRC-32 trailer of an opened model's blob.
inline uint32_t stored_crc(const pbp_model& model) {
  return format::load_u32(model.blob + model.blob_size - format::kCrcSize);
}

// One metadata entry (format::metadata_entry): its key, and its value's bytes inside the section.
struct MetadataEntry {
  uint32_t key;  // format::MetadataKey, or a later version's
  const uint8_t* value;
  uint32_t length;
};

// Reads the entry at `*offset` of a metadata section of `size` bytes and advances past it (and
// its padding); false if it does not fit. pbp_open validates the section with this walk.
inline bool next_metadata_entry(const uint8_t* metadata, uint32_t size, uint32_t* offset,
                                MetadataEntry* entry) {
  const uint32_t remaining = size - *offset;
  if (remaining < format::metadata_entry::kHeaderSize) return false;
  const uint8_t* p = metadata + *offset;
  entry->key = format::load_u32(p + format::metadata_entry::kKey);
  entry->length = format::load_u32(p + format::metadata_entry::kLength);
  entry->value = p + format::metadata_entry::kHeaderSize;
  // 64-bit: a length near 2^32 must not wrap the padding arithmetic.
  const uint64_t padded = (static_cast<uint64_t>(entry->length) + 3u) & ~static_cast<uint64_t>(3u);
  if (padded > remaining - format::metadata_entry::kHeaderSize) return false;
  *offset += format::metadata_entry::kHeaderSize + static_cast<uint32_t>(padded);
  return true;
}

// Calls visit(entry) for every metadata entry of an opened model, in blob order (none without
// a metadata section). pbp_open walked the same entries, so the walk covers the section.
template <class Visit>
void for_each_metadata_entry(const pbp_model& model, Visit&& visit) {
  uint32_t offset = 0;
  MetadataEntry entry;
  while (next_metadata_entry(model.metadata, model.metadata_size, &offset, &entry)) visit(entry);
}

// Elements of each of a layer's two weight tensors: outputs x (inputs + 1), bias last.
inline uint32_t weight_element_count(const pbp_layer& layer) {
  return layer.outputs * (layer.inputs + 1u);
}

// The stored codes of a layer of pbp_open's, by storage type (format.hpp's layouts).
inline const uint8_t* stored_bytes(const pbp_layer& layer, bool variance) {
  return static_cast<const uint8_t*>(variance ? layer.stored_variance : layer.stored_mean);
}
// Float16 layers: element i's half.
inline uint16_t stored_half(const pbp_layer& layer, bool variance, uint32_t i) {
  return format::load_u16(stored_bytes(layer, variance) + 2u * i);
}
// Int8 layers: row j's mean scale s_j, and element i's variance code.
inline float int8_row_scale(const pbp_layer& layer, uint32_t row) {
  return format::load_f32(stored_bytes(layer, false) + format::int8_weights::kScaleSize * row);
}
inline uint8_t int8_variance_code(const pbp_layer& layer, uint32_t i) {
  return stored_bytes(layer, true)[format::int8_weights::kVarianceCodesOffset + i];
}

// The weight decoder: a layer's mean (`variance` false) or variance tensor, weight_element_count
// values, into `out` as T, whatever the storage type: the storage table's decode
// (storage_types.hpp; in float the same bits on every target, in double exact). `stored` is the
// tensor's stored_mean or stored_variance (decode_weights passes it; the learner calls this form).
template <class T>
inline void decode_tensor(const pbp_layer& layer, const void* stored, bool variance, T* out) {
  decode_stored_tensor(layer.storage, static_cast<const uint8_t*>(stored), variance, layer.outputs,
                       layer.inputs + 1u, out);
}
template <class T>
inline void decode_weights(const pbp_layer& layer, bool variance, T* out) {
  decode_tensor(layer, stored_bytes(layer, variance), variance, out);
}

}  // namespace pbp::model_view
