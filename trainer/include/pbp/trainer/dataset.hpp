// SPDX-License-Identifier: Apache-2.0
// A numeric table loaded for training or evaluation, and the checks its targets get per task.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pbp/pbp.h"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

struct Dataset {
  std::string source;                      // file name, for messages
  std::vector<std::string> feature_names;  // one per input column, or none (IDX pixels)
  std::string target_name;
  size_t rows = 0;
  size_t inputs = 0;
  std::vector<double> x;  // rows x inputs, row-major
  std::vector<double> y;  // rows

  const double* row(size_t i) const { return x.data() + i * inputs; }
  // The subset of rows `indices` (in that order).
  Dataset subset(const std::vector<size_t>& indices) const;
};

// The most classes a multiclass model may have: the runtime's limit.
inline constexpr uint32_t kMaxClasses = PBP_MAX_CLASSES;

// Why `value` cannot be a target for `task`, or nullopt if it can: binary labels are 0 or 1,
// class indices integers in 0 .. classes-1 (any up to kMaxClasses-1 when classes is 0), counts
// non-negative integers (below 2^53, where doubles stop holding every integer).
std::optional<std::string> target_problem(double value, Task task, uint32_t classes);

// The number of classes of a multiclass model trained on `targets` (already checked with
// target_problem): `classes` if given (non-zero), else 1 + the largest label.
uint32_t class_count(std::span<const double> targets, uint32_t classes);

// "regression", "binary", "multiclass", "count".
const char* task_name(Task task);
// The inverse of task_name; nullopt for any other text.
std::optional<Task> parse_task(const std::string& name);

}  // namespace pbp::trainer
