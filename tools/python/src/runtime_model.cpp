// SPDX-License-Identifier: Apache-2.0
#include "runtime_model.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "arrays.hpp"
#include "pbp/trainer/atomic_file.hpp"
#include "pbp/trainer/c_export.hpp"
#include "pbp/trainer/dataset.hpp"

namespace pbp::python {
namespace {

// Why the runtime refused row `row`: the cell it could not take, else its status text.
[[noreturn]] void row_failed(const Matrix& x, size_t row, pbp_status status) {
  if (status == PBP_ERR_NONFINITE_INPUT) {
    for (size_t k = 0; k < x.columns(); ++k) {
      const double value = x.at(row, k);
      if (!std::isfinite(value)) {
        throw std::invalid_argument(cell_name(x.name(), row, k) + " is " + std::to_string(value) +
                                    ": every input must be finite (no NaN or inf)");
      }
      if (!std::isfinite(static_cast<float>(value))) {
        throw std::invalid_argument(cell_name(x.name(), row, k) + " = " + std::to_string(value) +
                                    " is beyond float32, which the runtime computes in");
      }
    }
  }
  throw std::invalid_argument("row " + std::to_string(row) + " of " + x.name() + ": " +
                              pbp_status_string(status) + " (" + pbp_status_name(status) + ")");
}

}  // namespace

Matrix RuntimeModel::inputs(const py::array& x) const {
  Matrix m(x, "X");
  if (m.columns() != view().input_count) {
    throw std::invalid_argument("X has " + std::to_string(m.columns()) +
                                " columns, the model takes " + std::to_string(view().input_count) +
                                " inputs");
  }
  return m;
}

namespace {

host::LoadedModel opened(const py::bytes& blob) {
  const std::string_view bytes = blob;
  try {
    return host::LoadedModel::open(std::vector<uint8_t>(bytes.begin(), bytes.end()), "");
  } catch (const std::runtime_error& error) {
    throw std::invalid_argument(error.what());
  }
}

}  // namespace

RuntimeModel::RuntimeModel(const py::bytes& blob) : model_(opened(blob)) {}

py::bytes RuntimeModel::blob() const {
  const std::span<const uint8_t> bytes = model_.bytes();
  return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string RuntimeModel::task() const {
  return trainer::task_name(description().task);
}

py::tuple RuntimeModel::predict_regression(const py::array& x, double probability) const {
  const Matrix m = inputs(x);
  const auto n = static_cast<py::ssize_t>(m.rows());
  py::array_t<float> mean(n), std(n), epistemic(n), aleatoric(n), lower(n), upper(n);
  float *pm = mean.mutable_data(), *ps = std.mutable_data(), *pe = epistemic.mutable_data(),
        *pa = aleatoric.mutable_data(), *pl = lower.mutable_data(), *pu = upper.mutable_data();
  {
    py::gil_scoped_release release;
    std::vector<float> row(m.columns());
    std::vector<uint32_t> workspace((view().workspace_bytes + 3) / 4);  // per call: thread-safe
    for (size_t i = 0; i < m.rows(); ++i) {
      pbp_prediction p{};
      const pbp::Status status = runtime().predict(
          m.float_row(i, row.data()), static_cast<uint32_t>(m.columns()),
          static_cast<float>(probability), workspace.data(), workspace.size() * 4, &p);
      if (status != PBP_OK) row_failed(m, i, status);
      pm[i] = p.mean;
      ps[i] = p.std;
      // Correctly rounded float square roots, as `pbp predict` prints them.
      pe[i] = static_cast<float>(std::sqrt(static_cast<double>(p.epistemic_variance)));
      pa[i] = static_cast<float>(std::sqrt(static_cast<double>(p.aleatoric_variance)));
      pl[i] = p.lower;
      pu[i] = p.upper;
    }
  }
  return py::make_tuple(mean, std, epistemic, aleatoric, lower, upper);
}

py::tuple RuntimeModel::predict_classes(const py::array& x) const {
  const Matrix m = inputs(x);
  const auto n = static_cast<py::ssize_t>(m.rows());
  const uint32_t classes = view().task == PBP_TASK_BINARY ? 2u : view().output_count;
  py::array_t<float> probabilities({n, static_cast<py::ssize_t>(classes)});
  py::array_t<int64_t> predicted(n);
  py::array_t<float> entropy(n);
  float* pp = probabilities.mutable_data();
  int64_t* pc = predicted.mutable_data();
  float* pe = entropy.mutable_data();
  {
    py::gil_scoped_release release;
    std::vector<float> row(m.columns());
    std::vector<uint32_t> workspace((view().workspace_bytes + 3) / 4);
    for (size_t i = 0; i < m.rows(); ++i) {
      pbp_class_result result{};
      const pbp::Status status = runtime().predict_classes(
          m.float_row(i, row.data()), static_cast<uint32_t>(m.columns()), workspace.data(),
          workspace.size() * 4, pp + i * classes, classes, &result);
      if (status != PBP_OK) row_failed(m, i, status);
      pc[i] = result.predicted_class;
      pe[i] = result.entropy;
    }
  }
  return py::make_tuple(probabilities, predicted, entropy);
}

py::tuple RuntimeModel::predict_count(const py::array& x, double probability) const {
  const Matrix m = inputs(x);
  const auto n = static_cast<py::ssize_t>(m.rows());
  py::array_t<float> mean(n), variance(n), mode(n), lower(n), upper(n);
  float *pm = mean.mutable_data(), *pv = variance.mutable_data(), *pd = mode.mutable_data(),
        *pl = lower.mutable_data(), *pu = upper.mutable_data();
  {
    py::gil_scoped_release release;
    std::vector<float> row(m.columns());
    std::vector<uint32_t> workspace((view().workspace_bytes + 3) / 4);
    for (size_t i = 0; i < m.rows(); ++i) {
      pbp_count_result result{};
      const pbp_status status = pbp_predict_count(
          &view(), m.float_row(i, row.data()), static_cast<uint32_t>(m.columns()),
          static_cast<float>(probability), workspace.data(), workspace.size() * 4, &result);
      if (status != PBP_OK) row_failed(m, i, status);
      pm[i] = result.mean;
      pv[i] = result.variance;
      pd[i] = result.mode;
      pl[i] = result.lower;
      pu[i] = result.upper;
    }
  }
  return py::make_tuple(mean, variance, mode, lower, upper);
}

py::tuple RuntimeModel::input_range(const py::array& x) const {
  const Matrix m = inputs(x);
  const auto n = static_cast<py::ssize_t>(m.rows());
  py::array_t<bool> outside(n);
  py::array_t<float> distance(n);
  py::array_t<int64_t> farthest(n);
  bool* po = outside.mutable_data();
  float* pd = distance.mutable_data();
  int64_t* pf = farthest.mutable_data();
  bool known = true;
  {
    py::gil_scoped_release release;
    std::vector<float> row(m.columns());
    for (size_t i = 0; i < m.rows(); ++i) {
      pbp_range_report report{};
      const pbp::Status status = pbp_check_input_range(&view(), m.float_row(i, row.data()),
                                                       static_cast<uint32_t>(m.columns()), &report);
      if (status != PBP_OK) row_failed(m, i, status);
      known = known && report.status != PBP_RANGE_UNKNOWN;
      po[i] = report.status == PBP_RANGE_OUTSIDE;
      pd[i] = report.distance;
      pf[i] = report.status == PBP_RANGE_OUTSIDE ? int64_t{report.farthest_input} : -1;
    }
  }
  if (!known) throw std::invalid_argument("the blob holds no input ranges (written before them)");
  return py::make_tuple(outside, distance, farthest);
}

std::string RuntimeModel::export_c(const std::string& name, const std::string& dir) const {
  return trainer::write_c_source(model_.bytes(), name, dir,
                                 {"pbp_edge (Python) export_c", "a fitted model"});
}

void RuntimeModel::save(const std::string& path) const {
  trainer::write_file_atomically(path, model_.bytes());
}

}  // namespace pbp::python
