// SPDX-License-Identifier: Apache-2.0
// Shared by the active-learning tests: the generated pool and a small JSON reader.
// 195 inputs dense in [-1, 1] and 5 far outside (rows 195..199), where a model trained on the
// dense part is least sure, so the variance strategy must pick them first.
#pragma once
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cli_helpers.hpp"

namespace pbp::cli_test {

using ActiveLearning = CliTest;

constexpr size_t kDenseRows = 195;

inline std::string far_points_csv() {
  std::ostringstream csv;
  csv << "x,y\n";
  for (size_t i = 0; i < kDenseRows; ++i) {
    const double x = -1.0 + 2.0 * static_cast<double>(i) / (kDenseRows - 1);
    csv << x << "," << std::sin(2.0 * x) + 0.1 * std::sin(37.0 * static_cast<double>(i)) << "\n";
  }
  for (const double x : {4.0, 4.5, 5.0, -4.5, -5.0}) csv << x << "," << std::sin(2.0 * x) << "\n";
  return csv.str();
}

// The value of the first "key" at or after `from`: a balanced [...] or {...}, or a scalar.
inline std::string json_value(const std::string& json, const std::string& key, size_t from = 0) {
  const size_t found = json.find("\"" + key + "\": ", from);
  if (found == std::string::npos) return "";
  const size_t start = found + key.size() + 4;
  if (json[start] != '[' && json[start] != '{') {
    return json.substr(start, json.find_first_of(",}", start) - start);
  }
  int depth = 0;
  for (size_t i = start; i < json.size(); ++i) {
    depth += (json[i] == '[' || json[i] == '{') - (json[i] == ']' || json[i] == '}');
    if (depth == 0) return json.substr(start, i + 1 - start);
  }
  return "";
}

// The top-level items of a JSON array's text.
inline std::vector<std::string> json_items(const std::string& array) {
  std::vector<std::string> items;
  int depth = 0;
  size_t start = 1;
  for (size_t i = 1; i + 1 < array.size(); ++i) {
    depth += (array[i] == '[') - (array[i] == ']');
    if (depth == 0 && array[i] == ',') {
      items.push_back(array.substr(start, i - start));
      start = i + 2;
    }
  }
  if (array.size() > 2) items.push_back(array.substr(start, array.size() - 1 - start));
  return items;
}

inline RunResult active(const std::string& pool, std::vector<std::string> extra) {
  std::vector<std::string> arguments{"active", "--pool",   pool,       "--initial", "10",
                                     "--test", "50",       "--rounds", "3",         "--repeats",
                                     "4",      "--hidden", "10",       "--epochs",  "20"};
  arguments.insert(arguments.end(), extra.begin(), extra.end());
  return run_pbp(arguments);
}

}  // namespace pbp::cli_test
