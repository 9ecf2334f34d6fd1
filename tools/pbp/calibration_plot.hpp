// SPDX-License-Identifier: Apache-2.0
// `eval --calibration`: how well a model's stated uncertainty matches what happens, as an SVG.
#pragma once
#include <span>
#include <string>

#include "host_names.hpp"
#include "pbp/host/evaluation.hpp"

namespace pbp::cli {

// Throws UsageError unless `task` has a calibration plot (count models have none).
void require_calibration_plot(trainer::Task task);

// Regression: observed against nominal coverage of the central intervals at
// trainer::default_coverage_levels(). Binary and multiclass: the reliability diagram over
// trainer::kCalibrationBins confidence bins. Written atomically.
void write_calibration_plot(const std::string& path, const RowPredictions& predictions,
                            std::span<const double> targets, const std::string& title);

}  // namespace pbp::cli
