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
// again when this returns. The arguments must have passed check_prediction_arguments.
void forward_pass(const pbp_model* model, const float* input, void* workspace, float* out_mean,
                  float* out_var);

}  // namespace pbp::detail
