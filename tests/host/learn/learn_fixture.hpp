// SPDX-License-Identifier: Apache-2.0
// Small trained models and their blobs for the learner's tests, and a learner in owned buffers.
#pragma once
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "pbp/pbp.h"
#include "pbp/pbp_learn.h"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp_learn_test {

using namespace pbp::trainer;
namespace format = pbp::format;

// Three inputs; regression: y = sin(2 x0) + x1 x2 + N(0, 0.1^2); binary: 1 when x0 + x1 x2 plus
// N(0, 0.3^2) noise is positive.
inline Dataset synthetic(Task task, size_t rows, uint64_t seed) {
  Random random(seed);
  Dataset data;
  data.rows = rows;
  data.inputs = 3;
  data.feature_names = {"a", "b", "c"};
  data.target_name = "y";
  for (size_t i = 0; i < rows; ++i) {
    const double x0 = 2.0 * random.uniform() - 1.0, x1 = random.normal(), x2 = random.normal();
    data.x.insert(data.x.end(), {x0, x1, x2});
    const double y = task == Task::regression
                         ? std::sin(2.0 * x0) + x1 * x2 + 0.1 * random.normal()
                         : (x0 + x1 * x2 + 0.3 * random.normal() > 0.0 ? 1 : 0);
    data.y.push_back(y);
  }
  return data;
}

// A 3-10-1 model trained for two epochs on 40 rows: far from converged, so later rows move it.
inline Model small_model(Task task, Activation activation = Activation::relu,
                         format::Storage storage = format::Storage::float32) {
  TrainOptions options;
  options.task = task;
  options.hidden = {10};
  options.epochs = 2;
  options.activation = activation;
  Model model = train(synthetic(task, 40, 3), options);
  model.weight_storage = storage;
  return model;
}

// A float's bits, to compare learners bit for bit.
inline uint32_t bits(float value) {
  uint32_t b;
  __builtin_memcpy(&b, &value, 4);
  return b;
}

// A blob in 4-byte aligned memory.
struct Blob {
  std::vector<uint32_t> words;
  size_t size = 0;
  explicit Blob(const std::vector<uint8_t>& bytes)
      : words((bytes.size() + 3) / 4), size(bytes.size()) {
    __builtin_memcpy(words.data(), bytes.data(), bytes.size());
  }
  const void* data() const { return words.data(); }
};

// An opened blob and a learner started from it, in owned buffers.
struct Learner {
  Blob blob;
  pbp_model model{};
  pbp_learner learner{};
  std::vector<float> state;
  std::vector<float> workspace;
  std::vector<float> predict_workspace;
  explicit Learner(const std::vector<uint8_t>& bytes) : blob(bytes) {
    if (pbp_open(&model, blob.data(), blob.size) != PBP_OK) throw std::runtime_error("open");
    state.resize(PBP_LEARN_STATE_BYTES(model.weight_count) / 4);
    if (pbp_learn_init(&learner, &model, state.data(), state.size() * 4) != PBP_OK) {
      throw std::runtime_error("init");
    }
    workspace.resize(learner.workspace_bytes / 4);
    predict_workspace.resize(model.workspace_bytes / 4);
  }
  Learner(const Learner&) = delete;
  pbp_status update(const float* x, float y, pbp_learn_outcome* outcome = nullptr) {
    return pbp_learn_update(&learner, x, learner.model.input_count, y, workspace.data(),
                            workspace.size() * 4, outcome);
  }
};

}  // namespace pbp_learn_test
