// SPDX-License-Identifier: Apache-2.0
// Internal to the runtime: an input row against the inputs' training ranges (pbp_range_report).
#pragma once
#include <stdint.h>

#include "pbp/pbp.h"

namespace pbp::detail {

// The report of `input` (model->input_count finite values) for an opened model.
pbp_range_report input_range_report(const pbp_model* model, const float* input);

}  // namespace pbp::detail
