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

void forward_pass(const pbp_model* model, const float* input, void* workspace, float* out_mean,
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
  network_moments_from<float>(layer_at, activation_at, model->layer_count, standardised,
                              network_workspace, model->max_width, out_mean, out_var);
}

}  // namespace pbp::detail
