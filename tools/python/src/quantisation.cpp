// SPDX-License-Identifier: Apache-2.0
#include "quantisation.hpp"

#include <pybind11/numpy.h>

#include <optional>
#include <stdexcept>

#include "arrays.hpp"
#include "pbp/host/errors.hpp"
#include "pbp/host/quantise.hpp"
#include "pbp/trainer/option_names.hpp"

namespace pbp::python {
namespace {

// The names of the storage table (pbp/storage_types.hpp, through trainer/option_names.hpp).
format::Storage storage_of(const std::string& name) {
  const std::optional<format::Storage> storage =
      trainer::parse_option_name(trainer::kStorageNames, name);
  if (storage) return *storage;
  throw std::invalid_argument("storage must be " +
                              trainer::option_choices(trainer::kStorageNames, "'") + ", got '" +
                              name + "'");
}

host::Int8Fallback fallback_of(const std::string& name) {
  try {
    return host::parse_int8_fallback(name);
  } catch (const host::UsageError&) {
    throw std::invalid_argument("fallback must be 'auto', 'float16' or 'none', got '" + name + "'");
  }
}

// The rows of `x` as the trainer takes them (raw inputs, the model's order).
trainer::Dataset rows_of(const RuntimeModel& model, const py::array& x) {
  const Matrix m(x, "X");
  if (m.columns() != model.view().input_count) {
    throw std::invalid_argument("X has " + std::to_string(m.columns()) +
                                " columns, the model takes " +
                                std::to_string(model.view().input_count) + " inputs");
  }
  trainer::Dataset data;
  data.source = "X";
  data.rows = m.rows();
  data.inputs = m.columns();
  data.x.reserve(m.rows() * m.columns());
  for (size_t i = 0; i < m.rows(); ++i) {
    for (size_t k = 0; k < m.columns(); ++k) data.x.push_back(m.at(i, k));
  }
  return data;
}

}  // namespace

py::bytes quantize(const RuntimeModel& model, const std::string& storage, const py::object& x,
                   const std::string& fallback, const py::object& progress) {
  const format::Storage to = storage_of(storage);
  const host::Int8Fallback steps = fallback_of(fallback);
  std::optional<host::ModelRows> rows;
  if (!x.is_none()) {
    if (!format::has_int8_means(static_cast<uint32_t>(to))) {
      throw std::invalid_argument("X rounds int8 means: it applies to 'int8' and 'int8-logvar'");
    }
    rows = host::model_rows(rows_of(model, x.cast<py::array>()));
  } else if (steps != host::Int8Fallback::none) {
    throw std::invalid_argument("fallback needs X, the training rows it measures the blob on");
  }
  const std::span<const uint8_t> original = model.handle().bytes();
  // The search measures up to 80 blobs: Ctrl-C and `progress` between them, with the GIL.
  const host::Progress on_progress = [&progress](uint64_t done, uint64_t total) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!progress.is_none()) progress(done, total);
  };
  host::QuantisedBlob quantised;
  {
    py::gil_scoped_release release;
    quantised = host::quantise_blob(std::vector<uint8_t>(original.begin(), original.end()), to,
                                    rows ? &*rows : nullptr, steps, on_progress);
  }
  return py::bytes(reinterpret_cast<const char*>(quantised.blob.data()), quantised.blob.size());
}

std::vector<std::string> layer_storage(const RuntimeModel& model) {
  std::vector<std::string> names;
  for (uint32_t l = 0; l < model.view().layer_count; ++l) {
    names.push_back(host::storage_name(model.view().layers[l].storage));
  }
  return names;
}

}  // namespace pbp::python
