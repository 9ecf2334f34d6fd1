// SPDX-License-Identifier: Apache-2.0
#include "calibration_plot.hpp"

#include "options.hpp"
#include "pbp/plot/plots.hpp"
#include "pbp/trainer/metrics.hpp"

namespace pbp::cli {

void require_calibration_plot(trainer::Task task) {
  if (task == trainer::Task::count) {
    throw UsageError(
        "--calibration is not supported for count models: their negative-binomial intervals are "
        "discrete, so nominal and observed coverage are not comparable");
  }
}

void write_calibration_plot(const std::string& path, const RowPredictions& predictions,
                            std::span<const double> targets, const std::string& title) {
  require_calibration_plot(predictions.task);
  if (predictions.task == trainer::Task::regression) {
    const std::vector<trainer::CoverageLevel> levels =
        trainer::interval_coverage(targets, predictions.mean, predictions.variance,
                                   trainer::default_coverage_levels(), predictions.tail_dof);
    plot::write_coverage_calibration_plot(path, levels, targets.size(), title);
    return;
  }
  const trainer::ClassificationMetrics metrics =
      trainer::classification_metrics(targets, predictions.probabilities, predictions.classes);
  plot::write_reliability_diagram(path, metrics, predictions.classes, title);
}

}  // namespace pbp::cli
