// SPDX-License-Identifier: Apache-2.0
// Test figures of a model on labelled rows, per task, as `eval` and `crossval` report them.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "pbp/host/input_columns.hpp"
#include "pbp/host/model_file.hpp"

namespace pbp::host {

// One figure, keyed as the JSON output names it.
struct Metric {
  std::string key;
  double value = 0.0;
};

// Every row's predictive distribution, computed through the runtime as a device computes it.
struct RowPredictions {
  trainer::Task task = trainer::Task::regression;
  size_t classes = 0;                  // binary: 2, multiclass: C, else 0
  std::vector<double> mean, variance;  // regression (total variance) and count
  uint32_t tail_dof = 0;               // regression: the predictive's shape (pbp_model::tail_dof)
  std::vector<double> probabilities;   // binary, multiclass: `classes` values per row
};
RowPredictions predict_rows(const LoadedModel& model, const ModelRows& rows);

// The figures of `predictions` against `targets` (one per row), as evaluate() gives them.
std::vector<Metric> score(const RowPredictions& predictions, std::span<const double> targets);

// Runs every row of `rows` (labelled) through `model` and scores the predictions:
//   regression:        rmse, loglik, coverage50, coverage90, coverage95
//   binary/multiclass: accuracy, loglik, brier, ece
//   count:             mad (|y - NB mode|), loglik
// (trainer/include/pbp/trainer/metrics.hpp defines each).
std::vector<Metric> evaluate(const LoadedModel& model, const ModelRows& rows);

// The value of `key` in `metrics` (std::out_of_range if absent).
double metric_value(const std::vector<Metric>& metrics, const std::string& key);

}  // namespace pbp::host
