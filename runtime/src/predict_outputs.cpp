// SPDX-License-Identifier: Apache-2.0
// pbp_predict_classes and pbp_predict_count: the forward pass (forward_pass.hpp), then the task's
// predictive distribution from the output moments (outputs.hpp).
#include "forward_pass.hpp"
#include "input_range.hpp"
#include "pbp/math.hpp"
#include "pbp/outputs.hpp"

namespace {

bool all_finite(const float* values, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    if (!pbp::math::is_finite(values[i])) return false;
  }
  return true;
}

// Each task's outputs from the pass's output moments, out of line: their locals are not on the
// stack while the forward pass runs (the predict stack budget).
__attribute__((noinline)) pbp_status class_result(const pbp_model* model, const float* input,
                                                  const pbp::detail::WorkspaceOutputs& out,
                                                  uint32_t classes, float* probabilities,
                                                  pbp_class_result* result) {
  using namespace pbp;
  const float* nu = out.mean;
  const float* psi = out.var;
  if (!all_finite(nu, model->output_count) || !all_finite(psi, model->output_count)) {
    return PBP_ERR_NONFINITE_OUTPUT;
  }
  float* p = out.free;
  if (model->task == PBP_TASK_BINARY) {
    const outputs::BinaryProbabilities<float> b = outputs::binary_probabilities(nu[0], psi[0]);
    p[0] = b.negative;
    p[1] = b.positive;
  } else {
    outputs::softmax_probabilities(nu, psi, classes, p);
  }
  if (!all_finite(p, classes)) return PBP_ERR_NONFINITE_OUTPUT;
  pbp_class_result r;
  r.class_count = classes;
  r.predicted_class = outputs::argmax(p, classes);
  r.confidence = p[r.predicted_class];
  r.entropy = outputs::entropy(p, classes);
  r.range = detail::input_range_report(model, input);
  if (probabilities != nullptr) {
    for (uint32_t c = 0; c < classes; ++c) probabilities[c] = p[c];
  }
  *result = r;
  return PBP_OK;
}

__attribute__((noinline)) pbp_status count_result(const pbp_model* model, const float* input,
                                                  float probability, float nu, float psi,
                                                  pbp_count_result* result) {
  using namespace pbp;
  if (!math::is_finite(nu) || !math::is_finite(psi)) return PBP_ERR_NONFINITE_OUTPUT;
  const outputs::CountMoments<float> m = outputs::count_moments(nu, psi);
  if (!math::is_finite(m.mean) || !math::is_finite(m.variance)) return PBP_ERR_NONFINITE_OUTPUT;
  const outputs::CountInterval<float> interval =
      outputs::count_interval(m.mean, psi, probability, PBP_COUNT_MAX_STEPS);
  if (!interval.complete) return PBP_ERR_COUNT_STEPS;
  pbp_count_result r;
  r.mean = m.mean;
  r.variance = m.variance;
  r.mode = m.mode;
  r.lower = interval.lower;
  r.upper = interval.upper;
  r.range = detail::input_range_report(model, input);
  *result = r;
  return PBP_OK;
}

}  // namespace

extern "C" pbp_status pbp_predict_classes(const pbp_model* model, const float* input,
                                          uint32_t input_count, void* workspace,
                                          size_t workspace_bytes, float* probabilities,
                                          uint32_t capacity, pbp_class_result* result) {
  using namespace pbp;
  if (result == nullptr || (probabilities == nullptr && capacity != 0)) {
    return PBP_ERR_NULL_ARGUMENT;
  }
  const uint32_t tasks = detail::task_bit(PBP_TASK_BINARY) | detail::task_bit(PBP_TASK_MULTICLASS);
  const pbp_status status = detail::check_prediction_arguments(model, tasks, input, input_count,
                                                               workspace, workspace_bytes);
  if (status != PBP_OK) return status;
  const bool binary = model->task == PBP_TASK_BINARY;
  const uint32_t classes = binary ? 2u : model->output_count;
  if (probabilities != nullptr && capacity < classes) return PBP_ERR_OUTPUT_CAPACITY;

  // The output moments stay in the workspace, and the probabilities go to its free part
  // (2 max_width >= 2 output_count floats, and >= 2 for binary's one output).
  const detail::WorkspaceOutputs out = detail::forward_pass_in_workspace(model, input, workspace);
  return class_result(model, input, out, classes, probabilities, result);
}

extern "C" pbp_status pbp_predict_count(const pbp_model* model, const float* input,
                                        uint32_t input_count, float probability, void* workspace,
                                        size_t workspace_bytes, pbp_count_result* result) {
  using namespace pbp;
  if (result == nullptr) return PBP_ERR_NULL_ARGUMENT;
  const pbp_status status = detail::check_prediction_arguments(
      model, detail::task_bit(PBP_TASK_COUNT_DATA), input, input_count, workspace, workspace_bytes);
  if (status != PBP_OK) return status;
  if (!(probability > 0.0f && probability < 1.0f)) return PBP_ERR_BAD_PROBABILITY;

  float nu = 0.0f;
  float psi = 0.0f;
  detail::forward_pass(model, input, workspace, &nu, &psi);
  return count_result(model, input, probability, nu, psi, result);
}
