// SPDX-License-Identifier: Apache-2.0
// The trainer runs the same templated moment equations in double: an overflow in a hidden layer
// (inputs near 1e200, whose squares are infinite) must come out as a non-finite prediction and a
// non-finite forward pass of the ADF update, never as the bias-only answer the next ReLU used to
// make of a NaN unit. Finite inputs stay finite.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "golden_vectors.h"
#include "pbp/moments.hpp"
#include "pbp/trainer/adf.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/model.hpp"

namespace {

using pbp::trainer::Model;

// The golden 4-16-16-1 regression model (two hidden layers).
Model deep_model() {
  const pbp_golden_model& g = pbp_golden_models[2];
  return pbp::trainer::read_blob(std::span<const uint8_t>(g.blob, g.size));
}

bool finite_prediction(const Model& model, const std::vector<double>& x) {
  const pbp::trainer::Prediction p = pbp::trainer::predict(model, x);
  return std::isfinite(p.mean) && std::isfinite(p.epistemic_variance);
}

}  // namespace

TEST(NonFinite, TrainerPredictionOfHugeInputsIsNotFinite) {
  const Model model = deep_model();
  ASSERT_EQ(model.layers.size(), 3u);
  EXPECT_TRUE(finite_prediction(model, {0.5, -1.0, 2.0, 0.0}));
  for (double huge : {1e160, -1e200, 1e300, std::numeric_limits<double>::max()}) {
    for (size_t k = 0; k < 4; ++k) {
      std::vector<double> x = {0.5, -1.0, 2.0, 0.0};
      x[k] = huge;
      EXPECT_FALSE(finite_prediction(model, x)) << "input " << k << " = " << huge;
    }
  }
}

TEST(NonFinite, AdfForwardPassOfHugeInputsIsNotFinite) {
  const Model model = deep_model();
  pbp::trainer::AdfWorkspace ws(model.layers);
  const std::vector<double> ordinary = {0.5, -1.0, 2.0, 0.0};
  const pbp::trainer::OutputMoments f =
      pbp::trainer::forward_with_cache(model.layers, ordinary.data(), ws);
  EXPECT_TRUE(std::isfinite(f.mean) && std::isfinite(f.variance));
  for (double huge : {1e160, -1e200, 1e300}) {
    for (size_t k = 0; k < 4; ++k) {
      std::vector<double> x = ordinary;
      x[k] = huge;  // standardised already, as the update takes it
      const pbp::trainer::OutputMoments g =
          pbp::trainer::forward_with_cache(model.layers, x.data(), ws);
      EXPECT_FALSE(std::isfinite(g.mean) && std::isfinite(g.variance))
          << "input " << k << " = " << huge;
    }
  }
}

// Hidden unit 0 of layer 0 with bias mean -1e300 and weight variances 1e-300: alpha = m / sqrt(v)
// overflows to -inf for ordinary inputs, and the unit's moments are NaN.
TEST(NonFinite, CraftedWeightsGiveANonFiniteForwardPassAndPrediction) {
  Model model = deep_model();
  pbp::trainer::Layer& first = model.layers[0];
  for (uint32_t k = 0; k <= first.inputs; ++k) first.variance[k] = 1e-300;
  first.mean[first.inputs] = -1e300;
  const std::vector<double> ordinary = {0.5, -1.0, 2.0, 0.0};
  EXPECT_FALSE(finite_prediction(model, ordinary));
  pbp::trainer::AdfWorkspace ws(model.layers);
  const pbp::trainer::OutputMoments f =
      pbp::trainer::forward_with_cache(model.layers, ordinary.data(), ws);
  EXPECT_FALSE(std::isfinite(f.mean) && std::isfinite(f.variance));
}

TEST(NonFinite, DoubleReluMomentsPassNonFiniteArgumentsOn) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double cases[][2] = {{nan, 1.0},       {1.0, nan},     {nan, 0.0}, {inf, 1.0},
                             {-inf, 1.0},      {-inf, 0.0},    {1.0, inf}, {-1.0, inf},
                             {-1e300, 1e-300}, {1e300, 1e-300}};
  for (const auto& c : cases) {
    const pbp::ReluMoments<double> r = pbp::relu_moments(c[0], c[1]);
    EXPECT_FALSE(std::isfinite(r.mean) && std::isfinite(r.variance)) << c[0] << ", " << c[1];
  }
}
