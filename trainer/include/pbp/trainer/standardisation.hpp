// SPDX-License-Identifier: Apache-2.0
// Fitting the standardisation x' = (x - mean) / std of a data set's columns on its training rows,
// with the checks that keep it meaningful on a float32 device.
#pragma once
#include <cstddef>
#include <vector>

#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/model.hpp"

namespace pbp::trainer {

struct FittedStandardisation {
  Standardisation standardisation;
  // Input columns that are constant up to rounding on the training rows: they get the middle of
  // their range as mean and max(1, |mean|) as std, so their standardised value is 0 (exactly,
  // for a column of one value) in training and on the device, and they contribute nothing to
  // the model.
  std::vector<size_t> constant_inputs;
};

// Mean, population std and range of every input column, and mean and std of the target.
// Throws std::invalid_argument naming the column when a varying input column cannot be
// standardised in float32 on the device (values beyond float32, or a spread too small for float32
// to resolve at the column's magnitude: format::valid_input_standardisation and the 2^-14 rule in
// standardisation.cpp).
FittedStandardisation fit_standardisation(const Dataset& data);

// Throws std::invalid_argument naming the target column when a regression target cannot be
// predicted in float32 on the device: values beyond float32, a std whose square is not a normal
// float32 (the device squares it), or a spread below 2^-14 of the largest |y|.
void check_regression_target(const Dataset& data);

// "'name' (column k)" or "column k" (1-based) when the data set has no feature names.
std::string input_column_label(const Dataset& data, size_t column);

}  // namespace pbp::trainer
