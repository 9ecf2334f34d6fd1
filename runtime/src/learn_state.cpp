// SPDX-License-Identifier: Apache-2.0
// pbp_learn_init: a learner's state (float32 means and variances) from an opened model.
#include "learn_state.hpp"

#include "blob_view.hpp"
#include "pbp/learn/network_update.hpp"
#include "pbp/model_view.hpp"
#include "pbp/storage_types.hpp"

namespace pbp::detail {

static_assert(PBP_LEARN_WORKSPACE_FLOATS(3u, 7u) == learn::update_workspace_elements(3, 7),
              "pbp_learn.h's workspace size is network_update.hpp's");
static_assert(PBP_LEARN_WRITTEN_BYTES(0u) ==
                  format::section_entry::kSize + format::learn_check::kSize,
              "pbp_learn.h's written size is format.hpp's learn_check section and its entry");

namespace {

// One weight tensor of `layer` into `out`: model_view's decoder, widened from float16 or decoded
// from int8 where stored so (one float multiply per weight, the same on every target). A function
// of this file's, so the learner compiles as it did before the decoder was shared.
void copy_tensor(const pbp_layer& layer, const void* stored, bool variance, float* out) {
  pbp::model_view::decode_tensor(layer, stored, variance, out);
}

// The bytes the float32 copies of a float16 or int8 model's weight tensors add to the tensor
// data section when pbp_learn_write_blob writes it (the source's halves or codes stay).
uint64_t tensor_growth(const pbp_model& model) {
  uint64_t bytes = 0;
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    const pbp_layer& layer = model.layers[l];
    if (layer.storage != PBP_STORAGE_FLOAT32) bytes += 8ull * (layer.outputs * (layer.inputs + 1u));
  }
  return bytes;
}

// Where pbp_learn_write_blob puts the learn_check section when `model`'s blob has none: after
// the body, moved by the new table entry and the tensor growth, 4-byte aligned.
uint64_t new_learn_check_at(const pbp_model& model) {
  const uint64_t moved_end = uint64_t{model.blob_size} - format::kCrcSize +
                             format::section_entry::kSize + tensor_growth(model);
  return (moved_end + 3u) & ~uint64_t{3};
}

}  // namespace
}  // namespace pbp::detail

extern "C" pbp_status pbp_learn_init(pbp_learner* learner, const pbp_model* source, void* state,
                                     size_t state_bytes) {
  using namespace pbp::detail;
  if (learner == nullptr) return PBP_ERR_NULL_ARGUMENT;
  *learner = pbp_learner{};
  if (source == nullptr || state == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (source->open_marker != kOpenMarker) return PBP_ERR_MODEL_NOT_OPEN;
  // The learner's regression update is the Gaussian-Gamma one: not another regression
  // likelihood's (likelihoods.hpp).
  if ((source->task != PBP_TASK_REGRESSION && source->task != PBP_TASK_BINARY) ||
      (source->task == PBP_TASK_REGRESSION && source->likelihood != PBP_LIKELIHOOD_GAUSSIAN &&
       source->likelihood != PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED)) {
    return PBP_ERR_WRONG_TASK;
  }
  // The learner keeps float32 weights: a runtime without the float32 kernel cannot predict them.
  if (!PBP_WITH_FLOAT32) return PBP_ERR_STORAGE_TYPE;
  for (uint32_t l = 0; l < source->layer_count; ++l) {  // the table's, which copy_tensor reads
    const uint32_t storage = source->layers[l].storage;
    if (!pbp::is_storage_type(storage)) return PBP_ERR_STORAGE_TYPE;
  }
  if (reinterpret_cast<uintptr_t>(state) % alignof(float) != 0) return PBP_ERR_MISALIGNED_POINTER;
  // weight_count <= blob size / 4 (pbp_open): 8 per weight fits 64 bits, and size_t here.
  if (state_bytes < PBP_LEARN_STATE_BYTES(static_cast<uint64_t>(source->weight_count))) {
    return PBP_ERR_BUFFER_TOO_SMALL;
  }
  // The learn_check section restores the update's noise, the re-fit switch and the check, so
  // that a learner restarted from its own blob goes on as if it had never stopped. Checked here,
  // before anything is written: pbp_open skips it (a firmware that only predicts never reads it).
  Sections sections{};
  pbp_status status = locate_sections(source->blob, source->blob_size, &sections);
  if (status != PBP_OK) return status;
  const bool has_learn_check = sections.learn_check.data != nullptr;
  LearnCheckRecord restored{source->noise_a,
                            source->noise_b,
                            source->likelihood == PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED,
                            {}};
  if (has_learn_check) {
    status = read_learn_check(sections.learn_check, &restored);
    if (status != PBP_OK) return status;
  } else if (pbp::format::load_u32(source->blob + pbp::format::header::kSectionCount) >=
             PBP_MAX_SECTIONS) {
    return PBP_ERR_SECTION_COUNT;  // no room in the section table to write the check
  }
  // An existing section's bytes are rewritten in place; a new one goes after the body.
  const uint64_t blob_bytes =
      has_learn_check
          ? uint64_t{source->blob_size} + tensor_growth(*source)
          : new_learn_check_at(*source) + pbp::format::learn_check::kSize + pbp::format::kCrcSize;
  if (blob_bytes > 0xFFFFFFFFu) return PBP_ERR_BUFFER_TOO_SMALL;  // a blob's size is a u32
  float* next = static_cast<float*>(state);
  learner->model = *source;
  for (uint32_t l = 0; l < source->layer_count; ++l) {
    const pbp_layer& from = source->layers[l];
    pbp_layer& to = learner->model.layers[l];
    const uint32_t count = from.outputs * (from.inputs + 1u);
    copy_tensor(from, from.stored_mean, false, next);
    copy_tensor(from, from.stored_variance, true, next + count);
    to.mean = next;
    to.variance = next + count;
    to.stored_mean = to.mean;
    to.stored_variance = to.variance;
    to.storage = PBP_STORAGE_FLOAT32;
    next += 2u * count;
  }
  learner->state = static_cast<float*>(state);
  learner->weight_count = source->weight_count;
  learner->workspace_bytes = PBP_LEARN_WORKSPACE_BYTES(source->input_count, unit_count(*source));
  learner->blob_bytes = static_cast<uint32_t>(blob_bytes);
  learner->update_noise_a = restored.update_noise_a;
  learner->update_noise_b = restored.update_noise_b;
  // Only the epistemic-scaled predictive has a scale to re-fit, whatever a blob says.
  learner->recalibrate =
      restored.recalibrate != 0u && source->likelihood == PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED;
  learner->check = restored.check;
  learner->learn_marker = kLearnMarker;
  return PBP_OK;
}
