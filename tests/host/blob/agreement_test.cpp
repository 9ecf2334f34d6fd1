// SPDX-License-Identifier: Apache-2.0
// The runtime (float32, blob) agrees with the trainer's double-precision predict on 1000 random
// rows per model, for 1, 2 and 4 hidden layers, and for erf and sign hidden units.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "pbp/pbp.hpp"
#include "pbp/trainer/blob.hpp"
#include "random_models.hpp"

namespace {

constexpr double kTolerance = 1e-5;

struct Agreement {
  double mean = 0.0;
  double std = 0.0;
};

Agreement max_relative_error(const pbp::trainer::Model& model, uint64_t seed) {
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(model);
  pbp::Model runtime;
  EXPECT_EQ(runtime.open(blob.data(), blob.size()), PBP_OK);
  std::vector<uint8_t> workspace_bytes(runtime.workspace_bytes());
  std::mt19937_64 rng(seed);
  Agreement worst;
  for (int row = 0; row < 1000; ++row) {
    const std::vector<double> x = pbp::test_fixtures::random_row(model, rng);
    const std::vector<float> xf(x.begin(), x.end());
    pbp::Prediction p;
    EXPECT_EQ(runtime.predict(xf.data(), static_cast<uint32_t>(xf.size()), 0.9f,
                              workspace_bytes.data(), workspace_bytes.size(), &p),
              PBP_OK);
    const pbp::trainer::Prediction reference = pbp::trainer::predict(model, x);
    const double reference_std = std::sqrt(reference.variance());
    worst.mean =
        std::max(worst.mean, std::fabs(p.mean - reference.mean) / std::fabs(reference.mean));
    worst.std = std::max(worst.std, std::fabs(p.std - reference_std) / reference_std);
    // The interval is mean +- z std with z = Phi^-1(0.95).
    EXPECT_NEAR(p.upper - p.mean, 1.6448536269514722 * p.std, 1e-5 * p.std);
  }
  return worst;
}

void expect_agreement(const std::vector<uint32_t>& hidden, uint64_t seed,
                      pbp::trainer::Activation activation = pbp::trainer::Activation::relu) {
  const pbp::trainer::Model model = pbp::test_fixtures::random_model(8, hidden, seed, activation);
  const Agreement worst = max_relative_error(model, seed + 100);
  std::printf("max relative error: mean %.3g, std %.3g\n", worst.mean, worst.std);
  testing::Test::RecordProperty("max_relative_error_mean", std::to_string(worst.mean));
  testing::Test::RecordProperty("max_relative_error_std", std::to_string(worst.std));
  EXPECT_LT(worst.mean, kTolerance);
  EXPECT_LT(worst.std, kTolerance);
}

TEST(RuntimeAgreement, OneHiddenLayer) {
  expect_agreement({50}, 11);
}
TEST(RuntimeAgreement, TwoHiddenLayers) {
  expect_agreement({50, 50}, 12);
}
TEST(RuntimeAgreement, FourHiddenLayers) {
  expect_agreement({20, 20, 20, 20}, 13);
}
TEST(RuntimeAgreement, ErfHiddenLayers) {
  expect_agreement({50, 50}, 14, pbp::trainer::Activation::erf);
}
TEST(RuntimeAgreement, SignHiddenLayers) {
  expect_agreement({50, 50}, 15, pbp::trainer::Activation::sign);
}

}  // namespace
