// SPDX-License-Identifier: Apache-2.0
// NumPy arrays as the module reads them: 2-D, C-contiguous, float32 or float64, read in place.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace pbp::python {

namespace py = pybind11;

// A read-only view of a C-contiguous float32 or float64 matrix (the Python layer makes it so:
// np.ascontiguousarray copies only what is not). `name` is how errors call it ("X").
class Matrix {
 public:
  Matrix(const py::array& array, const char* name) : array_(array), name_(name) {
    if (array.ndim() != 2) {
      throw std::invalid_argument(name_ + " must be a 2-D array, got " +
                                  std::to_string(array.ndim()) + " dimensions");
    }
    if (!(array.flags() & py::array::c_style)) {
      throw std::invalid_argument(name_ + " must be C-contiguous");
    }
    if (py::isinstance<py::array_t<float>>(array)) {
      single_ = true;
    } else if (!py::isinstance<py::array_t<double>>(array)) {
      throw std::invalid_argument(name_ + " must hold float32 or float64 values");
    }
    rows_ = static_cast<size_t>(array.shape(0));
    columns_ = static_cast<size_t>(array.shape(1));
    data_ = array.data();
  }

  size_t rows() const { return rows_; }
  size_t columns() const { return columns_; }
  const std::string& name() const { return name_; }
  double at(size_t row, size_t column) const {
    const size_t i = row * columns_ + column;
    return single_ ? static_cast<const float*>(data_)[i] : static_cast<const double*>(data_)[i];
  }
  // Row `row` as the runtime takes it: float32 in place, or float64 rounded into `buffer`
  // (columns() floats), as a device would receive it. Safe without the GIL.
  const float* float_row(size_t row, float* buffer) const {
    if (single_) return static_cast<const float*>(data_) + row * columns_;
    const double* values = static_cast<const double*>(data_) + row * columns_;
    for (size_t k = 0; k < columns_; ++k) buffer[k] = static_cast<float>(values[k]);
    return buffer;
  }

 private:
  py::array array_;  // keeps the buffer alive
  std::string name_;
  bool single_ = false;
  size_t rows_ = 0;
  size_t columns_ = 0;
  const void* data_ = nullptr;
};

// "X[3, 1]".
inline std::string cell_name(const std::string& matrix, size_t row, size_t column) {
  return matrix + "[" + std::to_string(row) + ", " + std::to_string(column) + "]";
}

}  // namespace pbp::python
