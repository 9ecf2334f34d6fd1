// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/model_file.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "pbp/host/errors.hpp"
#include "pbp/pbp.hpp"
#include "pbp/trainer/atomic_file.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/option_names.hpp"

namespace pbp::host {

struct LoadedModel::State {
  std::vector<uint32_t> blob;  // uint32_t storage: pbp_open needs 4-byte alignment
  size_t size = 0;
  pbp::Model model;
  std::vector<uint32_t> workspace;
  ModelDescription description;
};

namespace {

std::string to_string(const pbp_string& text) {
  return std::string(text.data, text.length);
}

[[noreturn]] void fail(const std::string& path, const std::string& reason) {
  throw std::runtime_error(path.empty() ? reason : path + ": " + reason);
}

}  // namespace

LoadedModel::LoadedModel(std::unique_ptr<State> state) : state_(std::move(state)) {}
LoadedModel::LoadedModel(LoadedModel&&) noexcept = default;
LoadedModel& LoadedModel::operator=(LoadedModel&&) noexcept = default;
LoadedModel::~LoadedModel() = default;

LoadedModel LoadedModel::open(std::vector<uint8_t> blob, const std::string& source) {
  auto state = std::make_unique<State>();
  state->blob = aligned_copy(blob);
  return from_state(std::move(state), blob.size(), source);
}

LoadedModel LoadedModel::load(const std::string& path) {
  return open(read_model_file(path), path);
}

LoadedModel LoadedModel::from_state(std::unique_ptr<State> state, size_t size,
                                    const std::string& path) {
  open_blob(state->model, state->blob.data(), size, path);
  state->size = size;
  state->workspace.resize((state->model.workspace_bytes() + 3) / 4);
  const pbp_model& view = state->model.view();
  ModelDescription& description = state->description;
  description.task = static_cast<trainer::Task>(view.task);
  description.inputs = view.input_count;
  description.outputs = view.output_count;
  description.target_name = to_string(view.target_name);
  for (uint32_t i = 0; i < view.feature_name_count; ++i) {
    pbp_string name{};
    if (state->model.feature_name(i, &name) != PBP_OK) break;
    description.feature_names.push_back(to_string(name));
  }
  for (uint32_t l = 0; l + 1 < view.layer_count; ++l) {
    description.hidden.push_back(view.layers[l].outputs);
  }
  description.notes = to_string(view.notes);
  return LoadedModel(std::move(state));
}

const ModelDescription& LoadedModel::description() const {
  return state_->description;
}

std::span<const uint8_t> LoadedModel::bytes() const {
  return {reinterpret_cast<const uint8_t*>(state_->blob.data()), state_->size};
}

const pbp::Model& LoadedModel::runtime() const {
  return state_->model;
}

double LoadedModel::noise_std() const {
  const pbp_model& view = state_->model.view();
  const double a = view.noise_a, b = view.noise_b;
  return std::sqrt(b / (a - 1.0)) * static_cast<double>(view.target_std);
}

const pbp_model& LoadedModel::view() const {
  return state_->model.view();
}

void LoadedModel::require_task(bool served, const char* what) const {
  if (!served) {
    throw std::runtime_error(std::string("a ") + trainer::task_name(state_->description.task) +
                             " model does not predict " + what);
  }
}

trainer::Prediction LoadedModel::predict(std::span<const double> x) const {
  return predict_interval(x, 0.95).moments;
}

RegressionPrediction LoadedModel::predict_interval(std::span<const double> x,
                                                   double probability) const {
  require_task(state_->description.task == trainer::Task::regression, "a mean and variance");
  std::vector<float> input(x.begin(), x.end());
  pbp::Prediction result{};
  const pbp::Status status = state_->model.predict(
      input.data(), static_cast<uint32_t>(input.size()), static_cast<float>(probability),
      state_->workspace.data(), state_->workspace.size() * 4, &result);
  if (status != PBP_OK) {
    throw std::runtime_error(std::string("prediction failed: ") + pbp::status_string(status));
  }
  RegressionPrediction prediction;
  prediction.moments.mean = result.mean;
  prediction.moments.epistemic_variance = result.epistemic_variance;
  prediction.moments.aleatoric_variance = result.aleatoric_variance;
  prediction.std = result.std;
  prediction.lower = result.lower;
  prediction.upper = result.upper;
  return prediction;
}

ClassPrediction LoadedModel::predict_classes(std::span<const double> x) const {
  const ModelDescription& model = state_->description;
  require_task(model.task == trainer::Task::binary || model.task == trainer::Task::multiclass,
               "class probabilities");
  const std::vector<float> input(x.begin(), x.end());
  std::vector<float> probabilities(model.classes());
  pbp_class_result result{};
  const pbp_status status = pbp_predict_classes(
      &state_->model.view(), input.data(), static_cast<uint32_t>(input.size()),
      state_->workspace.data(), state_->workspace.size() * 4, probabilities.data(),
      static_cast<uint32_t>(probabilities.size()), &result);
  if (status != PBP_OK) {
    throw std::runtime_error(std::string("prediction failed: ") + pbp::status_string(status));
  }
  ClassPrediction prediction;
  prediction.probabilities.assign(probabilities.begin(),
                                  probabilities.begin() + result.class_count);
  prediction.entropy = result.entropy;
  return prediction;
}

pbp_range_report LoadedModel::input_range(std::span<const double> x) const {
  const std::vector<float> input(x.begin(), x.end());
  pbp_range_report report{};
  const pbp_status status = pbp_check_input_range(&state_->model.view(), input.data(),
                                                  static_cast<uint32_t>(input.size()), &report);
  if (status != PBP_OK) {
    throw std::runtime_error(std::string("range check failed: ") + pbp::status_string(status));
  }
  return report;
}

CountPrediction LoadedModel::predict_count(std::span<const double> x) const {
  require_task(state_->description.task == trainer::Task::count, "a count distribution");
  const std::vector<float> input(x.begin(), x.end());
  pbp_count_result result{};
  const pbp_status status =
      pbp_predict_count(&state_->model.view(), input.data(), static_cast<uint32_t>(input.size()),
                        0.95f, state_->workspace.data(), state_->workspace.size() * 4, &result);
  if (status != PBP_OK) {
    throw std::runtime_error(std::string("prediction failed: ") + pbp::status_string(status));
  }
  CountPrediction prediction;
  prediction.mean = result.mean;
  prediction.variance = result.variance;
  prediction.mode = result.mode;
  prediction.lower = result.lower;
  prediction.upper = result.upper;
  return prediction;
}

std::vector<uint8_t> read_model_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) fail(path, std::string("cannot open model: ") + std::strerror(errno));
  const std::streamoff length = file.tellg();
  if (length < 0) fail(path, "cannot read model");
  std::vector<uint8_t> bytes(static_cast<size_t>(length));
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(length))) {
    fail(path, "cannot read model");
  }
  return bytes;
}

std::vector<uint32_t> aligned_copy(const std::vector<uint8_t>& bytes) {
  std::vector<uint32_t> words((bytes.size() + 3) / 4);
  if (!bytes.empty()) std::memcpy(words.data(), bytes.data(), bytes.size());
  return words;
}

void open_blob(pbp::Model& model, const void* blob, size_t size, const std::string& source) {
  const pbp::Status opened = model.open(blob, size);
  if (opened != PBP_OK) {
    fail(source, std::string("invalid model blob: ") + pbp::status_string(opened) + " (" +
                     pbp::status_name(opened) + ")");
  }
}

format::Storage parse_weight_storage(const std::string& name) {
  const std::optional<format::Storage> storage =
      trainer::parse_option_name(trainer::kStorageNames, name);
  if (storage) return *storage;
  throw UsageError("--storage must be " + trainer::option_choices(trainer::kStorageNames) +
                   ", got '" + name + "'");
}

Int8Fallback parse_int8_fallback(const std::optional<std::string>& name) {
  if (!name || *name == "auto") return Int8Fallback::log_variance_then_float16;
  if (*name == "float16") return Int8Fallback::float16;
  if (*name == "none") return Int8Fallback::none;
  throw UsageError("--fallback must be auto, float16 or none, got '" + *name + "'");
}

const char* storage_name(uint32_t storage) {
  const char* name = pbp::storage_type_name(storage);  // storage_types.hpp
  return name != nullptr ? name : "float32";
}

const char* storage_text(format::Storage storage) {
  return storage_name(static_cast<uint32_t>(storage));
}

std::vector<uint8_t> save_model(const std::string& path, const trainer::Model& model) {
  std::vector<uint8_t> blob = trainer::write_blob(model);
  trainer::write_file_atomically(path, blob);
  return blob;
}

}  // namespace pbp::host
