// SPDX-License-Identifier: Apache-2.0
// Layer moments in double through the shared moment templates (runtime/core/pbp/moments.hpp),
// for the host tools that walk a model one row, or many rows, at a time.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "pbp/moments.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

// a_mean, a_var (layer.outputs each) from the layer's input moments; `exact_input` for the first
// layer's data (its `var` is not read).
inline void layer_pre_activation_moments(const Layer& layer, bool exact_input, const double* mean,
                                         const double* var, double* a_mean, double* a_var) {
  const LayerWeights<double> w{layer.mean.data(), layer.variance.data(), layer.inputs,
                               layer.outputs};
  if (exact_input) {
    linear_moments<double, true>(w, mean, nullptr, a_mean, a_var);
  } else {
    linear_moments<double, false>(w, mean, var, a_mean, a_var);
  }
}

// Many rows' moments of one layer's units, row-major (`width` values per row).
struct RowMoments {
  size_t width = 0;
  std::vector<double> mean, var;
  size_t rows() const { return width == 0 ? 0 : mean.size() / width; }
};

// `rows` standardised inputs (row-major, model.layers[0].inputs per row) as the first layer's
// exact input moments.
inline RowMoments exact_input_moments(const Model& model, std::vector<double> inputs, size_t rows) {
  const size_t width = model.layers.empty() ? 0 : model.layers[0].inputs;
  if (model.layers.empty() || inputs.size() != rows * width || rows == 0) {
    throw std::invalid_argument("the rows do not match the model's inputs");
  }
  return {width, std::move(inputs), std::vector<double>(rows * width, 0.0)};
}

// The rows' moments after `layer` from its inputs `in`: after its activation on a hidden layer,
// the pre-activation on the linear last layer.
inline RowMoments layer_output_moments(const Layer& layer, bool exact_input, const RowMoments& in) {
  const size_t rows = in.rows();
  RowMoments out{layer.outputs, std::vector<double>(rows * layer.outputs, 0.0),
                 std::vector<double>(rows * layer.outputs, 0.0)};
  for (size_t r = 0; r < rows; ++r) {
    double* mean = out.mean.data() + r * out.width;
    double* var = out.var.data() + r * out.width;
    layer_pre_activation_moments(layer, exact_input, in.mean.data() + r * in.width,
                                 in.var.data() + r * in.width, mean, var);
    if (layer.activation != Activation::linear) {
      activation_moments_inplace(static_cast<uint32_t>(layer.activation), layer.outputs, mean, var);
    }
  }
  return out;
}

}  // namespace pbp::trainer
