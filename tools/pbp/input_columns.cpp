#include "input_columns.hpp"

#include <algorithm>

namespace pbp::cli {
namespace {

std::optional<size_t> find_column(const trainer::CsvTable& table, const std::string& name) {
  const auto found = std::find(table.header.begin(), table.header.end(), name);
  if (name.empty() || found == table.header.end()) return std::nullopt;
  return static_cast<size_t>(found - table.header.begin());
}

std::optional<std::vector<size_t>> columns_by_name(const trainer::CsvTable& table,
                                                   const ModelDescription& model,
                                                   std::optional<size_t> target_column) {
  if (model.feature_names.size() != model.inputs || model.inputs == 0) return std::nullopt;
  std::vector<size_t> columns;
  for (const std::string& name : model.feature_names) {
    const auto column = find_column(table, name);
    if (!column || column == target_column) return std::nullopt;
    if (std::find(columns.begin(), columns.end(), *column) != columns.end()) return std::nullopt;
    columns.push_back(*column);
  }
  return columns;
}

}  // namespace

std::vector<size_t> select_input_columns(const trainer::CsvTable& table,
                                         const ModelDescription& model,
                                         std::optional<size_t> target_column) {
  if (auto by_name = columns_by_name(table, model, target_column)) return *by_name;
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

std::vector<double> gather_row(const trainer::CsvTable& table, size_t row,
                               const std::vector<size_t>& columns) {
  std::vector<double> values;
  values.reserve(columns.size());
  for (const size_t column : columns) values.push_back(table.at(row, column));
  return values;
}

trainer::Prediction predict_row(const LoadedModel& model, const trainer::CsvTable& table,
                                size_t row, const std::vector<size_t>& columns) {
  try {
    return model.predict(gather_row(table, row, columns));
  } catch (const std::runtime_error& error) {
    throw trainer::InputError(table.source, table.row_lines[row], 0, error.what());
  }
}

}  // namespace pbp::cli
