// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/evaluation.hpp"

#include <stdexcept>

#include "pbp/trainer/metrics.hpp"

namespace pbp::host {

RowPredictions predict_rows(const LoadedModel& model, const ModelRows& rows) {
  RowPredictions predictions;
  predictions.task = model.description().task;
  predictions.classes = model.description().classes();
  const size_t n = rows.data.rows;
  if (predictions.classes > 0) {
    predictions.probabilities.reserve(n * predictions.classes);
    for (size_t row = 0; row < n; ++row) {
      const ClassPrediction p = predict_classes_row(model, rows, row);
      if (p.probabilities.size() != predictions.classes) {
        throw rows.error_at(row, "the runtime returned " + std::to_string(p.probabilities.size()) +
                                     " probabilities for " + std::to_string(predictions.classes) +
                                     " classes");
      }
      predictions.probabilities.insert(predictions.probabilities.end(), p.probabilities.begin(),
                                       p.probabilities.end());
    }
    return predictions;
  }
  predictions.mean.resize(n);
  predictions.variance.resize(n);
  predictions.tail_dof = model.view().tail_dof;
  for (size_t row = 0; row < n; ++row) {
    if (predictions.task == trainer::Task::count) {
      const CountPrediction p = predict_count_row(model, rows, row);
      predictions.mean[row] = p.mean;
      predictions.variance[row] = p.variance;
    } else {
      const trainer::Prediction p = predict_row(model, rows, row);
      predictions.mean[row] = p.mean;
      predictions.variance[row] = p.variance();
    }
  }
  return predictions;
}

std::vector<Metric> score(const RowPredictions& predictions, std::span<const double> targets) {
  switch (predictions.task) {
    case trainer::Task::regression: {
      const auto m = trainer::regression_metrics(targets, predictions.mean, predictions.variance,
                                                 predictions.tail_dof);
      return {{"rmse", m.rmse},
              {"loglik", m.loglik},
              {"coverage50", m.coverage50},
              {"coverage90", m.coverage90},
              {"coverage95", m.coverage95}};
    }
    case trainer::Task::binary:
    case trainer::Task::multiclass: {
      const auto m =
          trainer::classification_metrics(targets, predictions.probabilities, predictions.classes);
      return {{"accuracy", m.accuracy}, {"loglik", m.loglik}, {"brier", m.brier}, {"ece", m.ece}};
    }
    case trainer::Task::count: {
      const auto m = trainer::count_metrics(targets, predictions.mean, predictions.variance);
      return {{"mad", m.mad}, {"loglik", m.loglik}};
    }
  }
  throw std::runtime_error("unknown task");
}

std::vector<Metric> evaluate(const LoadedModel& model, const ModelRows& rows) {
  return score(predict_rows(model, rows), rows.data.y);
}

double metric_value(const std::vector<Metric>& metrics, const std::string& key) {
  for (const Metric& metric : metrics) {
    if (metric.key == key) return metric.value;
  }
  throw std::out_of_range("no metric " + key);
}

}  // namespace pbp::host
