// SPDX-License-Identifier: Apache-2.0
// fit_standardisation: columns constant up to rounding (a scale-aware test, not std == 0), and
// the columns float32 cannot standardise on the device, rejected with the column's name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "pbp/format.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/standardisation.hpp"

namespace pbp::trainer {
namespace {

// `rows` rows of an informative column "a" ~ N(0, 1) and a column "c" with value c_at(i).
template <class ColumnC>
Dataset two_columns(size_t rows, ColumnC c_at) {
  Random random(5);
  Dataset data;
  data.rows = rows;
  data.inputs = 2;
  data.feature_names = {"a", "c"};
  for (size_t i = 0; i < rows; ++i) {
    const double a = random.normal();
    data.x.push_back(a);
    data.x.push_back(c_at(i));
    data.y.push_back(a + 0.1 * random.normal());
  }
  return data;
}

TEST(FitStandardisation, AwkwardConstantsAreConstantAndStandardiseToExactlyZero) {
  // None of these but 7.5 and 0 has an exact double, and the sum of n copies rounds.
  const double values[] = {0.998, 0.1,    1.0 / 3.0, -7.3e-5, 288.15,   7.5,
                           0.0,   1e-300, 3.3e20,    -1e12,   1e-3 / 3, 3.4e38};
  for (const size_t rows : {2u, 7u, 300u, 4999u}) {
    for (const double value : values) {
      const Dataset data = two_columns(rows, [&](size_t) { return value; });
      const FittedStandardisation fitted = fit_standardisation(data);
      const Standardisation& s = fitted.standardisation;
      ASSERT_EQ(fitted.constant_inputs, std::vector<size_t>{1}) << value << " x " << rows;
      EXPECT_EQ(s.input_mean[1], value);
      EXPECT_EQ(s.input_std[1], std::max(1.0, std::fabs(value)));
      EXPECT_EQ(s.input_min[1], value);
      EXPECT_EQ(s.input_max[1], value);
      EXPECT_EQ((value - s.input_mean[1]) / s.input_std[1], 0.0);
      // The device rounds the mean and the input alike, so it sees 0 too.
      const float device = (static_cast<float>(value) - static_cast<float>(s.input_mean[1])) /
                           static_cast<float>(s.input_std[1]);
      EXPECT_EQ(device, 0.0f);
      EXPECT_TRUE(format::valid_input_standardisation(static_cast<float>(s.input_mean[1]),
                                                      static_cast<float>(s.input_std[1])));
    }
  }
}

TEST(FitStandardisation, SpreadOfAFewUlpsIsConstantAndOneDifferentRowIsNot) {
  // 1e12 + [0, 1e-3): 8 doubles apart at most (ulp 1.2e-4), far below n eps max|x| = 0.067.
  Random random(3);
  const FittedStandardisation ulps =
      fit_standardisation(two_columns(300, [&](size_t) { return 1e12 + 1e-3 * random.uniform(); }));
  EXPECT_EQ(ulps.constant_inputs, std::vector<size_t>{1});
  EXPECT_EQ(ulps.standardisation.input_std[1], ulps.standardisation.input_mean[1]);

  const FittedStandardisation one_row =
      fit_standardisation(two_columns(300, [](size_t i) { return i == 17 ? 1.5 : 0.998; }));
  EXPECT_TRUE(one_row.constant_inputs.empty());
  const double p = 1.0 / 300.0;  // the one row's share: std = 0.502 sqrt(p (1 - p))
  EXPECT_NEAR(one_row.standardisation.input_std[1], 0.502 * std::sqrt(p * (1.0 - p)), 1e-12);
  EXPECT_EQ(one_row.standardisation.input_min[1], 0.998);
  EXPECT_EQ(one_row.standardisation.input_max[1], 1.5);

  // A range of 1e30 is ordinary: standardised to order one, nothing to reject.
  const FittedStandardisation wide = fit_standardisation(
      two_columns(300, [&](size_t) { return 1e30 * (2.0 * random.uniform() - 1.0); }));
  EXPECT_TRUE(wide.constant_inputs.empty());
  EXPECT_GT(wide.standardisation.input_std[1], 4e29);
  EXPECT_LT(wide.standardisation.input_std[1], 7e29);
}

// Throws, and the message names column c and says why.
template <class ColumnC>
std::string rejection(ColumnC c_at) {
  try {
    fit_standardisation(two_columns(300, c_at));
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(FitStandardisation, ColumnsFloat32CannotStandardiseAreRejectedByName) {
  Random random(4);
  // 1e12 + [0, 1): float32 values are 65536 apart there; std 0.29 < 2^-14 1e12.
  const std::string spread = rejection([&](size_t) { return 1e12 + random.uniform(); });
  EXPECT_NE(spread.find("'c' (column 2)"), std::string::npos) << spread;
  EXPECT_NE(spread.find("float32"), std::string::npos) << spread;
  EXPECT_NE(spread.find("offset"), std::string::npos) << spread;
  // Just above the bound is accepted: 1000 + std 0.07 (2^-14 1000 = 0.061).
  EXPECT_EQ(rejection([&](size_t i) { return 1000.0 + (i % 2 ? 0.07 : -0.07); }), "");
  EXPECT_NE(rejection([&](size_t i) { return 1000.0 + (i % 2 ? 0.05 : -0.05); }), "");
  // Values beyond float32, varying or not.
  const std::string huge = rejection([](size_t i) { return i % 2 ? 1e39 : -1e39; });
  EXPECT_NE(huge.find("beyond float32"), std::string::npos) << huge;
  EXPECT_NE(rejection([](size_t) { return 5e38; }).find("beyond float32"), std::string::npos);
  // Subnormal in float32: a std no float32 division can use.
  EXPECT_NE(rejection([](size_t i) { return i % 2 ? 1e-39 : -1e-39; }), "");
}

TEST(FitStandardisation, RangesGoIntoTheBlobAndBack) {
  Model model;
  Layer layer;
  layer.inputs = 2;
  layer.outputs = 1;
  layer.activation = pbp::trainer::Activation::linear;
  layer.mean = {0.5, -0.25, 0.125};
  layer.variance = {0.01, 0.02, 0.03};
  model.layers = {layer};
  model.standardisation = fit_standardisation(two_columns(50, [](size_t i) {
                            return i == 3 ? 2.0 : 0.998;
                          })).standardisation;
  const Model read = read_blob(write_blob(model));
  ASSERT_EQ(read.standardisation.input_min.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(read.standardisation.input_min[k],
              static_cast<float>(model.standardisation.input_min[k]));
    EXPECT_EQ(read.standardisation.input_max[k],
              static_cast<float>(model.standardisation.input_max[k]));
  }
  EXPECT_EQ(write_blob(read), write_blob(model));
  // A model without ranges (read from an older blob) writes none: a section of the v1 size.
  model.standardisation.input_min.clear();
  model.standardisation.input_max.clear();
  const Model old = read_blob(write_blob(model));
  EXPECT_TRUE(old.standardisation.input_min.empty());
  EXPECT_LT(write_blob(model).size(), write_blob(read).size());
  model.standardisation.input_min = {0.0};
  model.standardisation.input_max = {0.0};
  EXPECT_THROW(write_blob(model), std::invalid_argument);
}

// The message of check_regression_target on two_columns' targets scaled by `scale` and shifted by
// `offset`, or "" when it accepts them.
std::string target_refusal(double scale, double offset) {
  Dataset data = two_columns(50, [](size_t i) { return static_cast<double>(i); });
  data.target_name = "power";
  for (double& y : data.y) y = y * scale + offset;
  try {
    check_regression_target(data);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(CheckRegressionTarget, RefusesWhatFloat32CannotCarryOnTheDeviceNamingTheColumn) {
  EXPECT_EQ(target_refusal(1.0, 0.0), "");
  EXPECT_EQ(target_refusal(1e18, 0.0), "");  // std about 1e18: its square 1e36 is a float
  EXPECT_EQ(target_refusal(1e-18, 0.0), "");
  // The device squares the std in float32: about 1e30 overflows, 1e-30 underflows.
  EXPECT_NE(target_refusal(1e30, 0.0).find("target column 'power' has std"), std::string::npos);
  EXPECT_NE(target_refusal(1e-30, 0.0).find("between 1.1e-19 and 1.8e19"), std::string::npos);
  EXPECT_NE(target_refusal(1.0, 1e300).find("beyond float32"), std::string::npos);
  // A spread below 2^-14 of the largest |y| (std about 1 around 1e3 passes, around 1e6 not).
  EXPECT_EQ(target_refusal(1.0, 1e3), "");
  EXPECT_NE(target_refusal(1.0, 1e6).find("varies too little"), std::string::npos);
  // A constant target is standardised with std 1: nothing to square.
  EXPECT_EQ(target_refusal(0.0, 5.0), "");
}

}  // namespace
}  // namespace pbp::trainer
