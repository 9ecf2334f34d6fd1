// SPDX-License-Identifier: Apache-2.0
#include "quantisation.hpp"

#include <pybind11/numpy.h>

#include <optional>
#include <stdexcept>

#include "arrays.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/int8_rounding.hpp"
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

std::string name_of(uint32_t storage) {
  const char* name = storage_type_name(storage);
  return name != nullptr ? name : "storage type " + std::to_string(storage);
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

py::bytes quantize(const RuntimeModel& model, const std::string& storage, const py::object& x) {
  const std::string blob = model.blob();
  const std::vector<uint8_t> bytes(blob.begin(), blob.end());
  trainer::Model m = trainer::read_blob(bytes);
  const format::Storage original = m.weight_storage;
  m.weight_storage = storage_of(storage);
  m.layer_storage.clear();
  if (!x.is_none()) {
    if (!format::has_int8_means(static_cast<uint32_t>(m.weight_storage))) {
      throw std::invalid_argument("X rounds int8 means: it applies to 'int8' and 'int8-logvar'");
    }
    // An int8 blob's means are on their grid already (as pbp quantize).
    if (original != format::Storage::int8) {
      trainer::rescale_and_round_for_int8(m, rows_of(model, x.cast<py::array>()));
    }
  }
  const std::vector<uint8_t> written = trainer::write_blob(m);
  return py::bytes(reinterpret_cast<const char*>(written.data()), written.size());
}

std::vector<std::string> layer_storage(const RuntimeModel& model) {
  std::vector<std::string> names;
  for (uint32_t l = 0; l < model.view().layer_count; ++l) {
    names.push_back(name_of(model.view().layers[l].storage));
  }
  return names;
}

}  // namespace pbp::python
