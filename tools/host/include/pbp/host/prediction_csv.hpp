// SPDX-License-Identifier: Apache-2.0
// The CSV that `pbp predict` writes, per task; pure formatting, so tests can check it directly.
#pragma once
#include <string>

#include "pbp/host/model_file.hpp"

namespace pbp::host {

// The runtime computes in float: the shortest text that reads back as the same float.
std::string float_text(double value);

// "mean,std,epistemic_std,aleatoric_std" (regression), "p0,...,p<C-1>,entropy" (binary: p0,p1),
// "mean,variance,mode,lower,upper" (count); each ends with a newline.
std::string prediction_csv_header(const ModelDescription& model);

// One row of each, ending with a newline. Regression: the runtime's mean and std (what a device
// gets), then the square roots of its epistemic and aleatoric variances.
std::string prediction_csv_row(const RegressionPrediction& prediction);
std::string prediction_csv_row(const ClassPrediction& prediction);
std::string prediction_csv_row(const CountPrediction& prediction);

// The columns `pbp predict` appends to every task's row: the input row against the training
// ranges (pbp_range_report). "range,range_distance,range_input" (no newline); range is inside,
// outside or unknown (a blob without ranges), range_distance the farthest input's distance beyond
// its range in training stds (0 inside, empty when unknown), range_input its name (or 0-based
// index when the model has no feature names), empty unless outside.
std::string range_csv_header();
std::string range_csv_fields(const pbp_range_report& report, const ModelDescription& model);

}  // namespace pbp::host
