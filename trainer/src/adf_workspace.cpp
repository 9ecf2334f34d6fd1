// SPDX-License-Identifier: Apache-2.0
// AdfWorkspace: the ADF loops' padded working copy of a network's weights and their buffers.
#include <algorithm>

#include "pbp/trainer/adf.hpp"

namespace pbp::trainer {

AdfWorkspace::AdfWorkspace(const std::vector<Layer>& layers, uint32_t threads) {
  const size_t n = layers.size();
  weights.resize(n);
  for (auto* v :
       {&z_mean, &z_var, &z_second, &a_mean, &a_var, &grad_a_mean, &grad_a_var, &relu_alpha,
        &jac_mean_by_mean, &jac_mean_by_var, &jac_var_by_mean, &jac_var_by_var}) {
    v->resize(n);
  }
  size_t widest_stride = 0;
  for (size_t l = 0; l < n; ++l) {
    const uint32_t inputs = layers[l].inputs;
    const uint32_t units = round_up_to_lanes(layers[l].outputs);
    const uint32_t input_stride = round_up_to_lanes(inputs + 1);
    // Per-unit arrays reach the next layer's input stride: its backward pass writes the
    // gradients of every input lane (see backward).
    const uint32_t unit_lanes = round_up_to_lanes(layers[l].outputs + 1);
    PaddedLayer& w = weights[l];
    w.inputs = inputs;
    w.outputs = layers[l].outputs;
    w.activation = layers[l].activation;
    w.input_major = l == 0;
    w.stride = w.input_major ? units : input_stride;
    const size_t count =
        w.input_major ? size_t{inputs + 1} * units : size_t{w.outputs} * input_stride;
    if (size_t{w.outputs} * (inputs + 1) >= kSplitLayerWeights &&
        w.outputs >= 2 * kDoublesPerLine) {
      w.split = (w.outputs / 2 + kDoublesPerLine - 1) / kDoublesPerLine * kDoublesPerLine;
    }
    w.mean.assign(count, 0.0);      // pads: mean 0
    w.variance.assign(count, 1.0);  // pads: variance 1
    z_mean[l].assign(input_stride, 0.0);
    z_var[l].assign(input_stride, 0.0);
    z_second[l].assign(input_stride, 0.0);
    z_mean[l][inputs] = 1.0;  // the bias unit
    z_second[l][inputs] = 1.0;
    for (auto* v : {&a_mean, &a_var, &grad_a_mean, &grad_a_var}) (*v)[l].assign(unit_lanes, 0.0);
    if (l + 1 < n) {
      for (auto* v :
           {&relu_alpha, &jac_mean_by_mean, &jac_mean_by_var, &jac_var_by_mean, &jac_var_by_var}) {
        (*v)[l].assign(unit_lanes, 0.0);
      }
    }
    if (!w.input_major) widest_stride = std::max<size_t>(widest_stride, input_stride);
  }
  size_t widest_units = 0;
  for (const auto& a : a_mean) widest_units = std::max(widest_units, a.size());
  for (auto* v : {&relu_sd, &relu_cdf, &relu_cdf_minus, &relu_ratio}) v->assign(widest_units, 0.0);
  acc_mean_by_mean.assign(widest_stride, 0.0);
  acc_mean_by_var.assign(widest_stride, 0.0);
  acc_var.assign(widest_stride, 0.0);
  split_acc_mean_by_mean.assign(widest_stride, 0.0);
  split_acc_mean_by_var.assign(widest_stride, 0.0);
  split_acc_var.assign(widest_stride, 0.0);
  first_grad_mean.assign(weights[0].stride, 0.0);
  first_grad_var.assign(weights[0].stride, 0.0);
  first_curvature.assign(weights[0].stride, 0.0);
  first_saved_mean.assign(2 * size_t{weights[0].stride}, 0.0);
  first_saved_var.assign(2 * size_t{weights[0].stride}, 0.0);
  padded_weight_count = 0;
  for (const PaddedLayer& w : weights) padded_weight_count += w.mean.size();
  load(layers);
  bool split = false;
  for (const PaddedLayer& w : weights) split = split || w.split != 0;
  if (threads >= 2 && split) helper = std::make_unique<HelperThread>();
}

void AdfWorkspace::load(const std::vector<Layer>& layers) {
  for (size_t l = 0; l < weights.size(); ++l) {
    PaddedLayer& w = weights[l];
    w.for_each_weight([&](size_t padded, size_t i) {
      w.mean[padded] = layers[l].mean[i];
      w.variance[padded] = layers[l].variance[i];
    });
  }
}

void AdfWorkspace::store(std::vector<Layer>& layers) const {
  for (size_t l = 0; l < weights.size(); ++l) {
    const PaddedLayer& w = weights[l];
    w.for_each_weight([&](size_t padded, size_t i) {
      layers[l].mean[i] = w.mean[padded];
      layers[l].variance[i] = w.variance[padded];
    });
  }
}

}  // namespace pbp::trainer
