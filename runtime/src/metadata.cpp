// SPDX-License-Identifier: Apache-2.0
// The optional metadata section: key/length/value entries, validated in full at open time.
#include "blob_view.hpp"
#include "pbp/model_view.hpp"

namespace pbp::detail {
namespace {

using model_view::MetadataEntry;

// The walk every reader of the section takes (model_view.hpp), over a section of pbp_open's.
bool next_entry(Span metadata, uint32_t* offset, MetadataEntry* entry) {
  return model_view::next_metadata_entry(metadata.data, metadata.size, offset, entry);
}

pbp_string as_string(const MetadataEntry& entry) {
  return pbp_string{reinterpret_cast<const char*>(entry.value), entry.length};
}

// A single-valued string key: at most once.
bool set_once(pbp_string* field, const MetadataEntry& entry) {
  if (field->data != nullptr) return false;
  *field = as_string(entry);
  return true;
}

}  // namespace

pbp_status read_metadata(Span metadata, pbp_model* model) {
  if (metadata.size % 4u != 0) return PBP_ERR_BAD_METADATA;
  bool have_rows = false;
  uint32_t offset = 0;
  while (offset < metadata.size) {
    MetadataEntry entry;
    if (!next_entry(metadata, &offset, &entry)) return PBP_ERR_BAD_METADATA;
    bool ok = true;
    switch (static_cast<format::MetadataKey>(entry.key)) {
      case format::MetadataKey::name:
        ok = set_once(&model->name, entry);
        break;
      case format::MetadataKey::target_name:
        ok = set_once(&model->target_name, entry);
        break;
      case format::MetadataKey::notes:
        ok = set_once(&model->notes, entry);
        break;
      case format::MetadataKey::writer:
        ok = set_once(&model->writer, entry);
        break;
      case format::MetadataKey::training_rows:
        ok = !have_rows && entry.length == 8;
        have_rows = true;
        if (ok) {
          model->training_rows = static_cast<uint64_t>(format::load_u32(entry.value)) |
                                 (static_cast<uint64_t>(format::load_u32(entry.value + 4)) << 32);
        }
        break;
      case format::MetadataKey::feature_name:
        ok = model->feature_name_count < model->input_count;
        ++model->feature_name_count;
        break;
      default:
        break;  // a key of a later version: skipped
    }
    if (!ok) return PBP_ERR_BAD_METADATA;
  }
  if (model->feature_name_count != 0 && model->feature_name_count != model->input_count) {
    return PBP_ERR_BAD_METADATA;
  }
  model->metadata = metadata.data;
  model->metadata_size = metadata.size;
  return PBP_OK;
}

}  // namespace pbp::detail

extern "C" pbp_status pbp_feature_name(const pbp_model* model, uint32_t index, pbp_string* name) {
  if (model == nullptr || name == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (model->open_marker != pbp::detail::kOpenMarker) return PBP_ERR_MODEL_NOT_OPEN;
  if (index >= model->feature_name_count) return PBP_ERR_INDEX_OUT_OF_RANGE;
  // Validated at open: the walk cannot fail and finds feature_name_count names.
  const pbp::detail::Span metadata{model->metadata, model->metadata_size};
  uint32_t offset = 0;
  uint32_t seen = 0;
  pbp::model_view::MetadataEntry entry;
  while (pbp::detail::next_entry(metadata, &offset, &entry)) {
    if (entry.key != static_cast<uint32_t>(pbp::format::MetadataKey::feature_name)) continue;
    if (seen++ == index) {
      *name = pbp::detail::as_string(entry);
      return PBP_OK;
    }
  }
  return PBP_ERR_INDEX_OUT_OF_RANGE;
}
