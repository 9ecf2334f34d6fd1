#include "evaluation.hpp"

#include <stdexcept>

#include "pbp/trainer/metrics.hpp"

namespace pbp::cli {
namespace {

std::vector<Metric> regression(const LoadedModel& model, const ModelRows& rows) {
  const size_t n = rows.data.rows;
  std::vector<double> mean(n), variance(n);
  for (size_t row = 0; row < n; ++row) {
    const trainer::Prediction p = predict_row(model, rows, row);
    mean[row] = p.mean;
    variance[row] = p.variance();
  }
  const auto m = trainer::regression_metrics(rows.data.y, mean, variance);
  return {{"rmse", m.rmse},
          {"loglik", m.loglik},
          {"coverage50", m.coverage50},
          {"coverage90", m.coverage90},
          {"coverage95", m.coverage95}};
}

std::vector<Metric> classification(const LoadedModel& model, const ModelRows& rows) {
  const size_t classes = model.description().classes();
  std::vector<double> probabilities;
  probabilities.reserve(rows.data.rows * classes);
  for (size_t row = 0; row < rows.data.rows; ++row) {
    const ClassPrediction p = predict_classes_row(model, rows, row);
    if (p.probabilities.size() != classes) {
      throw rows.error_at(row, "the runtime returned " + std::to_string(p.probabilities.size()) +
                                   " probabilities for " + std::to_string(classes) + " classes");
    }
    probabilities.insert(probabilities.end(), p.probabilities.begin(), p.probabilities.end());
  }
  const auto m = trainer::classification_metrics(rows.data.y, probabilities, classes);
  return {{"accuracy", m.accuracy}, {"loglik", m.loglik}, {"brier", m.brier}, {"ece", m.ece}};
}

std::vector<Metric> count(const LoadedModel& model, const ModelRows& rows) {
  const size_t n = rows.data.rows;
  std::vector<double> mean(n), variance(n);
  for (size_t row = 0; row < n; ++row) {
    const CountPrediction p = predict_count_row(model, rows, row);
    mean[row] = p.mean;
    variance[row] = p.variance;
  }
  const auto m = trainer::count_metrics(rows.data.y, mean, variance);
  return {{"mad", m.mad}, {"loglik", m.loglik}};
}

}  // namespace

std::vector<Metric> evaluate(const LoadedModel& model, const ModelRows& rows) {
  switch (model.description().task) {
    case trainer::Task::regression:
      return regression(model, rows);
    case trainer::Task::binary:
    case trainer::Task::multiclass:
      return classification(model, rows);
    case trainer::Task::count:
      return count(model, rows);
  }
  throw std::runtime_error("unknown task");
}

double metric_value(const std::vector<Metric>& metrics, const std::string& key) {
  for (const Metric& metric : metrics) {
    if (metric.key == key) return metric.value;
  }
  throw std::out_of_range("no metric " + key);
}

}  // namespace pbp::cli
