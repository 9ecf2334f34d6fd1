// SPDX-License-Identifier: Apache-2.0
// The argument checks and the standardise + forward moment pass every predict function shares.
#include "forward_pass.hpp"

#include "blob_view.hpp"
#include "pbp/moments.hpp"
#include "stored_weights.hpp"

namespace pbp::detail {

pbp_status check_prediction_arguments(const pbp_model* model, uint32_t tasks, const float* input,
                                      uint32_t input_count, const void* workspace,
                                      size_t workspace_bytes) {
  if (model == nullptr || input == nullptr || workspace == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (model->open_marker != kOpenMarker) return PBP_ERR_MODEL_NOT_OPEN;
  if (model->task > PBP_TASK_COUNT_DATA || (task_bit(model->task) & tasks) == 0) {
    return PBP_ERR_WRONG_TASK;
  }
  if (input_count != model->input_count) return PBP_ERR_INPUT_WIDTH;
  if (reinterpret_cast<uintptr_t>(workspace) % alignof(float) != 0) {
    return PBP_ERR_MISALIGNED_POINTER;
  }
  if (workspace_bytes < model->workspace_bytes) return PBP_ERR_WORKSPACE_TOO_SMALL;
  for (uint32_t i = 0; i < input_count; ++i) {
    if (!math::is_finite(input[i])) return PBP_ERR_NONFINITE_INPUT;
  }
  return PBP_OK;
}

namespace {

// A float activation in place, out of line: its temporaries stay out of the frame below the next
// layer's kernel.
__attribute__((noinline)) void float_activation(const pbp_layer& hidden, float* z_mean,
                                                float* z_var) {
  activation_moments_inplace(hidden.activation, hidden.outputs, z_mean, z_var);
}

}  // namespace

__attribute__((noinline)) void activation_and_next_layer(const pbp_layer& hidden,
                                                         const pbp_layer& next, float* z_mean,
                                                         float* z_var, float* a_mean,
                                                         float* a_var) {
#if PBP_WITH_INT8
  if (kFixedPointOnly ||  // (stored_weights.hpp)
      (format::has_int8_means(hidden.storage) && format::has_int8_means(next.storage) &&
       hidden.activation == PBP_ACTIVATION_RELU)) {
    return relu_linear_moments_s8_s16(next, z_mean, z_var, a_mean, a_var);
  }
#endif
  float_activation(hidden, z_mean, z_var);
  linear_moments<float, false>(StoredLayer{&next, next.inputs, next.outputs}, z_mean, z_var, a_mean,
                               a_var);
}

float* forward_pass(const pbp_model* model, const float* input, void* workspace, float* out_mean,
                    float* out_var) {
  // Workspace: [standardised input | network_workspace_elements(max_width)].
  float* standardised = static_cast<float*>(workspace);
  float* network_workspace = standardised + model->input_count;
  for (uint32_t i = 0; i < model->input_count; ++i) {
    standardised[i] = (input[i] - model->input_mean[i]) / model->input_std[i];
  }
  // Pointer views only, made as the pass needs them: the weights are read in place from the blob,
  // each layer by the kernel of its storage type (stored_weights.hpp).
  const auto layer_at = [model](uint32_t l) {
    const pbp_layer& layer = model->layers[l];
    return StoredLayer{&layer, layer.inputs, layer.outputs};
  };
  const auto activation_at = [model](uint32_t l) { return model->layers[l].activation; };
  return network_moments_from<float>(layer_at, activation_at, model->layer_count, standardised,
                                     network_workspace, model->max_width, out_mean, out_var);
}

}  // namespace pbp::detail
