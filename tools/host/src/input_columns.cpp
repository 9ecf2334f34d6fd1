// SPDX-License-Identifier: Apache-2.0
#include "pbp/host/input_columns.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include "pbp/host/errors.hpp"
#include "pbp/trainer/idx.hpp"

namespace pbp::host {
namespace {

std::optional<size_t> find_column(const trainer::CsvTable& table, const std::string& name) {
  const auto found = std::find(table.header.begin(), table.header.end(), name);
  if (name.empty() || found == table.header.end()) return std::nullopt;
  return static_cast<size_t>(found - table.header.begin());
}

bool has_feature_names(const ModelDescription& model) {
  return model.inputs > 0 && model.feature_names.size() == model.inputs;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + ("'" + name + "'");
  return text;
}

// The model's inputs by feature name. A header that lacks one is an error naming what is
// missing and which columns were not expected (not inputs, not the target): matching by
// position instead would read, say, the target as an input and answer with confident nonsense.
std::vector<size_t> columns_by_name(const trainer::CsvTable& table, const ModelDescription& model,
                                    std::optional<size_t> target_column) {
  std::vector<size_t> columns;
  std::vector<std::string> missing;
  for (const std::string& name : model.feature_names) {
    const auto column = find_column(table, name);
    if (!column || column == target_column) {
      missing.push_back(name);
    } else {
      columns.push_back(*column);
    }
  }
  if (missing.empty()) return columns;
  std::vector<std::string> unexpected;
  for (size_t column = 0; column < table.columns(); ++column) {
    const std::string& name = table.header[column];
    const bool is_input = std::find(columns.begin(), columns.end(), column) != columns.end();
    const bool is_target = column == target_column || (!target_column && name == model.target_name);
    if (!is_input && !is_target) unexpected.push_back(name);
  }
  std::string message = "the header does not name the model's inputs: missing " + joined(missing);
  if (!unexpected.empty()) message += "; unexpected " + joined(unexpected);
  message += " (--by-position matches the columns by position instead)";
  throw trainer::InputError(table.source, 1, 1, message);
}

}  // namespace

std::vector<size_t> select_input_columns(const trainer::CsvTable& table,
                                         const ModelDescription& model,
                                         std::optional<size_t> target_column, bool by_position) {
  if (!by_position && has_feature_names(model)) {
    return columns_by_name(table, model, target_column);
  }
  // A model without names cannot tell a reordered CSV from its own order: position only when
  // asked, as a silently swapped pair of columns gives confident nonsense.
  if (!by_position) {
    throw trainer::InputError(table.source, 1, 1,
                              "the model stores no input names, so the header cannot be matched "
                              "to its inputs: --by-position takes the input columns in order");
  }
  std::vector<size_t> candidates;
  for (size_t column = 0; column < table.columns(); ++column) {
    if (column != target_column) candidates.push_back(column);
  }
  if (candidates.size() == model.inputs) return candidates;
  if (!target_column && candidates.size() == model.inputs + 1) {
    const size_t dropped = find_column(table, model.target_name).value_or(candidates.back());
    candidates.erase(std::find(candidates.begin(), candidates.end(), dropped));
    return candidates;
  }
  std::string message = "the model has " + std::to_string(model.inputs) + " inputs";
  if (!model.feature_names.empty()) {
    message += " (";
    for (size_t i = 0; i < model.feature_names.size(); ++i) {
      message += (i > 0 ? "," : "") + model.feature_names[i];
    }
    message += ")";
  }
  message += " but the data has " + std::to_string(candidates.size()) + " input columns";
  if (target_column) message += " besides the target";
  throw trainer::InputError(table.source, 1, 1, message);
}

size_t select_target_column(const trainer::CsvTable& table, const ModelDescription& model,
                            const std::optional<std::string>& target) {
  if (target) return trainer::resolve_column(table, target);
  return find_column(table, model.target_name).value_or(table.columns() - 1);
}

ModelRows model_rows(trainer::Dataset data) {
  ModelRows rows;
  rows.data = std::move(data);
  return rows;
}

trainer::InputError ModelRows::error_at(size_t row, const std::string& message) const {
  if (row < lines.size()) return trainer::InputError(data.source, lines[row], 0, message);
  return trainer::InputError(data.source, 0, 0, "item " + std::to_string(row) + ": " + message);
}

ModelRows load_model_rows(const DataFiles& files, const ModelDescription& model, bool labelled) {
  const std::string& path = files.data;
  const uint32_t classes =
      model.task == trainer::Task::multiclass ? static_cast<uint32_t>(model.outputs) : 0;
  if (trainer::looks_like_idx(path)) {
    if (files.target) throw UsageError("--target goes with CSV data, not IDX images");
    if (labelled && !files.labels) {
      throw UsageError("IDX images need their " + files.labels_option + " file");
    }
    const trainer::IdxArray images = trainer::read_idx(path);
    ModelRows rows =
        model_rows(labelled ? trainer::idx_dataset(images, trainer::read_idx(*files.labels),
                                                   model.task, classes)
                            : trainer::idx_inputs(images));
    if (rows.data.inputs != model.inputs) {
      throw trainer::InputError(path, 0, 0,
                                "the model has " + std::to_string(model.inputs) +
                                    " inputs but each image has " +
                                    std::to_string(rows.data.inputs) + " pixels");
    }
    return rows;
  }
  const trainer::CsvTable table = trainer::read_csv(path, 1);
  if (files.labels) {
    throw UsageError(files.labels_option +
                     " goes with IDX images; a CSV file holds its target (--target)");
  }
  std::optional<size_t> target;
  if (labelled) target = select_target_column(table, model, files.target);
  const std::vector<size_t> columns = select_input_columns(table, model, target, files.by_position);
  if (target) trainer::check_target_column(table, *target, model.task, classes);

  ModelRows rows;
  rows.lines = table.row_lines;
  trainer::Dataset& data = rows.data;
  data.source = table.source;
  data.rows = table.rows;
  data.inputs = columns.size();
  for (const size_t column : columns) data.feature_names.push_back(table.header[column]);
  if (target) data.target_name = table.header[*target];
  data.x.reserve(table.rows * columns.size());
  for (size_t row = 0; row < table.rows; ++row) {
    for (const size_t column : columns) data.x.push_back(table.at(row, column));
    if (target) data.y.push_back(table.at(row, *target));
  }
  return rows;
}

namespace {

// Runs one row's prediction, turning a runtime failure into an error naming the row.
template <class Predict>
auto at_row(const ModelRows& rows, size_t row, Predict predict) {
  try {
    return predict(std::span<const double>(rows.data.row(row), rows.data.inputs));
  } catch (const std::runtime_error& error) {
    throw rows.error_at(row, error.what());
  }
}

}  // namespace

trainer::Prediction predict_row(const LoadedModel& model, const ModelRows& rows, size_t row) {
  return at_row(rows, row, [&](std::span<const double> x) { return model.predict(x); });
}

RegressionPrediction predict_interval_row(const LoadedModel& model, const ModelRows& rows,
                                          size_t row, double probability) {
  return at_row(rows, row,
                [&](std::span<const double> x) { return model.predict_interval(x, probability); });
}

ClassPrediction predict_classes_row(const LoadedModel& model, const ModelRows& rows, size_t row) {
  return at_row(rows, row, [&](std::span<const double> x) { return model.predict_classes(x); });
}

CountPrediction predict_count_row(const LoadedModel& model, const ModelRows& rows, size_t row) {
  return at_row(rows, row, [&](std::span<const double> x) { return model.predict_count(x); });
}

}  // namespace pbp::host
