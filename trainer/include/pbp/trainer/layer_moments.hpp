// One layer's pre-activation moments for one row, in double, through the shared moment templates
// (runtime/include/pbp/moments.hpp): what the host tools that walk a model row by row call.
#pragma once
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

}  // namespace pbp::trainer
