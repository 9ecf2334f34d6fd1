// SPDX-License-Identifier: Apache-2.0
#include "pbp/trainer/standardisation.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "pbp/format.hpp"

namespace pbp::trainer {
namespace {

struct ColumnStatistics {
  double mean = 0.0;
  double std = 0.0;
  double min = 0.0;
  double max = 0.0;
  double largest_magnitude = 0.0;  // max |x|
};

// Mean and population std by plain recursive summation, two passes (the order of the sums is
// part of the trained model's bits: every model of a data set without constant columns is the
// same as before these checks existed).
template <class ValueAt>
ColumnStatistics column_statistics(ValueAt value_at, size_t rows) {
  ColumnStatistics c;
  const double n = static_cast<double>(rows);
  double sum = 0.0;
  c.min = c.max = value_at(0);
  for (size_t i = 0; i < rows; ++i) {
    const double x = value_at(i);
    sum += x;
    c.min = std::min(c.min, x);
    c.max = std::max(c.max, x);
  }
  c.mean = sum / n;
  double squares = 0.0;
  for (size_t i = 0; i < rows; ++i) squares += (value_at(i) - c.mean) * (value_at(i) - c.mean);
  c.std = std::sqrt(squares / n);
  c.largest_magnitude = std::max(std::fabs(c.min), std::fabs(c.max));
  return c;
}

// True when the computed std is no larger than rounding alone gives a column of one value c:
// the recursive sum of n copies of c is within (n - 1) u n |c| of n c (Higham, "Accuracy and
// Stability of Numerical Algorithms", eq. 4.4; u = 2^-53), so the mean is within n u |c| of c
// (one more u for the division); each c - mean is then exact (Sterbenz) and the std is at most
// n u |c| (1 + O(u)). We allow twice that, n eps max|x| with eps = 2u: a spread of a few ulps is
// at the level of the data's own rounding (0.998 has no exact double) and carries no signal.
bool constant_up_to_rounding(const ColumnStatistics& c, size_t rows) {
  const double bound =
      static_cast<double>(rows) * std::numeric_limits<double>::epsilon() * c.largest_magnitude;
  return !(c.std > bound) || !std::isfinite(c.std);
}

// The device reads inputs as float32: rounding x to float moves it by up to 2^-24 |x|, which in
// standardised units is 2^-24 |x| / std. A std of at least 2^-14 max|x| keeps that below 2^-10
// (0.1 % of a std) for every training value; below it, the device's standardised input would be
// mostly rounding (1e12 +- 1: float32 spacing at 1e12 is 65536).
constexpr double kMinStdOverMagnitude = 1.0 / 16384.0;

std::string general(double value) {
  std::ostringstream text;
  text.precision(6);
  text << value;
  return text.str();
}

// Throws unless column `k` (not constant) can be standardised in float32 as the runtime does.
void check_float_resolution(const Dataset& data, size_t k, const ColumnStatistics& c) {
  const std::string column = input_column_label(data, k);
  if (c.largest_magnitude > FLT_MAX) {
    throw std::invalid_argument("input column " + column +
                                " has values up to |x| = " + general(c.largest_magnitude) +
                                ", beyond float32 (3.4e38), which the device reads inputs as");
  }
  const bool resolvable =
      c.std >= kMinStdOverMagnitude * c.largest_magnitude &&
      format::valid_input_standardisation(static_cast<float>(c.mean), static_cast<float>(c.std));
  if (!resolvable) {
    const double spacing = std::ldexp(1.0, std::ilogb(c.largest_magnitude) - 23);
    throw std::invalid_argument(
        "input column " + column + " varies too little for float32 on the device: std " +
        general(c.std) + " around values up to |x| = " + general(c.largest_magnitude) +
        ", where float32 values are " + general(spacing) +
        " apart (a column needs std >= 2^-14 max|x|, and a normal float32 std); subtract a "
        "constant offset such as " +
        general(c.mean) + " from the column (or rescale it) before training, or drop it");
  }
}

}  // namespace

void check_regression_target(const Dataset& data) {
  const ColumnStatistics c = column_statistics([&](size_t i) { return data.y[i]; }, data.rows);
  const std::string column = data.target_name.empty() ? std::string("the target y")
                                                      : "target column '" + data.target_name + "'";
  const std::string rescale = "; rescale the target (e.g. to other units) before training";
  if (c.largest_magnitude > FLT_MAX) {
    throw std::invalid_argument(column + " has values up to |y| = " + general(c.largest_magnitude) +
                                ", beyond float32 (3.4e38), which the device predicts in" +
                                rescale);
  }
  if (constant_up_to_rounding(c, data.rows)) return;  // std 1: nothing to scale
  // The device squares the std in float32 (the predictive variances' scale, outputs.hpp): it
  // must stay a normal float, so the std lies in [sqrt(FLT_MIN), sqrt(FLT_MAX)].
  if (c.std > std::sqrt(static_cast<double>(FLT_MAX)) ||
      c.std < std::sqrt(static_cast<double>(FLT_MIN))) {
    throw std::invalid_argument(column + " has std " + general(c.std) +
                                ": the device squares it in float32, which needs a std between "
                                "1.1e-19 and 1.8e19" +
                                rescale);
  }
  // Predictions are nu std + mean in float32: as for inputs, a spread below 2^-14 max|y| would be
  // mostly the rounding of values that large.
  if (c.std < kMinStdOverMagnitude * c.largest_magnitude) {
    throw std::invalid_argument(
        column + " varies too little for float32 on the device: std " + general(c.std) +
        " around values up to |y| = " + general(c.largest_magnitude) +
        " (a target needs std >= 2^-14 " + "max|y|); subtract a constant offset such as " +
        general(c.mean) + " from it before training");
  }
}

std::string input_column_label(const Dataset& data, size_t column) {
  const std::string number = "column " + std::to_string(column + 1);
  if (column < data.feature_names.size()) {
    return "'" + data.feature_names[column] + "' (" + number + ")";
  }
  return number;
}

FittedStandardisation fit_standardisation(const Dataset& data) {
  FittedStandardisation fitted;
  Standardisation& s = fitted.standardisation;
  s.input_mean.assign(data.inputs, 0.0);
  s.input_std.assign(data.inputs, 1.0);
  s.input_min.assign(data.inputs, 0.0);
  s.input_max.assign(data.inputs, 0.0);
  for (size_t k = 0; k < data.inputs; ++k) {
    const ColumnStatistics c =
        column_statistics([&](size_t i) { return data.x[i * data.inputs + k]; }, data.rows);
    s.input_min[k] = c.min;
    s.input_max[k] = c.max;
    if (constant_up_to_rounding(c, data.rows)) {
      // The middle of the range: exactly the value of a one-valued column (no overflow).
      s.input_mean[k] = c.min + (c.max - c.min) / 2.0;
      // Any std gives 0 at the training value; max(1, |value|) keeps the device's division
      // within format::valid_input_standardisation and a float32 rounding of an input near the
      // value within 2^-24 of a standardised unit (std 1 at 1e12 would turn it into 65536).
      s.input_std[k] = std::max(1.0, std::fabs(s.input_mean[k]));
      fitted.constant_inputs.push_back(k);
      if (c.largest_magnitude > FLT_MAX) check_float_resolution(data, k, c);
      continue;
    }
    check_float_resolution(data, k, c);
    // Inside the range, as a mean is (rounding could only move it by ulps at the edges).
    s.input_mean[k] = std::clamp(c.mean, c.min, c.max);
    s.input_std[k] = c.std;
  }
  const ColumnStatistics target = column_statistics([&](size_t i) { return data.y[i]; }, data.rows);
  s.target_mean = target.mean;
  s.target_std = constant_up_to_rounding(target, data.rows) ? 1.0 : target.std;
  return fitted;
}

}  // namespace pbp::trainer
