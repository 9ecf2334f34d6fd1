// SPDX-License-Identifier: Apache-2.0
// Power-of-two unit scales before int8 rounding (trainer/include/pbp/trainer/int8_unit_scales.hpp):
// they change no prediction, they can be read back from an int8 blob, and on a network whose
// layer holds variances far apart (a unit the rows never switch on beside units that carry the
// prediction) they keep the small variances off the codes' floor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

#include "pbp/format.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/dataset.hpp"
#include "pbp/trainer/int8_rounding.hpp"
#include "pbp/trainer/int8_unit_scales.hpp"
#include "random_models.hpp"

namespace {

using pbp::trainer::Model;
using pbp::trainer::UnitExponents;

UnitExponents random_exponents(const Model& model, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> exponent(-6, 6);
  UnitExponents e(model.layers.size());
  for (size_t l = 0; l < model.layers.size(); ++l) {
    for (uint32_t j = 0; j < model.layers[l].outputs; ++j) {
      e[l].push_back(l + 1 < model.layers.size() ? exponent(rng) : 0);
    }
  }
  return e;
}

Model as_stored(const Model& model, pbp::format::Storage storage) {
  Model copy = model;
  copy.weight_storage = storage;
  return pbp::trainer::read_blob(pbp::trainer::write_blob(copy));
}

TEST(Int8UnitScales, RescalingChangesNoPredictionBitForBit) {
  const Model model = pbp::test_fixtures::random_model(5, {12, 9}, 3);
  Model rescaled = model;
  pbp::trainer::rescale_units(rescaled, random_exponents(model, 4));
  EXPECT_NE(rescaled.layers[1].mean, model.layers[1].mean);
  std::mt19937_64 rng(5);
  for (int r = 0; r < 20; ++r) {
    const std::vector<double> x = pbp::test_fixtures::random_row(model, rng);
    const auto a = pbp::trainer::output_layer_moments(model, x);
    const auto b = pbp::trainer::output_layer_moments(rescaled, x);
    EXPECT_EQ(a.mean, b.mean);
    EXPECT_EQ(a.variance, b.variance);
  }
}

TEST(Int8UnitScales, ReadBackFromTheInt8Blob) {
  const Model model =
      as_stored(pbp::test_fixtures::random_model(5, {12, 9}, 7), pbp::format::Storage::float32);
  const UnitExponents exponents = random_exponents(model, 8);
  Model rescaled = model;
  pbp::trainer::rescale_units(rescaled, exponents);
  EXPECT_EQ(pbp::trainer::unit_exponents_between(model, rescaled), exponents);
  const Model int8 = as_stored(rescaled, pbp::format::Storage::int8);
  EXPECT_EQ(pbp::trainer::unit_exponents_between(model, int8), exponents);
}

// A 4-12-12-1 ReLU network whose weight variances are small (as after training on many rows),
// except on hidden unit 0 of the second layer: the rows never switch it on (bias -100), its
// incoming variances are 10^4 (never updated) and its outgoing weight is 0 with variance 1e-8.
Model network_with_an_unused_unit(pbp::trainer::Activation activation) {
  Model model = pbp::test_fixtures::random_model(4, {12, 12}, 11, activation);
  for (auto& layer : model.layers) {
    for (double& v : layer.variance) v *= 1e-3;
  }
  pbp::trainer::Layer& second = model.layers[1];
  const size_t n = second.row_length();
  for (size_t k = 0; k < n; ++k) second.variance[k] = 1e4;
  second.mean[n - 1] = -100.0;
  model.layers[2].mean[0] = 0.0;
  model.layers[2].variance[0] = 1e-8;
  return as_stored(model, pbp::format::Storage::float32);
}

pbp::trainer::Dataset rows_of(const Model& model, size_t rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  pbp::trainer::Dataset data;
  data.rows = rows;
  data.inputs = model.layers[0].inputs;
  for (size_t r = 0; r < rows; ++r) {
    const std::vector<double> x = pbp::test_fixtures::random_row(model, rng);
    data.x.insert(data.x.end(), x.begin(), x.end());
  }
  data.y.assign(rows, 0.0);
  return data;
}

// Median over the rows of |epistemic std of `coded` / that of `model` - 1|.
double median_epistemic_change(const Model& model, const Model& coded,
                               const pbp::trainer::Dataset& rows) {
  std::vector<double> change;
  for (size_t r = 0; r < rows.rows; ++r) {
    const std::span<const double> x(rows.row(r), rows.inputs);
    const double a = pbp::trainer::output_layer_moments(model, x).variance[0];
    const double b = pbp::trainer::output_layer_moments(coded, x).variance[0];
    change.push_back(std::fabs(std::sqrt(b / a) - 1.0));
  }
  std::nth_element(change.begin(), change.begin() + change.size() / 2, change.end());
  return change[change.size() / 2];
}

TEST(Int8UnitScales, KeepTheSmallVariancesOffTheFloor) {
  const Model model = network_with_an_unused_unit(pbp::trainer::Activation::relu);
  const pbp::trainer::Dataset rows = rows_of(model, 400, 12);
  Model rounded = model;  // the means' rounding alone
  pbp::trainer::round_means_to_int8_grid(rounded, rows);
  Model rescaled = model;
  const UnitExponents exponents = pbp::trainer::rescale_and_round_for_int8(rescaled, rows);
  EXPECT_LT(exponents[1][0], -4) << "the unused unit's variances move out of the way";
  const double without =
      median_epistemic_change(model, as_stored(rounded, pbp::format::Storage::int8), rows);
  const double with =
      median_epistemic_change(model, as_stored(rescaled, pbp::format::Storage::int8), rows);
  std::printf("median epistemic std change: %.3g rescaled, %.3g without\n", with, without);
  EXPECT_GT(without, 1.0);  // the layer's code scale is 10^4 / 255^2: every other variance floored
  EXPECT_LT(with, 0.02);
  // The blob's units can be read back, so `pbp verify --reference` can rebuild it.
  EXPECT_EQ(
      pbp::trainer::unit_exponents_between(model, as_stored(rescaled, pbp::format::Storage::int8)),
      exponents);
}

TEST(Int8UnitScales, OnlyReluUnitsAreRescaled) {  // erf(c a) != c erf(a)
  const Model model = network_with_an_unused_unit(pbp::trainer::Activation::erf);
  const pbp::trainer::Dataset rows = rows_of(model, 100, 13);
  Model rescaled = model;
  const UnitExponents exponents = pbp::trainer::rescale_and_round_for_int8(rescaled, rows);
  for (const auto& layer : exponents) {
    for (const int e : layer) EXPECT_EQ(e, 0);
  }
}

TEST(Int8UnitScales, ANetworkBeyondTheSearchBudgetKeepsItsScales) {
  // 300-300-300-1: about 10^10 weight-passes per search row, beyond the budget of 2^33.
  const Model model = pbp::test_fixtures::random_model(300, {300, 300}, 14);
  std::vector<double> x(20 * 300, 0.5);
  const UnitExponents exponents = pbp::trainer::int8_unit_exponents(model, x, 20);
  for (const auto& layer : exponents) {
    for (const int e : layer) EXPECT_EQ(e, 0);
  }
}

}  // namespace
