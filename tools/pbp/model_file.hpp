// Model files: `train` writes a blob, `predict`/`eval` load it and run it the way a device does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pbp/trainer/model.hpp"

namespace pbp::cli {

struct ModelDescription {
  size_t inputs = 0;
  std::vector<std::string> feature_names;  // may be empty if the blob has no metadata
  std::string target_name;
};

class LoadedModel {
 public:
  // Throws std::runtime_error "<path>: <reason>" if the file is unreadable or not a valid blob.
  static LoadedModel load(const std::string& path);
  // Opens blob bytes already in memory; `source` names them in errors.
  static LoadedModel open(std::vector<uint8_t> blob, const std::string& source);
  LoadedModel(LoadedModel&&) noexcept;
  LoadedModel& operator=(LoadedModel&&) noexcept;
  ~LoadedModel();

  const ModelDescription& description() const;
  // Predictive distribution for `x` (description().inputs raw values), original units.
  trainer::Prediction predict(std::span<const double> x) const;

  struct State;

 private:
  explicit LoadedModel(std::unique_ptr<State> state);
  // Opens state->blob (`size` bytes) with the runtime and reads the description.
  static LoadedModel from_state(std::unique_ptr<State> state, size_t size, const std::string& path);
  std::unique_ptr<State> state_;
};

// Serialises `model` and writes it atomically; returns the number of bytes written.
size_t save_model(const std::string& path, const trainer::Model& model);

}  // namespace pbp::cli
