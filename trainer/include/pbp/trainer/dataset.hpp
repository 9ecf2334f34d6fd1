// A numeric table loaded for training or evaluation.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace pbp::trainer {

struct Dataset {
  std::string source;                      // file name, for messages
  std::vector<std::string> feature_names;  // one per input column
  std::string target_name;
  size_t rows = 0;
  size_t inputs = 0;
  std::vector<double> x;  // rows x inputs, row-major
  std::vector<double> y;  // rows

  const double* row(size_t i) const { return x.data() + i * inputs; }
  // The subset of rows `indices` (in that order).
  Dataset subset(const std::vector<size_t>& indices) const;
};

}  // namespace pbp::trainer
