// SPDX-License-Identifier: Apache-2.0
// noise_calibration.hpp: the noise variance (calibrated_noise_variance) and the epistemic scale
// with it (calibrate_predictive) that fit held-out rows.
#include <gtest/gtest.h>

#include <cmath>

#include "pbp/trainer/noise_calibration.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer {
namespace {

// Rows whose model reports epistemic variance v_i ~ U(0, largest) while the truth is
// true_scale v_i + noise.
HeldOutResiduals draws(uint64_t seed, size_t rows, double noise, double largest,
                       double true_scale = 1.0) {
  Random random(seed);
  HeldOutResiduals r;
  for (size_t i = 0; i < rows; ++i) {
    const double epistemic = largest * random.uniform();
    const double error = std::sqrt(true_scale * epistemic + noise) * random.normal();
    r.squared_error.push_back(error * error);
    r.epistemic.push_back(epistemic);
  }
  return r;
}

TEST(NoiseCalibration, WithoutEpistemicVarianceItIsTheMeanSquaredError) {
  HeldOutResiduals r = draws(1, 500, 0.3, 0.0);
  double mean = 0.0;
  for (double e : r.squared_error) mean += e / 500.0;
  // The bisection stops at 1e-10 in log10 of the noise: 2.3e-10 relative.
  EXPECT_NEAR(calibrated_noise_variance(r), mean, 1e-9 * mean);
}

TEST(NoiseCalibration, MaximisesTheHeldOutLikelihoodOverADenseGrid) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const HeldOutResiduals r = draws(seed, 200, 0.01 * static_cast<double>(seed), 0.5);
    const double best = calibrated_noise_variance(r);
    const double at_best = held_out_loglik(r, best);
    for (int k = 0; k <= 4000; ++k) {  // 1e-6 .. 1e2, a thousandth of a decade apart
      const double noise = std::pow(10.0, -6.0 + 0.002 * k);
      EXPECT_LE(held_out_loglik(r, noise), at_best + 1e-12)
          << "seed " << seed << " noise " << noise;
    }
  }
}

TEST(NoiseCalibration, RecoversTheNoiseBesideTheEpistemicVariance) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const double noise = 0.01 * static_cast<double>(seed);
    // 2 000 rows: the estimate's relative standard error is about sqrt(2 / 2000) ~ 3 %.
    EXPECT_NEAR(calibrated_noise_variance(draws(seed, 2000, noise, noise)), noise, 0.2 * noise);
  }
}

TEST(NoiseCalibration, AnExactFitGivesTheSmallestNoiseAndNothingIsRefused) {
  HeldOutResiduals r;
  r.squared_error = {0.0, 0.0, 0.0};
  r.epistemic = {0.1, 0.2, 0.3};
  EXPECT_DOUBLE_EQ(calibrated_noise_variance(r), 1e-10);
  r.squared_error = {1e6, 2e6, 3e6};  // far beyond the range: its largest value
  EXPECT_DOUBLE_EQ(calibrated_noise_variance(r), 1e4);
  EXPECT_THROW(calibrated_noise_variance(HeldOutResiduals{}), std::invalid_argument);
}

TEST(PredictiveCalibration, RecoversAnUnderstatedEpistemicVariance) {
  for (uint64_t seed : {1u, 3u}) {  // true scales 2 and 6
    const double scale = 2.0 * seed, noise = 0.5;
    const PredictiveCalibration fit = calibrate_predictive(draws(seed, 20000, noise, 1.0, scale));
    // 20 000 rows: each parameter's relative standard error is a few percent (the two are
    // correlated); 15 % is beyond four of them.
    EXPECT_NEAR(fit.epistemic_scale, scale, 0.15 * scale) << "seed " << seed;
    EXPECT_NEAR(fit.noise_variance, noise, 0.15 * noise) << "seed " << seed;
    EXPECT_EQ(fit.epistemic_scale, static_cast<double>(static_cast<float>(fit.epistemic_scale)));
    EXPECT_DOUBLE_EQ(fit.loglik, held_out_loglik(draws(seed, 20000, noise, 1.0, scale),
                                                 fit.noise_variance, fit.epistemic_scale));
  }
}

TEST(PredictiveCalibration, NoBetterPairOnADenseGrid) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const HeldOutResiduals r = draws(seed, 300, 0.2, 1.0, 0.5 * static_cast<double>(seed));
    const PredictiveCalibration fit = calibrate_predictive(r);
    for (int i = 0; i <= 300; ++i) {  // the search range, a hundredth of a decade apart
      const double scale = kMinEpistemicScale * std::pow(10.0, 0.01 * i);
      const double noise = calibrated_noise_variance(r, scale);
      // The golden section stops within 1e-4 decades of the profile's maximum and the float
      // rounding of the scale moves it by 6e-8 relative: the loss is second order in both.
      EXPECT_LE(held_out_loglik(r, noise, scale), fit.loglik + 1e-7)
          << "seed " << seed << " scale " << scale;
    }
  }
}

TEST(PredictiveCalibration, TheCoarseGridRanksAsTheFineOne) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const HeldOutResiduals r = draws(seed, 300, 0.2, 1.0, 0.5 * static_cast<double>(seed));
    const PredictiveCalibration fine = calibrate_predictive(r);
    const PredictiveCalibration coarse = calibrate_predictive(r, CalibrationGrid::coarse);
    // Its scale within 1e-2 decades of the profile's maximum (2.3 % relative), its noise within
    // 1e-6 decades of the best at that scale: the log-likelihood lost is second order, below
    // 1e-3 per row; never above the fine search's by more than the fine tolerance's 1e-7.
    EXPECT_LE(coarse.loglik, fine.loglik + 1e-7) << "seed " << seed;
    EXPECT_GE(coarse.loglik, fine.loglik - 1e-3) << "seed " << seed;
    EXPECT_DOUBLE_EQ(coarse.loglik,
                     held_out_loglik(r, coarse.noise_variance, coarse.epistemic_scale));
  }
}

TEST(PredictiveCalibration, StaysInsideItsRange) {
  // Errors far larger than the epistemic variance explains, all of it in the noise: the scale
  // still comes from the range, never beyond.
  HeldOutResiduals r;
  r.squared_error = {1.0, 4.0, 0.25, 2.0};
  r.epistemic = {0.0, 0.0, 0.0, 0.0};
  const PredictiveCalibration fit = calibrate_predictive(r);
  EXPECT_GE(fit.epistemic_scale, kMinEpistemicScale * (1 - 1e-7));
  EXPECT_LE(fit.epistemic_scale, kMaxEpistemicScale * (1 + 1e-7));
  EXPECT_NEAR(fit.noise_variance, (1.0 + 4.0 + 0.25 + 2.0) / 4.0, 1e-8);
  EXPECT_THROW(calibrate_predictive(HeldOutResiduals{}), std::invalid_argument);
}

}  // namespace
}  // namespace pbp::trainer
