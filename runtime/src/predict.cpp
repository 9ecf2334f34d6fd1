// SPDX-License-Identifier: Apache-2.0
// pbp_predict: standardise the input, run the forward moment pass (moments.hpp), and turn the
// output moments into a prediction in target units with a central interval.
#include "blob_view.hpp"
#include "forward_pass.hpp"
#include "input_range.hpp"
#include "pbp/data_distance.hpp"
#include "pbp/likelihoods.hpp"
#include "pbp/math.hpp"
#include "pbp/predictive_tail.hpp"

namespace {

// The outputs from the pass's output moments, out of line: their locals are not on the stack
// while the forward pass runs (the predict stack budget).
__attribute__((noinline)) pbp_status regression_result(const pbp_model* model, const float* input,
                                                       float probability, const float* mean,
                                                       const float* variance,
                                                       pbp_prediction* result) {
  using namespace pbp;
  const outputs::RegressionMoments<float> moments =
      regression_predictive<float>(model->likelihood, mean, variance,
                                   {model->epistemic_scale, model->noise_a, model->noise_b,
                                    model->target_mean, model->target_std});
  pbp_prediction p;
  p.mean = moments.mean;
  p.epistemic_variance = moments.epistemic_variance;
#if PBP_WITH_DATA_DISTANCE
  if (model->input_occupancy != nullptr) {
    const float d =
        distance::row_distance(input, model->input_min, model->input_max, model->input_std,
                               model->input_occupancy, model->input_count);
    p.epistemic_variance +=
        distance::distance_variance(model->distance_scale, d, model->target_std);
  }
  if (model->pair_occupancy != nullptr) {
    const float f = distance::pair_novelty(input, model->input_min, model->input_max,
                                           model->pair_occupancy, model->input_count);
    p.epistemic_variance += distance::distance_variance(model->pair_scale, f, model->target_std);
  }
#endif
  p.aleatoric_variance = moments.aleatoric_variance;
  p.std = math::sqrt(p.epistemic_variance + p.aleatoric_variance);
  // z = Phi^-1((1 + p) / 2) (or the Student-t's, in stds), computed from the small tail
  // (1 - p) / 2 so that p near 1 keeps its precision instead of rounding (1 + p) / 2 to 1.
  const float tail = (1.0f - probability) * 0.5f;
#if PBP_WITH_PREDICTIVE_TAIL
  const float z = outputs::predictive_half_width(tail, model->tail_dof);
#else
  const float z = math::detail::interval_half_width_fast(tail);
#endif
  p.lower = p.mean - z * p.std;
  p.upper = p.mean + z * p.std;
  // field by field, not through an array of copies: 24 bytes less on the predict stack path
  if (!math::is_finite(p.mean) || !math::is_finite(p.epistemic_variance) ||
      !math::is_finite(p.aleatoric_variance) || !math::is_finite(p.std) ||
      !math::is_finite(p.lower) || !math::is_finite(p.upper)) {
    return PBP_ERR_NONFINITE_OUTPUT;
  }
  p.range = detail::input_range_report(model, input);
  *result = p;
  return PBP_OK;
}

}  // namespace

extern "C" pbp_status pbp_predict(const pbp_model* model, const float* input, uint32_t input_count,
                                  float probability, void* workspace, size_t workspace_bytes,
                                  pbp_prediction* result) {
  using namespace pbp;
  // Regression only: other tasks' outputs have another meaning (pbp_predict_classes,
  // pbp_predict_count).
  const pbp_status status = detail::check_prediction_arguments(
      model, detail::task_bit(PBP_TASK_REGRESSION), input, input_count, workspace, workspace_bytes);
  if (status != PBP_OK) return status;
  if (result == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (!(probability > 0.0f && probability < 1.0f)) return PBP_ERR_BAD_PROBABILITY;

  const detail::WorkspaceOutputs out = detail::forward_pass_in_workspace(model, input, workspace);
  return regression_result(model, input, probability, out.mean, out.var, result);
}
