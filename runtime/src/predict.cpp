// pbp_predict: standardise the input, run the forward moment pass (moments.hpp), and turn the
// output moments into a prediction in target units with a central interval.
#include "blob_view.hpp"
#include "pbp/moments.hpp"

namespace pbp::detail {
namespace {

pbp_status check_arguments(const pbp_model* model, const float* input, uint32_t input_count,
                           float probability, void* workspace, size_t workspace_bytes,
                           const pbp_prediction* result) {
  if (model == nullptr || input == nullptr || workspace == nullptr || result == nullptr) {
    return PBP_ERR_NULL_ARGUMENT;
  }
  if (model->open_marker != kOpenMarker) return PBP_ERR_MODEL_NOT_OPEN;
  if (input_count != model->input_count) return PBP_ERR_INPUT_WIDTH;
  if (!(probability > 0.0f && probability < 1.0f)) return PBP_ERR_BAD_PROBABILITY;
  if (reinterpret_cast<uintptr_t>(workspace) % alignof(float) != 0) {
    return PBP_ERR_MISALIGNED_POINTER;
  }
  if (workspace_bytes < model->workspace_bytes) return PBP_ERR_WORKSPACE_TOO_SMALL;
  for (uint32_t i = 0; i < input_count; ++i) {
    if (!math::is_finite(input[i])) return PBP_ERR_NONFINITE_INPUT;
  }
  return PBP_OK;
}

}  // namespace
}  // namespace pbp::detail

extern "C" pbp_status pbp_predict(const pbp_model* model, const float* input, uint32_t input_count,
                                  float probability, void* workspace, size_t workspace_bytes,
                                  pbp_prediction* result) {
  using namespace pbp;
  const pbp_status status = detail::check_arguments(model, input, input_count, probability,
                                                    workspace, workspace_bytes, result);
  if (status != PBP_OK) return status;

  // Workspace: [standardised input | network_workspace_elements(max_width)].
  float* standardised = static_cast<float*>(workspace);
  float* network_workspace = standardised + model->input_count;
  for (uint32_t i = 0; i < input_count; ++i) {
    standardised[i] = (input[i] - model->input_mean[i]) / model->input_std[i];
  }
  // Pointer views only: the weights are read in place from the blob.
  LayerWeights<float> layers[PBP_MAX_LAYERS];
  for (uint32_t l = 0; l < model->layer_count; ++l) {
    const pbp_layer& layer = model->layers[l];
    layers[l] = LayerWeights<float>{layer.mean, layer.variance, layer.inputs, layer.outputs};
  }
  float mean = 0.0f;
  float variance = 0.0f;
  network_moments<float>(layers, model->layer_count, standardised, network_workspace,
                         model->max_width, &mean, &variance);

  const float target_variance = model->target_std * model->target_std;
  pbp_prediction p;
  p.mean = mean * model->target_std + model->target_mean;
  p.epistemic_variance = variance * target_variance;
  p.aleatoric_variance = model->noise_b / (model->noise_a - 1.0f) * target_variance;
  p.std = math::sqrt(p.epistemic_variance + p.aleatoric_variance);
  // z = Phi^-1((1 + p) / 2), computed from the small tail (1 - p) / 2 so that p near 1 keeps
  // its precision instead of rounding (1 + p) / 2 to 1.
  const float z = -math::normal_quantile((1.0f - probability) * 0.5f);
  p.lower = p.mean - z * p.std;
  p.upper = p.mean + z * p.std;
  const float outputs[6] = {p.mean, p.epistemic_variance, p.aleatoric_variance, p.std, p.lower,
                            p.upper};
  for (float value : outputs) {
    if (!math::is_finite(value)) return PBP_ERR_NONFINITE_OUTPUT;
  }
  *result = p;
  return PBP_OK;
}
