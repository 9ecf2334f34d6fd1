// SPDX-License-Identifier: Apache-2.0
// The out-of-range report: how far an input row lies outside the training ranges, in training
// stds. One pass over the inputs, a subtraction and a division per input outside its range.
#include "input_range.hpp"

#include "blob_view.hpp"
#include "pbp/data_distance.hpp"

namespace pbp::detail {

pbp_range_report input_range_report(const pbp_model* model, const float* input) {
  pbp_range_report report{PBP_RANGE_UNKNOWN, 0u, 0u, 0.0f};
  if (model->input_min == nullptr || model->input_max == nullptr) return report;
  report.status = PBP_RANGE_INSIDE;
  for (uint32_t i = 0; i < model->input_count; ++i) {
    // Finite x and bounds: > 0 outside, at worst +inf; std is a normal float > 0.
    const float beyond = distance::beyond_range(input[i], model->input_min[i], model->input_max[i]);
    if (!(beyond > 0.0f)) continue;
    const float distance = beyond / model->input_std[i];
    if (report.outside_count == 0 || distance > report.distance) {
      report.distance = distance;
      report.farthest_input = i;
    }
    ++report.outside_count;
  }
  if (report.outside_count != 0) report.status = PBP_RANGE_OUTSIDE;
  return report;
}

}  // namespace pbp::detail

extern "C" pbp_status pbp_check_input_range(const pbp_model* model, const float* input,
                                            uint32_t input_count, pbp_range_report* report) {
  if (model == nullptr || input == nullptr || report == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (model->open_marker != pbp::detail::kOpenMarker) return PBP_ERR_MODEL_NOT_OPEN;
  if (input_count != model->input_count) return PBP_ERR_INPUT_WIDTH;
  for (uint32_t i = 0; i < input_count; ++i) {
    if (!pbp::math::is_finite(input[i])) return PBP_ERR_NONFINITE_INPUT;
  }
  *report = pbp::detail::input_range_report(model, input);
  return PBP_OK;
}
