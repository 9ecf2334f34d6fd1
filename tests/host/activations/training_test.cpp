// SPDX-License-Identifier: Apache-2.0
// Training with each hidden activation on a small synthetic problem, y = 2 sin(2x) + x + N(0, 0.09)
// with x ~ U[-3, 3]: the model fits it, is deterministic, and its blob runs in the runtime with the
// trainer's answers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "pbp/pbp.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {
namespace {

constexpr double kNoiseSd = 0.3;

Dataset wave(size_t rows, uint64_t seed) {
  Random random(seed);
  Dataset data;
  data.rows = rows;
  data.inputs = 1;
  data.feature_names = {"x"};
  data.target_name = "y";
  for (size_t i = 0; i < rows; ++i) {
    const double x = -3.0 + 6.0 * random.uniform();
    data.x.push_back(x);
    data.y.push_back(2.0 * std::sin(2.0 * x) + x + kNoiseSd * random.normal());
  }
  return data;
}

Model train_toy(Activation activation) {
  TrainOptions options;
  options.hidden = {50};
  options.epochs = 40;
  options.seed = 3;
  options.activation = activation;
  return train(wave(300, 1), options);
}

void expect_fits(Activation activation, const char* name) {
  const Model model = train_toy(activation);
  ASSERT_EQ(model.layers[0].activation, activation);
  EXPECT_EQ(model.layers[1].activation, Activation::linear);
  const Dataset test = wave(400, 2);
  double squared = 0, total = 0, mean = 0;
  for (const double y : test.y) mean += y / static_cast<double>(test.rows);
  for (size_t i = 0; i < test.rows; ++i) {
    const double e = predict(model, {test.row(i), 1}).mean - test.y[i];
    squared += e * e;
    total += (test.y[i] - mean) * (test.y[i] - mean);
  }
  // The best straight line on the test rows themselves (least squares): what a network that
  // learned nothing nonlinear could at most reach.
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(test.rows);
  for (size_t i = 0; i < test.rows; ++i) {
    sx += test.x[i], sy += test.y[i], sxx += test.x[i] * test.x[i], sxy += test.x[i] * test.y[i];
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx), intercept = (sy - slope * sx) / n;
  double line_squared = 0;
  for (size_t i = 0; i < test.rows; ++i) {
    const double e = intercept + slope * test.x[i] - test.y[i];
    line_squared += e * e;
  }
  const double rmse = std::sqrt(squared / n), line_rmse = std::sqrt(line_squared / n);
  std::printf("%s: test RMSE %.3f (noise sd %.1f, best line %.3f, target sd %.3f)\n", name, rmse,
              kNoiseSd, line_rmse, std::sqrt(total / n));
  // Most of the nonlinear part learned: under half the best line's error, and within 3x the noise.
  EXPECT_LT(rmse, 0.5 * line_rmse) << name;
  EXPECT_LT(rmse, 3 * kNoiseSd) << name;

  // The blob: written with the activation, opened by the runtime, which agrees with the trainer
  // to float accuracy (1e-5 relative, as tests/host/blob/agreement_test).
  const std::vector<uint8_t> blob = write_blob(model);
  pbp::Model runtime;
  ASSERT_EQ(runtime.open(blob.data(), blob.size()), PBP_OK);
  EXPECT_EQ(runtime.view().layers[0].activation, static_cast<uint32_t>(activation));
  std::vector<uint8_t> workspace(runtime.workspace_bytes());
  for (const double x : {-2.5, -1.0, 0.0, 0.7, 2.9}) {
    const float xf = static_cast<float>(x);
    pbp::Prediction p;
    ASSERT_EQ(runtime.predict(&xf, 1, 0.9f, workspace.data(), workspace.size(), &p), PBP_OK);
    const Prediction reference = predict(model, {&x, 1});
    EXPECT_NEAR(p.mean, reference.mean, 1e-5 * std::fabs(reference.mean) + 1e-5) << name << x;
    EXPECT_NEAR(p.std, std::sqrt(reference.variance()), 1e-5 * std::sqrt(reference.variance()))
        << name << x;
  }
  // Read back, it is the same model.
  EXPECT_EQ(read_blob(blob).layers[0].activation, activation);
}

TEST(ActivationTraining, ReluFitsTheToyProblem) {
  expect_fits(Activation::relu, "relu");
}
TEST(ActivationTraining, ErfFitsTheToyProblem) {
  expect_fits(Activation::erf, "erf");
}
TEST(ActivationTraining, SignFitsTheToyProblem) {
  expect_fits(Activation::sign, "sign");
}

TEST(ActivationTraining, SameSeedSameModel) {
  for (const Activation activation : {Activation::erf, Activation::sign}) {
    const Model a = train_toy(activation), b = train_toy(activation);
    for (size_t l = 0; l < a.layers.size(); ++l) {
      EXPECT_EQ(a.layers[l].mean, b.layers[l].mean);
      EXPECT_EQ(a.layers[l].variance, b.layers[l].variance);
    }
  }
}

TEST(ActivationTraining, WriterRejectsActivationsInTheWrongPlace) {
  Model model = train_toy(Activation::relu);
  model.layers[1].activation = Activation::erf;  // the last layer must be linear
  EXPECT_THROW(write_blob(model), std::invalid_argument);
  model.layers[1].activation = Activation::linear;
  model.layers[0].activation = static_cast<Activation>(9);  // no such activation
  EXPECT_THROW(write_blob(model), std::invalid_argument);
  TrainOptions options;
  options.activation = Activation::linear;  // hidden layers are never linear
  EXPECT_THROW(train(wave(20, 1), options), std::invalid_argument);
}

}  // namespace
}  // namespace pbp::trainer
