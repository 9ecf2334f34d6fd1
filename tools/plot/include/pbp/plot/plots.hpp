// SPDX-License-Identifier: Apache-2.0
// Ready-made figures for `pbp` and reports: a 1-D predictive band (the PBP paper's Figure 1),
// calibration plots for regression and classification, and training curves. Each write_*
// function renders its *_figure and writes the SVG atomically; errors are as in chart.hpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "pbp/plot/chart.hpp"
#include "pbp/trainer/metrics.hpp"

namespace pbp::plot {

// A 1-D regression fit: the training points, the true function (optional), the predictive mean
// and the band mean +- k std, over a grid of inputs.
struct BandPlot {
  std::vector<double> train_x, train_y;
  std::vector<double> grid_x;
  std::vector<double> true_y;     // the true function on grid_x; empty: not drawn
  std::vector<double> mean, std;  // the predictive mean and total std on grid_x
  double k = 3.0;
  // Default: the training targets, the true function and the mean, plus 30 % of their span on
  // each side; a band that grows wider (far from the data) is cut at the plot's edge.
  std::optional<Range> y_range;
  // The inputs' training range, drawn as two dashed vertical lines; empty: not drawn.
  std::optional<Range> training_range;
  std::string title = "Predictive distribution";
  std::string x_title = "x", y_title = "y";
};
Figure band_figure(const BandPlot& plot);
void write_band_plot(const std::string& path, const BandPlot& plot);

// Observed against nominal coverage of central predictive intervals (trainer::interval_coverage
// on `rows` test rows). With rows > 0 the figure also shades where a calibrated model's observed
// coverage falls 95 % of the time: p +- 1.96 sqrt(p (1 - p) / rows).
Figure coverage_figure(const std::vector<trainer::CoverageLevel>& levels, size_t rows,
                       const std::string& title);
void write_coverage_calibration_plot(const std::string& path,
                                     const std::vector<trainer::CoverageLevel>& levels, size_t rows,
                                     const std::string& title);

// The reliability diagram of a classifier (trainer::classification_metrics): accuracy against
// confidence per non-empty bin with a mark at the bin's mean confidence, and a histogram of
// rows per bin. The confidence axis starts at the bin edge below chance, 1 / classes, when that
// is at least 0.2 (binary: 0.467), else at 0.
Figure reliability_figure(const trainer::ClassificationMetrics& metrics, size_t classes,
                          const std::string& title);
void write_reliability_diagram(const std::string& path,
                               const trainer::ClassificationMetrics& metrics, size_t classes,
                               const std::string& title);

// Figures per epoch: one panel per metric, side by side, one line per data set.
struct CurveSeries {
  std::string label;           // e.g. "training set", "test set"
  std::vector<double> values;  // one per entry of TrainingCurves::epochs
};
struct CurvePanel {
  std::string metric;  // the y axis title, e.g. "RMSE"
  std::vector<CurveSeries> series;
  std::string title;  // above the panel; empty: the metric
};
struct TrainingCurves {
  std::vector<double> epochs;
  std::vector<CurvePanel> panels;
  std::string title = "Training curves";
};
Figure training_curves_figure(const TrainingCurves& curves);
void write_training_curves(const std::string& path, const TrainingCurves& curves);

}  // namespace pbp::plot
