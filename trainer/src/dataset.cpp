// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/dataset.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace pbp::trainer {
namespace {

// The shortest text that reads back as `value` ("2", "0.5", "1e+300").
std::string number_text(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// Doubles above 2^53 skip integers, so larger "counts" cannot be told apart.
constexpr double kLargestExactInteger = 9007199254740992.0;

bool is_non_negative_integer(double value) {
  return value >= 0.0 && value <= kLargestExactInteger && std::floor(value) == value;
}

}  // namespace

Dataset Dataset::subset(const std::vector<size_t>& indices) const {
  Dataset part;
  part.source = source;
  part.feature_names = feature_names;
  part.target_name = target_name;
  part.inputs = inputs;
  part.rows = indices.size();
  part.x.reserve(indices.size() * inputs);
  part.y.reserve(indices.size());
  for (const size_t i : indices) {
    part.x.insert(part.x.end(), row(i), row(i) + inputs);
    part.y.push_back(y[i]);
  }
  return part;
}

std::optional<std::string> target_problem(double value, Task task, uint32_t classes) {
  const std::string found = ", found " + number_text(value);
  switch (task) {
    case Task::regression:
      return std::nullopt;
    case Task::binary:
      if (value == 0.0 || value == 1.0) return std::nullopt;
      return "expected a binary label 0 or 1" + found;
    case Task::multiclass: {
      const uint32_t limit = classes != 0 ? classes : kMaxClasses;
      if (is_non_negative_integer(value) && value < static_cast<double>(limit)) return std::nullopt;
      return "expected a class index 0.." + std::to_string(limit - 1) + found;
    }
    case Task::count:
      if (is_non_negative_integer(value)) return std::nullopt;
      return "expected a count (a non-negative integer)" + found;
  }
  return "unknown task";
}

uint32_t class_count(std::span<const double> targets, uint32_t classes) {
  if (classes != 0) return classes;
  double largest = 0.0;
  for (const double y : targets) largest = std::max(largest, y);
  return static_cast<uint32_t>(largest) + 1;
}

const char* task_name(Task task) {
  switch (task) {
    case Task::regression:
      return "regression";
    case Task::binary:
      return "binary";
    case Task::multiclass:
      return "multiclass";
    case Task::count:
      return "count";
  }
  return "unknown";
}

std::optional<Task> parse_task(const std::string& name) {
  for (const Task task : {Task::regression, Task::binary, Task::multiclass, Task::count}) {
    if (name == task_name(task)) return task;
  }
  return std::nullopt;
}

}  // namespace pbp::trainer
