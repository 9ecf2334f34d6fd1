// SPDX-License-Identifier: Apache-2.0
#include "pbp/plot/plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace pbp::plot {
namespace {

constexpr const char* kSeriesColours[] = {colour::blue,   colour::vermilion, colour::green,
                                          colour::orange, colour::purple,    colour::sky};

std::string decimal(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

Line diagonal(const std::string& label) {
  Line line;
  line.label = label;
  line.x = {0.0, 1.0};
  line.y = {0.0, 1.0};
  line.colour = colour::grey;
  line.width = 1.5;
  line.dash = Dash::dashed;
  return line;
}

}  // namespace

Figure band_figure(const BandPlot& plot) {
  const size_t n = plot.grid_x.size();
  if (plot.mean.size() != n || plot.std.size() != n ||
      (!plot.true_y.empty() && plot.true_y.size() != n)) {
    throw std::invalid_argument("band plot: grid_x, mean, std (and true_y) differ in length");
  }
  if (!(plot.k > 0.0)) throw std::invalid_argument("band plot: k must be positive");
  Panel panel;
  panel.x_title = plot.x_title;
  panel.y_title = plot.y_title;
  panel.y_range = plot.y_range;
  panel.legend = LegendPlace::above;  // the band may fill every corner
  if (!panel.y_range) {
    double low = INFINITY, high = -INFINITY;
    for (const auto* values : {&plot.train_y, &plot.true_y, &plot.mean}) {
      for (const double value : *values) {
        if (!std::isfinite(value)) continue;
        low = std::min(low, value);
        high = std::max(high, value);
      }
    }
    if (high > low) panel.y_range = Range{low - 0.3 * (high - low), high + 0.3 * (high - low)};
  }

  Band band;
  band.label = "mean \u00B1 " + decimal(plot.k, plot.k == std::floor(plot.k) ? 0 : 1) + " std";
  band.x = plot.grid_x;
  for (size_t i = 0; i < n; ++i) {
    band.lower.push_back(plot.mean[i] - plot.k * plot.std[i]);
    band.upper.push_back(plot.mean[i] + plot.k * plot.std[i]);
  }
  band.colour = colour::sky;
  band.opacity = 0.35;
  panel.bands.push_back(band);

  if (plot.training_range && panel.y_range) {
    const Range& y = *panel.y_range;
    for (const double x : {plot.training_range->low, plot.training_range->high}) {
      const char* label = x == plot.training_range->low ? "training range" : "";
      panel.lines.push_back(
          {label, {x, x}, {y.low, y.high}, colour::grey, 1.0, Dash::dashed, false});
    }
  }
  if (!plot.true_y.empty()) {
    panel.lines.push_back(
        {"true function", plot.grid_x, plot.true_y, colour::black, 1.5, Dash::solid, false});
  }
  panel.lines.push_back(
      {"predictive mean", plot.grid_x, plot.mean, colour::blue, 2.5, Dash::solid, false});
  if (!plot.train_x.empty()) {
    panel.points.push_back({"training data (" + std::to_string(plot.train_x.size()) + ")",
                            plot.train_x, plot.train_y, colour::black, 3.5});
  }
  Figure figure;
  figure.title = plot.title;
  figure.width = 720.0;
  figure.height = 480.0;
  figure.panels.push_back(std::move(panel));
  return figure;
}

void write_band_plot(const std::string& path, const BandPlot& plot) {
  write_svg(path, band_figure(plot));
}

Figure coverage_figure(const std::vector<trainer::CoverageLevel>& levels, size_t rows,
                       const std::string& title) {
  if (levels.empty()) throw std::invalid_argument("coverage plot: no levels");
  Panel panel;
  panel.x_title = "nominal coverage of the central predictive interval";
  panel.y_title = "observed fraction of targets inside";
  panel.x_range = Range{0.0, 1.0};
  panel.y_range = Range{0.0, 1.0};
  if (rows > 0) {
    Band band;
    band.label = "calibrated model, 95 % range (" + std::to_string(rows) + " rows)";
    for (int i = 0; i <= 100; ++i) {
      const double p = i / 100.0;
      const double spread = 1.96 * std::sqrt(p * (1.0 - p) / static_cast<double>(rows));
      band.x.push_back(p);
      band.lower.push_back(std::max(0.0, p - spread));
      band.upper.push_back(std::min(1.0, p + spread));
    }
    band.colour = colour::grey;
    band.opacity = 0.2;
    panel.bands.push_back(band);
  }
  panel.lines.push_back(diagonal("ideal"));
  Line observed{"observed", {}, {}, colour::blue, 2.0, Dash::solid, true};
  for (const trainer::CoverageLevel& level : levels) {
    observed.x.push_back(level.nominal);
    observed.y.push_back(level.observed);
  }
  panel.lines.push_back(observed);
  Figure figure;
  figure.title = title;
  figure.width = 560.0;
  figure.height = 560.0;
  figure.panels.push_back(std::move(panel));
  return figure;
}

void write_coverage_calibration_plot(const std::string& path,
                                     const std::vector<trainer::CoverageLevel>& levels, size_t rows,
                                     const std::string& title) {
  write_svg(path, coverage_figure(levels, rows, title));
}

Figure reliability_figure(const trainer::ClassificationMetrics& metrics, size_t classes,
                          const std::string& title) {
  if (metrics.bins.empty()) throw std::invalid_argument("reliability diagram: no bins");
  if (classes < 2) throw std::invalid_argument("reliability diagram: need at least 2 classes");
  // No prediction is less confident than chance: start the axis at the bin edge below it.
  const double bins = static_cast<double>(metrics.bins.size());
  double chance_edge = (std::ceil(bins / static_cast<double>(classes)) - 1.0) / bins;
  if (chance_edge < 0.2) chance_edge = 0.0;
  Bars accuracy{"accuracy", {}, {}, {}, {}, colour::blue, 0.85};
  Bars rows{"", {}, {}, {}, {}, colour::grey, 0.7};
  // One short segment per bin at its mean confidence: lines break at NaN.
  Line confidence{"mean confidence", {}, {}, colour::vermilion, 3.0, Dash::solid, false};
  for (const trainer::ReliabilityBin& bin : metrics.bins) {
    if (bin.rows == 0) continue;
    rows.left.push_back(bin.lower);
    rows.right.push_back(bin.upper);
    rows.top.push_back(static_cast<double>(bin.rows));
    accuracy.left.push_back(bin.lower);
    accuracy.right.push_back(bin.upper);
    accuracy.top.push_back(bin.accuracy);
    confidence.x.insert(confidence.x.end(), {bin.lower, bin.upper, NAN});
    confidence.y.insert(confidence.y.end(), {bin.mean_confidence, bin.mean_confidence, NAN});
  }
  Panel diagram;
  diagram.title = "ECE " + decimal(metrics.ece, 4) + ", accuracy " + decimal(metrics.accuracy, 4) +
                  ", " + std::to_string(metrics.count) + " rows";
  diagram.y_title = "accuracy";
  diagram.x_range = Range{chance_edge, 1.0};
  diagram.y_range = Range{0.0, 1.0};
  diagram.legend = LegendPlace::above;  // bars can fill any corner
  diagram.bars = {accuracy};
  diagram.lines = {diagonal("perfect calibration"), confidence};

  Panel histogram;
  histogram.x_title = "confidence (probability of the predicted class)";
  histogram.y_title = "rows";
  histogram.x_range = Range{chance_edge, 1.0};
  histogram.bars = {rows};
  double most = 1.0;
  for (size_t i = 0; i < rows.top.size(); ++i) {
    histogram.annotations.push_back({(rows.left[i] + rows.right[i]) / 2.0, rows.top[i],
                                     std::to_string(static_cast<size_t>(rows.top[i]))});
    most = std::max(most, rows.top[i]);
  }
  histogram.y_range = Range{0.0, 1.2 * most};  // room for the counts above the bars

  Figure figure;
  figure.title = title;
  figure.width = 560.0;
  figure.height = 660.0;
  figure.row_weights = {2.6, 1.0};
  figure.panels = {diagram, histogram};
  return figure;
}

void write_reliability_diagram(const std::string& path,
                               const trainer::ClassificationMetrics& metrics, size_t classes,
                               const std::string& title) {
  write_svg(path, reliability_figure(metrics, classes, title));
}

Figure training_curves_figure(const TrainingCurves& curves) {
  if (curves.panels.empty()) throw std::invalid_argument("training curves: no metrics");
  Figure figure;
  figure.title = curves.title;
  figure.columns = curves.panels.size();
  figure.width = 460.0 * static_cast<double>(curves.panels.size());
  figure.height = 400.0;
  for (const CurvePanel& source : curves.panels) {
    Panel panel;
    panel.title = source.title.empty() ? source.metric : source.title;
    panel.x_title = "epoch";
    panel.y_title = source.metric;
    panel.integer_x = true;
    for (size_t s = 0; s < source.series.size(); ++s) {
      const CurveSeries& series = source.series[s];
      if (series.values.size() != curves.epochs.size()) {
        throw std::invalid_argument("training curves: '" + series.label +
                                    "' does not have one value per epoch");
      }
      panel.lines.push_back({series.label, curves.epochs, series.values,
                             kSeriesColours[s % std::size(kSeriesColours)], 2.0, Dash::solid,
                             curves.epochs.size() <= 60});
    }
    figure.panels.push_back(std::move(panel));
  }
  return figure;
}

void write_training_curves(const std::string& path, const TrainingCurves& curves) {
  write_svg(path, training_curves_figure(curves));
}

}  // namespace pbp::plot
