// SPDX-License-Identifier: Apache-2.0
#include "training_curve.hpp"

#include <chrono>

#include "pbp/plot/plots.hpp"
#include "pbp/trainer/blob.hpp"

namespace pbp::cli {
namespace {

struct PlottedMetric {
  const char* key;
  const char* name;  // the y axis title
  const char* title;
};

PlottedMetric first_metric(trainer::Task task) {
  switch (task) {
    case trainer::Task::regression:
      return {"rmse", "RMSE", "RMSE (lower is better)"};
    case trainer::Task::binary:
    case trainer::Task::multiclass:
      return {"accuracy", "accuracy", "accuracy (higher is better)"};
    case trainer::Task::count:
      return {"mad", "MAD", "MAD of the mode (lower is better)"};
  }
  return {"loglik", "", ""};
}

}  // namespace

void TrainingCurve::add_data_set(std::string label, ModelRows rows) {
  data_sets_.push_back({std::move(label), std::move(rows), {}});
}

void TrainingCurve::record(uint32_t epoch, const trainer::Model& model) {
  const auto start = std::chrono::steady_clock::now();
  const LoadedModel blob = LoadedModel::open(trainer::write_blob(model),
                                             "the model after epoch " + std::to_string(epoch));
  epochs_.push_back(static_cast<double>(epoch));
  for (DataSet& data_set : data_sets_) data_set.epochs.push_back(evaluate(blob, data_set.rows));
  seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void TrainingCurve::write(const std::string& path, const std::string& title) const {
  plot::TrainingCurves curves;
  curves.title = title;
  curves.epochs = epochs_;
  const PlottedMetric first = first_metric(task_);
  const PlottedMetric metrics[] = {
      first, {"loglik", "mean log-likelihood", "mean log-likelihood (higher is better)"}};
  for (const PlottedMetric& metric : metrics) {
    plot::CurvePanel panel;
    panel.metric = metric.name;
    panel.title = metric.title;
    for (const DataSet& data_set : data_sets_) {
      plot::CurveSeries series{data_set.label, {}};
      for (const std::vector<Metric>& figures : data_set.epochs) {
        series.values.push_back(metric_value(figures, metric.key));
      }
      panel.series.push_back(std::move(series));
    }
    curves.panels.push_back(std::move(panel));
  }
  plot::write_training_curves(path, curves);
}

}  // namespace pbp::cli
