// Matching a CSV's columns to a model's inputs for `predict` and `eval`.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model_file.hpp"
#include "pbp/trainer/csv.hpp"

namespace pbp::cli {

// The model's inputs, in model order: by feature name when the header holds every name,
// otherwise positionally - the columns other than `target_column` must number exactly the
// model's inputs, or (without a target column) one more, in which case the column named like
// the model's target, else the last, is dropped. Throws InputError naming the header line.
std::vector<size_t> select_input_columns(const trainer::CsvTable& table,
                                         const ModelDescription& model,
                                         std::optional<size_t> target_column);

// The target for `eval`: --target (name or index), else the model's target name if present in
// the header, else the last column.
size_t select_target_column(const trainer::CsvTable& table, const ModelDescription& model,
                            const std::optional<std::string>& target);

// Gathers row `row`'s values of `columns`.
std::vector<double> gather_row(const trainer::CsvTable& table, size_t row,
                               const std::vector<size_t>& columns);

// The model's prediction for row `row`; a runtime failure becomes an InputError naming the row.
trainer::Prediction predict_row(const LoadedModel& model, const trainer::CsvTable& table,
                                size_t row, const std::vector<size_t>& columns);

}  // namespace pbp::cli
