// SPDX-License-Identifier: Apache-2.0
// pbp runtime: a thin C++17 API over pbp.h, pbp_learn.h and pbp_store.h (declarations only: a
// firmware links the learner's and the store's code only if it calls them). Same rules: no heap,
// no exceptions, statuses. It needs none of the runtime's internal headers (runtime/core).
//
//   pbp::Model model;
//   if (pbp::Status s = model.open(bytes, size); s != PBP_OK) puts(pbp::status_string(s));
//   static pbp::Workspace<8, 50> workspace;  // max inputs, max layer width
//   pbp::Prediction p;
//   model.predict(x, 8, 0.95f, workspace, &p);
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "pbp/pbp.h"
#include "pbp/pbp_learn.h"
#include "pbp/pbp_store.h"

namespace pbp {

using Status = pbp_status;
using Prediction = pbp_prediction;
using ClassResult = pbp_class_result;
using CountResult = pbp_count_result;
using RangeReport = pbp_range_report;

inline const char* status_name(Status status) {
  return pbp_status_name(status);
}
inline const char* status_string(Status status) {
  return pbp_status_string(status);
}

// Compile-time sized workspace for firmware that wants static buffers: fits every model with at
// most MaxInputs inputs and layers at most MaxWidth wide.
template <uint32_t MaxInputs, uint32_t MaxWidth>
struct Workspace {
  static_assert(MaxInputs >= 1 && MaxWidth >= 1, "a model has at least one input and unit");
  static constexpr size_t kBytes = PBP_WORKSPACE_BYTES(MaxInputs, MaxWidth);
  float elements[PBP_WORKSPACE_FLOATS(MaxInputs, MaxWidth)];
  void* data() { return elements; }
  static constexpr size_t size() { return kBytes; }
};

// An opened model: a validated view of a blob that must outlive it.
class Model {
 public:
  // Validates the blob (see pbp_open); on failure the model stays unopened.
  Status open(const void* blob, size_t size) { return pbp_open(&model_, blob, size); }
  bool is_open() const { return model_.open_marker != 0; }
  // The model a pbp_store keeps (see Store::boot).
  Status open_from_store(pbp_store* store, void* buffer, size_t capacity,
                         pbp_store_source* source) {
    return pbp_store_boot(store, buffer, capacity, &model_, source);
  }

  uint32_t task() const { return model_.task; }  // PBP_TASK_*
  uint32_t input_count() const { return model_.input_count; }
  uint32_t output_count() const { return model_.output_count; }
  uint32_t layer_count() const { return model_.layer_count; }
  uint32_t max_width() const { return model_.max_width; }
  size_t workspace_bytes() const { return model_.workspace_bytes; }
  // Every field, for inspection (read only).
  const pbp_model& view() const { return model_; }

  // One row: `input` holds `input_count` raw values; `probability` in (0, 1) sets the interval.
  Status predict(const float* input, uint32_t input_count, float probability, void* workspace,
                 size_t workspace_bytes, Prediction* result) const {
    return pbp_predict(&model_, input, input_count, probability, workspace, workspace_bytes,
                       result);
  }
  template <uint32_t MaxInputs, uint32_t MaxWidth>
  Status predict(const float* input, uint32_t input_count, float probability,
                 Workspace<MaxInputs, MaxWidth>& workspace, Prediction* result) const {
    return predict(input, input_count, probability, workspace.data(), workspace.size(), result);
  }

  // Binary and multiclass models (see pbp_predict_classes): `probabilities` holds `capacity`
  // floats (class_count are written), or is null with capacity 0.
  Status predict_classes(const float* input, uint32_t input_count, void* workspace,
                         size_t workspace_bytes, float* probabilities, uint32_t capacity,
                         ClassResult* result) const {
    return pbp_predict_classes(&model_, input, input_count, workspace, workspace_bytes,
                               probabilities, capacity, result);
  }
  template <uint32_t MaxInputs, uint32_t MaxWidth>
  Status predict_classes(const float* input, uint32_t input_count,
                         Workspace<MaxInputs, MaxWidth>& workspace, float* probabilities,
                         uint32_t capacity, ClassResult* result) const {
    return predict_classes(input, input_count, workspace.data(), workspace.size(), probabilities,
                           capacity, result);
  }

  // Count models (see pbp_predict_count): `probability` in (0, 1) sets the interval.
  Status predict_count(const float* input, uint32_t input_count, float probability, void* workspace,
                       size_t workspace_bytes, CountResult* result) const {
    return pbp_predict_count(&model_, input, input_count, probability, workspace, workspace_bytes,
                             result);
  }
  template <uint32_t MaxInputs, uint32_t MaxWidth>
  Status predict_count(const float* input, uint32_t input_count, float probability,
                       Workspace<MaxInputs, MaxWidth>& workspace, CountResult* result) const {
    return predict_count(input, input_count, probability, workspace.data(), workspace.size(),
                         result);
  }

  // The row against the inputs' training ranges, without predicting (see pbp_check_input_range);
  // every predict call also fills result->range.
  Status check_input_range(const float* input, uint32_t input_count, RangeReport* report) const {
    return pbp_check_input_range(&model_, input, input_count, report);
  }

  Status feature_name(uint32_t index, pbp_string* name) const {
    return pbp_feature_name(&model_, index, name);
  }

 private:
  pbp_model model_{};
};

// Learning on the device (pbp_learn.h): a model's weights in caller RAM, updated one labelled row
// at a time; predicts as a Model does. The source Model's blob must outlive it.
class Learner {
 public:
  Status init(const Model& source, void* state, size_t state_bytes) {
    return pbp_learn_init(&learner_, &source.view(), state, state_bytes);
  }
  Status update(const float* input, uint32_t input_count, float target, void* workspace,
                size_t workspace_bytes, pbp_learn_outcome* outcome = nullptr) {
    return pbp_learn_update(&learner_, input, input_count, target, workspace, workspace_bytes,
                            outcome);
  }
  Status write_blob(void* out, size_t capacity, size_t* written) const {
    return pbp_learn_write_blob(&learner_, out, capacity, written);
  }
  size_t workspace_bytes() const { return learner_.workspace_bytes; }
  size_t blob_bytes() const { return learner_.blob_bytes; }
  uint32_t updates() const { return learner_.updates; }
  // The learnt model, for pbp_predict & co. (read only).
  const pbp_model& model() const { return learner_.model; }
  const pbp_learner& view() const { return learner_; }

  Status predict(const float* input, uint32_t input_count, float probability, void* workspace,
                 size_t workspace_bytes, Prediction* result) const {
    return pbp_predict(&learner_.model, input, input_count, probability, workspace, workspace_bytes,
                       result);
  }
  Status predict_classes(const float* input, uint32_t input_count, void* workspace,
                         size_t workspace_bytes, float* probabilities, uint32_t capacity,
                         ClassResult* result) const {
    return pbp_predict_classes(&learner_.model, input, input_count, workspace, workspace_bytes,
                               probabilities, capacity, result);
  }

 private:
  pbp_learner learner_{};
};

// A learner's model kept across power cuts (pbp_store.h): two flash slots and the factory blob.
class Store {
 public:
  Status init(const pbp_flash& flash, uint32_t slot0_offset, uint32_t slot1_offset,
              uint32_t slot_bytes, const void* factory_blob, size_t factory_size) {
    return pbp_store_init(&store_, &flash, slot0_offset, slot1_offset, slot_bytes, factory_blob,
                          factory_size);
  }
  // Opens the newest slot that opens, else the older, else the factory blob, into `model`.
  Status boot(void* buffer, size_t capacity, Model* model, pbp_store_source* source) {
    return model->open_from_store(&store_, buffer, capacity, source);
  }
  Status save(const Learner& learner, void* scratch, size_t capacity) {
    return pbp_store_save(&store_, &learner.view(), scratch, capacity);
  }
  Status save_blob(const void* blob, size_t size) {
    return pbp_store_save_blob(&store_, blob, size);
  }
  Status forget() { return pbp_store_forget(&store_); }
  const pbp_store& view() const { return store_; }

 private:
  pbp_store store_{};
};

// Bytes of a learner's state and of its update's workspace, as the C macros.
constexpr size_t learn_state_bytes(uint32_t weight_count) {
  return PBP_LEARN_STATE_BYTES(size_t{weight_count});
}
constexpr size_t learn_workspace_bytes(uint32_t input_count, uint32_t unit_count) {
  return PBP_LEARN_WORKSPACE_BYTES(size_t{input_count}, size_t{unit_count});
}

}  // namespace pbp
