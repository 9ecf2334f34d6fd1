// SPDX-License-Identifier: Apache-2.0
// Numeric CSV loading (RFC 4180 basics: quoted fields, doubled quotes, CRLF) with errors that
// name file:line:column, so a user can jump straight to the bad cell.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pbp/trainer/dataset.hpp"

namespace pbp::trainer {

// A problem in an input file. what() is "file:line:column: message": the 1-based physical line
// and CSV field number (0 means "not applicable" and is omitted).
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, size_t line, size_t column, const std::string& message);
  const std::string& file() const { return file_; }
  size_t line() const { return line_; }
  size_t column() const { return column_; }

 private:
  std::string file_;
  size_t line_;
  size_t column_;
};

// A header row plus a rectangular table of finite numbers.
struct CsvTable {
  std::string source;               // file name, for messages
  std::vector<std::string> header;  // column names
  std::vector<size_t> row_lines;    // the file line each data row starts on
  size_t rows = 0;
  std::vector<double> cells;  // rows x columns, row-major
  size_t columns() const { return header.size(); }
  double at(size_t row, size_t column) const { return cells[row * header.size() + column]; }
};

// Parses CSV text; `source` names it in errors. Blank lines are skipped. Throws InputError on
// an empty file, a ragged row, a non-numeric/NaN/Inf cell, an unterminated quote, or fewer
// than `min_rows` data rows.
CsvTable parse_csv(const std::string& text, const std::string& source, size_t min_rows = 1);
// Reads and parses a file (InputError if it cannot be opened).
CsvTable read_csv(const std::string& path, size_t min_rows = 1);

// Resolves a target given by name or 0-based index (names win over indices); nullopt means the
// last column. Throws InputError naming the header line if there is no such column.
size_t resolve_column(const CsvTable& table, const std::optional<std::string>& target);

// Splits a table into inputs (every other column, in file order) and the target column.
Dataset to_dataset(const CsvTable& table, size_t target_column);

// Checks every cell of `column` with target_problem(value, task, classes) (dataset.hpp); throws
// InputError at the first bad cell's file:line:column.
void check_target_column(const CsvTable& table, size_t column, Task task, uint32_t classes);

}  // namespace pbp::trainer
