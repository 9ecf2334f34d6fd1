// SPDX-License-Identifier: Apache-2.0
// pbp_edge's training: the trainer's train_with_recipe on NumPy arrays, with the GIL released.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pbp/trainer/model.hpp"

namespace pbp::python {

namespace py = pybind11;

// The training options as pbp_edge's estimators hold them: the `pbp train` options' names and
// values ("auto" for the trainer's automatic choices).
struct TrainRequest {
  std::string task = "regression";  // regression, binary, multiclass, count
  uint32_t classes = 0;             // multiclass: the number of outputs (0: 1 + largest label)
  std::string recipe = "auto";      // auto, paper
  std::optional<std::vector<uint32_t>> hidden;  // none: the recipe's (auto) or 1 x 50 (paper)
  std::string activation = "relu";              // of the hidden layers: relu, erf, sign
  std::optional<uint32_t> epochs;               // none: the recipe's (auto) or 40 (paper)
  uint64_t seed = 1;
  std::string algorithm = "pbp";
  std::string prior = "auto";
  std::string likelihood = "auto";  // auto: the task's default; else a trainer likelihood's name
  std::string softmax = "mean-field";
  uint32_t samples = 10;
  std::string inference = "adf";
  std::string averaging = "auto";
  uint32_t threads = 1;
  std::vector<std::string> feature_names;  // empty or one per column of X
  std::string target_name;
  std::optional<bool> distance_variance;  // none: the recipe's default (on for auto regression)
};

// A trained model, not yet a blob: its metadata notes can still say what training chose.
struct TrainedModel {
  trainer::Model model;
};

// Trains on x (rows x inputs, float32 or float64) and y (rows, float64: the target, or the class
// index or 0/1 label). Calls `progress(done, planned)` (in epochs; may be None) after every epoch
// with the GIL held, and lets Ctrl-C interrupt there. Returns a dict: model (TrainedModel), hidden
// and epochs trained, constant_inputs (column indices), recipe (the automatic recipe's choice, or
// None). Throws std::invalid_argument (ValueError) for bad data or options.
py::dict train(const py::array& x, const py::array_t<double>& y, const TrainRequest& request,
               const py::object& progress);

// The blob of `trained` with `notes` as its metadata notes (trainer::write_blob).
py::bytes write_blob(const TrainedModel& trained, const std::string& notes);

}  // namespace pbp::python
