// SPDX-License-Identifier: Apache-2.0
// Internal to the runtime: what every predict function shares. The argument checks and the
// standardise + forward moment pass, ending with the output moments (nu_i, psi_i) in
// standardised units; pbp_predict, pbp_predict_classes and pbp_predict_count turn them into their
// task's prediction.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "pbp/pbp.h"

namespace pbp::detail {

// The bit of `task` (PBP_TASK_*) in the task masks below.
inline constexpr uint32_t task_bit(uint32_t task) {
  return 1u << task;
}

// Checks, in this order: model, input and workspace not null (PBP_ERR_NULL_ARGUMENT), the model
// opened (PBP_ERR_MODEL_NOT_OPEN), its task one of `tasks` (PBP_ERR_WRONG_TASK), input_count
// (PBP_ERR_INPUT_WIDTH), workspace alignment and size (PBP_ERR_MISALIGNED_POINTER,
// PBP_ERR_WORKSPACE_TOO_SMALL), every input finite (PBP_ERR_NONFINITE_INPUT).
pbp_status check_prediction_arguments(const pbp_model* model, uint32_t tasks, const float* input,
                                      uint32_t input_count, const void* workspace,
                                      size_t workspace_bytes);

// Standardises `input` into the workspace and propagates the moments through the network
// (network_moments in moments.hpp): out_mean and out_var receive model->output_count values.
// They must not point into the workspace, whose contents are overwritten; the workspace is free
// again when this returns. Both null: the outputs stay in the workspace, in the buffer returned
// (forward_pass_in_workspace). The arguments must have passed check_prediction_arguments.
float* forward_pass(const pbp_model* model, const float* input, void* workspace, float* out_mean,
                    float* out_var);

// The output moments left in the workspace: `mean` and `var` hold model->output_count values
// each, and `free` 2 model->max_width floats the two do not overlap (a classifier's
// probabilities go there: no class-sized arrays on the stack).
struct WorkspaceOutputs {
  const float* mean;
  const float* var;
  float* free;
};
inline WorkspaceOutputs forward_pass_in_workspace(const pbp_model* model, const float* input,
                                                  void* workspace) {
  const float* result = forward_pass(model, input, workspace, nullptr, nullptr);
  // The network's two buffers of 2 max_width floats follow the standardised input.
  float* first = static_cast<float*>(workspace) + model->input_count;
  float* second = first + 2u * model->max_width;
  return {result, result + model->max_width, result == first ? second : first};
}

}  // namespace pbp::detail
