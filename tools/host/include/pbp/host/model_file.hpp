// SPDX-License-Identifier: Apache-2.0
// The model handle: a blob opened by the runtime as a device opens it, for every front end (the
// command line's predict, eval, verify..., and pbp_edge.Model); `train` writes a blob with
// save_model.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pbp/pbp.h"
#include "pbp/pbp.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::host {

struct ModelDescription {
  trainer::Task task = trainer::Task::regression;
  size_t inputs = 0;
  size_t outputs = 1;                      // network outputs: C for multiclass, else 1
  std::vector<std::string> feature_names;  // may be empty if the blob has no metadata
  std::string target_name;
  std::vector<uint32_t> hidden;  // widths of the hidden layers
  std::string notes;             // the metadata notes (pbp_edge keeps its parameters there)
  // Classes a prediction has probabilities for: 2 (binary), C (multiclass), else 0.
  size_t classes() const {
    if (task == trainer::Task::binary) return 2;
    return task == trainer::Task::multiclass ? outputs : 0;
  }
};

// A classifier's predictive distribution: one probability per class (binary: p0, p1), and its
// entropy in nats.
struct ClassPrediction {
  std::vector<double> probabilities;
  double entropy = 0.0;
};

// A count model's negative-binomial predictive distribution: its mean and variance, its mode
// (the ADF paper's point prediction) and the central 95 % interval [lower, upper]. The counts
// are whole numbers held as doubles: the runtime's mode can exceed every integer type.
struct CountPrediction {
  double mean = 0.0;
  double variance = 0.0;
  double mode = 0.0;
  double lower = 0.0;
  double upper = 0.0;
};

// A regression prediction with the runtime's own standard deviation and central interval.
struct RegressionPrediction {
  trainer::Prediction moments;
  double std = 0.0;    // sqrt(epistemic + aleatoric variance)
  double lower = 0.0;  // the central interval of the requested probability
  double upper = 0.0;
};

class LoadedModel {
 public:
  // Throws std::runtime_error "<path>: <reason>" if the file is unreadable or not a valid blob.
  static LoadedModel load(const std::string& path);
  // Opens blob bytes already in memory; `source` names them in errors (none if empty).
  static LoadedModel open(std::vector<uint8_t> blob, const std::string& source);
  LoadedModel(LoadedModel&&) noexcept;
  LoadedModel& operator=(LoadedModel&&) noexcept;
  ~LoadedModel();

  const ModelDescription& description() const;
  // The blob's bytes, and the runtime's model over them (for a caller's own workspace: the
  // predict_* calls below share one and are not for several threads at once).
  std::span<const uint8_t> bytes() const;
  const pbp::Model& runtime() const;
  // sqrt(b / (a - 1)) of the noise Gamma in target units (regression).
  double noise_std() const;
  // The runtime's validated model of the blob this owns (pbp_open's view, read in place).
  const pbp_model& view() const;
  // Predictive distribution for `x` (description().inputs raw values), original units. Each
  // throws std::runtime_error if the model's task is not the one it serves or the runtime fails.
  trainer::Prediction predict(std::span<const double> x) const;  // regression
  // Regression with the central interval of `probability` in (0, 1).
  RegressionPrediction predict_interval(std::span<const double> x, double probability) const;
  ClassPrediction predict_classes(std::span<const double> x) const;  // binary, multiclass
  CountPrediction predict_count(std::span<const double> x) const;    // count
  // `x` against the blob's training ranges (pbp_check_input_range), any task; throws
  // std::runtime_error if the runtime refuses the row (a value not finite in float).
  pbp_range_report input_range(std::span<const double> x) const;

  struct State;

 private:
  explicit LoadedModel(std::unique_ptr<State> state);
  // Throws "a <task> model does not predict <what>" unless `served`.
  void require_task(bool served, const char* what) const;
  // Opens state->blob (`size` bytes) with the runtime and reads the description.
  static LoadedModel from_state(std::unique_ptr<State> state, size_t size, const std::string& path);
  std::unique_ptr<State> state_;
};

// The bytes of a model file; throws std::runtime_error "<path>: <reason>" if unreadable.
std::vector<uint8_t> read_model_file(const std::string& path);
// `bytes` in 4-byte aligned storage, as pbp_open requires.
std::vector<uint32_t> aligned_copy(const std::vector<uint8_t>& bytes);
// Opens `size` bytes at `blob` (4-byte aligned) with the runtime, as a device would; every
// command reports a bad blob the same way: std::runtime_error
// "<source>: invalid model blob: <text> (<STATUS>)".
void open_blob(pbp::Model& model, const void* blob, size_t size, const std::string& source);

// The storage type named by --storage (float32, float16, int8, int8-logvar); UsageError otherwise.
format::Storage parse_weight_storage(const std::string& name);
// What an int8 model may do with a layer whose codes move the predictions on the training rows
// beyond the goals (quantisation_fidelity.hpp): nothing, float16, or logarithmic variance codes
// (storage type 4, no bigger) first and float16 after.
enum class Int8Fallback { none, float16, log_variance_then_float16 };
// --fallback auto (the default: log_variance_then_float16), float16 or none.
Int8Fallback parse_int8_fallback(const std::optional<std::string>& name);
// A storage type's name as --storage spells it ("float32", "float16", "int8", "int8-logvar").
const char* storage_name(uint32_t storage);
const char* storage_text(format::Storage storage);

// Serialises `model` and writes it atomically; returns the bytes written. An int8 model's means
// are stored as they are (`pbp train` rounds them from the float32 blob's values first).
std::vector<uint8_t> save_model(const std::string& path, const trainer::Model& model);

}  // namespace pbp::host
