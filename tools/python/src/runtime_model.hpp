// SPDX-License-Identifier: Apache-2.0
// pbp_edge's predictions: the host library's model handle (pbp/host/model_file.hpp: a blob
// opened by the runtime), run row by row in float through pbp_predict / pbp_predict_classes as a
// device runs it, into NumPy arrays.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "pbp/host/model_file.hpp"
#include "pbp/pbp.hpp"

namespace pbp::python {

namespace py = pybind11;

class RuntimeModel {
 public:
  // Opens a copy of the bytes; a blob the runtime refuses is std::invalid_argument (ValueError)
  // with its status text.
  explicit RuntimeModel(const py::bytes& blob);

  py::bytes blob() const;
  const pbp_model& view() const { return model_.runtime().view(); }
  const pbp::Model& runtime() const { return model_.runtime(); }
  const host::LoadedModel& handle() const { return model_; }
  std::string task() const;
  const host::ModelDescription& description() const { return model_.description(); }

  // Regression: (mean, std, epistemic_std, aleatoric_std, lower, upper), float32 arrays of one
  // value per row; [lower, upper] the central interval of `probability`. std and the interval
  // are the runtime's; the two parts are the square roots of its variances (as `pbp predict`).
  py::tuple predict_regression(const py::array& x, double probability) const;
  // Binary and multiclass: (probabilities (rows x classes), predicted class index, entropy).
  py::tuple predict_classes(const py::array& x) const;
  // Count: (mean, variance, mode, lower, upper), float32 arrays of one value per row; [lower,
  // upper] the central interval holding at least `probability` (pbp_predict_count).
  py::tuple predict_count(const py::array& x, double probability) const;
  // Every task: (outside (bool), distance in training stds, farthest input or -1) per row.
  py::tuple input_range(const py::array& x) const;

  // NAME.h and NAME.c in `dir` (trainer/c_export.hpp); returns DIR/NAME.
  std::string export_c(const std::string& name, const std::string& dir) const;
  // The blob, written atomically.
  void save(const std::string& path) const;

 private:
  // `x` as a matrix of input_count columns, else std::invalid_argument saying so.
  Matrix inputs(const py::array& x) const;

  host::LoadedModel model_;
};

}  // namespace pbp::python
