// SPDX-License-Identifier: Apache-2.0
// The Student-t predictive in the trainer: the degrees of freedom the recipe fits on held-out
// rows (noise_calibration.hpp), the metrics that follow them, and the blob's section 9 through
// the writer, the reader and the runtime.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "pbp/pbp.h"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/metrics.hpp"
#include "pbp/trainer/noise_calibration.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/recipe.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {
namespace {

// A draw of a Student-t with `dof` degrees of freedom, scaled to unit variance: a normal over
// the root of a chi-square over dof (the chi-square a sum of dof squared normals).
double unit_variance_t(Random& random, uint32_t dof) {
  double chi_square = 0.0;
  for (uint32_t k = 0; k < dof; ++k) {
    const double z = random.normal();
    chi_square += z * z;
  }
  const double nu = dof;
  return random.normal() / std::sqrt(chi_square / nu) * std::sqrt((nu - 2.0) / nu);
}

// Held-out rows whose errors have unit variance: noise 1, no epistemic part.
HeldOutResiduals residuals(uint32_t dof, size_t rows, uint64_t seed) {
  Random random(seed);
  HeldOutResiduals r;
  for (size_t i = 0; i < rows; ++i) {
    const double e = dof == 0 ? random.normal() : unit_variance_t(random, dof);
    r.squared_error.push_back(e * e);
    r.epistemic.push_back(0.0);
  }
  return r;
}

// The unit-variance t's log density at e, written independently with lgamma.
double t_log_density(double e, double variance, uint32_t dof) {
  const double nu = dof, scale = std::sqrt(variance * (nu - 2.0) / nu), x = e / scale;
  return std::lgamma((nu + 1.0) / 2.0) - std::lgamma(nu / 2.0) -
         0.5 * std::log(nu * std::numbers::pi) - std::log(scale) -
         (nu + 1.0) / 2.0 * std::log1p(x * x / nu);
}

// Per-row log-likelihood differences between neighbouring shapes are about 1e-2 nats with a
// spread near 0.1: 4 000 rows put the right shape several standard errors ahead.
TEST(PredictiveTail, HeavyTailedRowsGetHeavyTails) {
  const uint32_t dof = calibrated_tail_dof(residuals(4, 4000, 3), {1.0, 1.0, 0.0, 0.0});
  EXPECT_GE(dof, 3u);
  EXPECT_LE(dof, 6u);
  // 3 degrees of freedom, the grid's heaviest (an odd dof: the CDF's arctangent form).
  const uint32_t heaviest = calibrated_tail_dof(residuals(3, 4000, 8), {1.0, 1.0, 0.0, 0.0});
  EXPECT_GE(heaviest, 3u);
  EXPECT_LE(heaviest, 4u);
}

TEST(PredictiveTail, GaussianRowsStayGaussianOrNearly) {
  // A t with 16 degrees of freedom is 3e-3 nats a row below a Gaussian on Gaussian rows (spread
  // about 0.03): six standard errors at 4 000 rows.
  const uint32_t dof = calibrated_tail_dof(residuals(0, 4000, 4), {1.0, 1.0, 0.0, 0.0});
  EXPECT_TRUE(dof == 0u || dof > 16u) << dof;
}

TEST(PredictiveTail, HeteroscedasticRowsAreNotFitted) {
  HeldOutResiduals rows = residuals(4, 100, 5);
  rows.aleatoric.assign(rows.size(), 1.0);
  EXPECT_EQ(calibrated_tail_dof(rows, {1.0, 1.0, 0.0, 0.0}), 0u);
}

TEST(PredictiveTail, MetricsFollowTheShape) {
  // Rows at 0.5 and 0.6 stds: inside a Gaussian's 50 % interval (0.674 stds) both, inside the
  // 4-dof t's (0.7407 sqrt(1/2) = 0.5237 stds) the first only.
  const std::vector<double> targets = {0.5, -0.6, 1.0, 0.6};
  const std::vector<double> mean = {0.0, 0.0, 0.0, 0.0};
  const std::vector<double> variance = {1.0, 1.0, 1.0, 1.0};
  EXPECT_EQ(regression_metrics(targets, mean, variance).coverage50, 0.75);
  const RegressionMetrics t = regression_metrics(targets, mean, variance, 4);
  EXPECT_EQ(t.coverage50, 0.25);
  double expected = 0.0;
  for (const double y : targets) expected += t_log_density(y, 1.0, 4) / 4.0;
  // Both in double from the same few logs: 1e-12 is a thousand times their rounding.
  EXPECT_NEAR(t.loglik, expected, 1e-12);
  EXPECT_THROW(regression_metrics(targets, mean, variance, 2), std::invalid_argument);
}

Dataset line_with_noise(uint32_t dof, size_t rows, uint64_t seed) {
  Random random(seed);
  Dataset data;
  data.inputs = 1;
  for (size_t i = 0; i < rows; ++i) {
    const double x = random.uniform() * 4.0 - 2.0;
    data.x.push_back(x);
    data.y.push_back(x + 0.3 * (dof == 0 ? random.normal() : unit_variance_t(random, dof)));
    ++data.rows;
  }
  return data;
}

TEST(PredictiveTail, TheBlobCarriesItThroughTheRuntime) {
  TrainOptions options;
  options.hidden = {8};
  options.epochs = 5;
  Model model = train(line_with_noise(0, 100, 6), options);
  model.tail_dof = 6;
  const std::vector<uint8_t> blob = write_blob(model);
  EXPECT_EQ(read_blob(blob).tail_dof, 6u);
  std::vector<uint32_t> aligned((blob.size() + 3) / 4);
  std::memcpy(aligned.data(), blob.data(), blob.size());
  pbp_model opened;
  ASSERT_EQ(pbp_open(&opened, aligned.data(), blob.size()), PBP_OK);
  EXPECT_EQ(opened.tail_dof, 6u);
  model.tail_dof = 0;  // none: no section
  EXPECT_EQ(write_blob(model).size() + 20, blob.size());
  model.tail_dof = 3;
  EXPECT_EQ(read_blob(write_blob(model)).tail_dof, 3u);
  model.tail_dof = 2;  // no finite variance
  EXPECT_THROW(write_blob(model), std::invalid_argument);
  model.tail_dof = 33;
  EXPECT_THROW(write_blob(model), std::invalid_argument);
}

TEST(PredictiveTail, TheRecipeFitsItOnHeldOutRows) {
  // 3 degrees of freedom, the grid's heaviest: 300 rows' fit takes a small one.
  const Dataset data = line_with_noise(3, 300, 7);
  TrainOptions options;
  options.threads = 1;
  RecipeChoice choice;
  SearchSpace space;
  space.networks = {{10}};
  space.epochs = {10, 20};
  space.distance_variance = false;
  const Model model = train_with_recipe(data, options, Recipe::automatic, space, &choice);
  EXPECT_EQ(model.tail_dof, choice.tail_dof);
  EXPECT_GE(model.tail_dof, 3u);
  EXPECT_LE(model.tail_dof, 12u);
  // The paper recipe stays Gaussian.
  EXPECT_EQ(train_with_recipe(data, options, Recipe::paper).tail_dof, 0u);
}

}  // namespace
}  // namespace pbp::trainer
