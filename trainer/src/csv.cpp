// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/csv.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <system_error>

namespace pbp::trainer {
namespace {

// "file:line:column: message", built by appending (GCC 12 -Wrestrict misfires on "x" + str).
std::string located_message(const std::string& file, size_t line, size_t column,
                            const std::string& message) {
  std::string text = file;
  if (line > 0) text.append(":").append(std::to_string(line));
  if (line > 0 && column > 0) text.append(":").append(std::to_string(column));
  return text.append(": ").append(message);
}

struct Field {
  std::string text;
  bool quoted = false;
};

struct Record {
  size_t line = 0;  // where the record starts
  std::vector<Field> fields;
  bool blank() const { return fields.size() == 1 && !fields[0].quoted && fields[0].text.empty(); }
};

// Splits CSV text into records; quoted fields may hold commas, doubled quotes and newlines.
class RecordReader {
 public:
  RecordReader(const std::string& text, const std::string& source) : text_(text), source_(source) {
    if (text_.compare(0, 3, "\xEF\xBB\xBF") == 0) position_ = 3;  // a UTF-8 byte-order mark
  }

  bool next(Record& record) {
    if (position_ >= text_.size()) return false;
    record.line = line_;
    record.fields.assign(1, Field{});
    while (position_ < text_.size()) {
      const char c = text_[position_++];
      Field& field = record.fields.back();
      if (c == '"' && field.text.find_first_not_of(" \t") == std::string::npos && !field.quoted) {
        field.text.clear();
        field.quoted = true;
        read_quoted(field.text, record.fields.size());
      } else if (c == ',') {
        record.fields.emplace_back();
      } else if (c == '\n' || c == '\r') {
        if (c == '\r' && position_ < text_.size() && text_[position_] == '\n') ++position_;
        ++line_;
        return true;
      } else if (field.quoted) {
        if (c != ' ' && c != '\t') {
          throw InputError(source_, line_, record.fields.size(), "text after a closing quote");
        }
      } else {
        field.text += c;
      }
    }
    return true;
  }

 private:
  void read_quoted(std::string& out, size_t column) {
    const size_t start_line = line_;
    while (position_ < text_.size()) {
      const char c = text_[position_++];
      if (c == '"') {
        if (position_ < text_.size() && text_[position_] == '"') {
          out += '"';
          ++position_;
          continue;
        }
        return;
      }
      if (c == '\n') ++line_;
      out += c;
    }
    throw InputError(source_, start_line, column, "unterminated quoted field");
  }

  const std::string& text_;
  const std::string& source_;
  size_t position_ = 0;
  size_t line_ = 1;
};

std::string trim(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return {};
  const size_t last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

// Parses a finite decimal number; returns false for anything else (including NaN and Inf).
bool parse_finite(const std::string& text, double& value) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  const auto [stop, error] = std::from_chars(begin, end, value);
  return error == std::errc() && stop == end && std::isfinite(value);
}

}  // namespace

InputError::InputError(const std::string& file, size_t line, size_t column,
                       const std::string& message)
    : std::runtime_error(located_message(file, line, column, message)),
      file_(file),
      line_(line),
      column_(column) {}

CsvTable parse_csv(const std::string& text, const std::string& source, size_t min_rows) {
  CsvTable table;
  table.source = source;
  RecordReader reader(text, source);
  Record record;
  bool have_header = false;
  size_t last_line = 1;
  while (reader.next(record)) {
    last_line = record.line;
    if (record.blank()) continue;
    if (!have_header) {
      for (const Field& field : record.fields) table.header.push_back(trim(field.text));
      have_header = true;
      continue;
    }
    const size_t expected = table.header.size();
    if (record.fields.size() != expected) {
      const size_t column = std::min(record.fields.size(), expected) + 1;
      throw InputError(source, record.line, column,
                       "expected " + std::to_string(expected) +
                           " fields (as in the header), found " +
                           std::to_string(record.fields.size()));
    }
    for (size_t column = 0; column < expected; ++column) {
      const std::string cell = trim(record.fields[column].text);
      double value = 0.0;
      if (!parse_finite(cell, value)) {
        const std::string what =
            cell.empty() ? "empty cell" : "not a finite number: '" + cell + "'";
        throw InputError(source, record.line, column + 1,
                         what + " (column '" + table.header[column] + "')");
      }
      table.cells.push_back(value);
    }
    table.row_lines.push_back(record.line);
    ++table.rows;
  }
  if (!have_header) throw InputError(source, 1, 1, "empty file: expected a header row");
  if (table.rows < min_rows) {
    throw InputError(source, last_line, 1,
                     "need at least " + std::to_string(min_rows) +
                         (min_rows == 1 ? " data row" : " data rows") + ", found " +
                         std::to_string(table.rows));
  }
  return table;
}

CsvTable read_csv(const std::string& path, size_t min_rows) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw InputError(path, 0, 0, "cannot open file: " + std::generic_category().message(errno));
  std::ostringstream contents;
  contents << file.rdbuf();
  if (file.bad()) throw InputError(path, 0, 0, "read error");
  return parse_csv(contents.str(), path, min_rows);
}

size_t resolve_column(const CsvTable& table, const std::optional<std::string>& target) {
  if (!target) return table.columns() - 1;
  for (size_t column = 0; column < table.columns(); ++column) {
    if (table.header[column] == *target) return column;
  }
  size_t index = 0;
  const char* end = target->data() + target->size();
  const auto [stop, error] = std::from_chars(target->data(), end, index);
  if (error == std::errc() && stop == end && !target->empty() && index < table.columns()) {
    return index;
  }
  throw InputError(table.source, 1, 1, "no target column '" + *target + "' in the header");
}

Dataset to_dataset(const CsvTable& table, size_t target_column) {
  if (table.columns() < 2) {
    throw InputError(table.source, 1, 1, "need at least one input column besides the target");
  }
  Dataset data;
  data.source = table.source;
  data.rows = table.rows;
  data.inputs = table.columns() - 1;
  data.target_name = table.header[target_column];
  for (size_t column = 0; column < table.columns(); ++column) {
    if (column != target_column) data.feature_names.push_back(table.header[column]);
  }
  data.x.reserve(data.rows * data.inputs);
  data.y.reserve(data.rows);
  for (size_t row = 0; row < table.rows; ++row) {
    for (size_t column = 0; column < table.columns(); ++column) {
      if (column == target_column) {
        data.y.push_back(table.at(row, column));
      } else {
        data.x.push_back(table.at(row, column));
      }
    }
  }
  return data;
}

void check_target_column(const CsvTable& table, size_t column, Task task, uint32_t classes) {
  for (size_t row = 0; row < table.rows; ++row) {
    if (const auto problem = target_problem(table.at(row, column), task, classes)) {
      throw InputError(table.source, table.row_lines[row], column + 1,
                       *problem + " (column '" + table.header[column] + "')");
    }
  }
}

}  // namespace pbp::trainer
