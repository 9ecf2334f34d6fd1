// SPDX-License-Identifier: Apache-2.0
// Matching a data file's columns to a model's inputs for `predict` and `eval`.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "pbp/host/model_file.hpp"
#include "pbp/trainer/csv.hpp"
#include "pbp/trainer/dataset.hpp"

namespace pbp::host {

// The model's inputs, in model order: by feature name when the model has them (a header
// lacking any is an InputError naming the missing and the unexpected columns); positionally
// only when `by_position` (a model without feature names is an InputError otherwise) - the
// columns other than
// `target_column` must number exactly the model's inputs, or (without a target column) one
// more, in which case the column named like the model's target, else the last, is dropped.
// Throws InputError naming the header line.
std::vector<size_t> select_input_columns(const trainer::CsvTable& table,
                                         const ModelDescription& model,
                                         std::optional<size_t> target_column,
                                         bool by_position = false);

// The target for `eval`: --target (name or index), else the model's target name if present in
// the header, else the last column.
size_t select_target_column(const trainer::CsvTable& table, const ModelDescription& model,
                            const std::optional<std::string>& target);

// Rows ready for a model: x in the model's input order, y the targets (empty unless labelled),
// and where each row came from for messages.
struct ModelRows {
  trainer::Dataset data;
  std::vector<size_t> lines;  // the CSV line of each row; empty for IDX items and splits
  // InputError "<source>:<line>: <message>" (CSV) or "<source>: item <row>: <message>".
  trainer::InputError error_at(size_t row, const std::string& message) const;
};

// Where rows come from: a CSV file (and its target column) or IDX images (and their labels).
// `labels_option` names the labels' option in messages.
struct DataFiles {
  std::string data;
  std::optional<std::string> labels;
  std::optional<std::string> target;
  std::string labels_option = "--labels";
  bool by_position = false;  // CSV inputs by position even when the model has feature names
};

// Loads `files` for `model`: a CSV (inputs matched as select_input_columns does; with
// `labelled`, the target chosen as select_target_column does) or IDX images (by position; with
// `labelled`, the labels file). Labelled targets are checked against the model's task and
// classes.
ModelRows load_model_rows(const DataFiles& files, const ModelDescription& model, bool labelled);
// Rows without file lines, e.g. a crossval split's test rows.
ModelRows model_rows(trainer::Dataset data);

// The model's prediction for one row; a runtime failure becomes ModelRows::error_at.
trainer::Prediction predict_row(const LoadedModel& model, const ModelRows& rows, size_t row);
// With the runtime's std and central interval of `probability`.
RegressionPrediction predict_interval_row(const LoadedModel& model, const ModelRows& rows,
                                          size_t row, double probability);
ClassPrediction predict_classes_row(const LoadedModel& model, const ModelRows& rows, size_t row);
CountPrediction predict_count_row(const LoadedModel& model, const ModelRows& rows, size_t row);

}  // namespace pbp::host
