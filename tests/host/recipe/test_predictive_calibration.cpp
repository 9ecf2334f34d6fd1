// calibrate_predictive (noise_calibration.hpp): the epistemic scale and noise variance that fit
// held-out rows together.
#include <gtest/gtest.h>

#include <cmath>

#include "pbp/trainer/noise_calibration.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer {
namespace {

// Rows whose model reports epistemic variance v_i ~ U(0, 1) while the truth is scale v_i + noise.
HeldOutResiduals draws(uint64_t seed, size_t rows, double scale, double noise) {
  Random random(seed);
  HeldOutResiduals r;
  for (size_t i = 0; i < rows; ++i) {
    const double epistemic = random.uniform();
    const double error = std::sqrt(scale * epistemic + noise) * random.normal();
    r.squared_error.push_back(error * error);
    r.epistemic.push_back(epistemic);
  }
  return r;
}

TEST(PredictiveCalibration, RecoversAnUnderstatedEpistemicVariance) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const double scale = 2.0 * static_cast<double>(seed), noise = 0.5;
    const PredictiveCalibration fit = calibrate_predictive(draws(seed, 20000, scale, noise));
    // 20 000 rows: each parameter's relative standard error is a few percent (the two are
    // correlated); 15 % is beyond four of them.
    EXPECT_NEAR(fit.epistemic_scale, scale, 0.15 * scale) << "seed " << seed;
    EXPECT_NEAR(fit.noise_variance, noise, 0.15 * noise) << "seed " << seed;
    EXPECT_EQ(fit.epistemic_scale, static_cast<double>(static_cast<float>(fit.epistemic_scale)));
    EXPECT_DOUBLE_EQ(fit.loglik, held_out_loglik(draws(seed, 20000, scale, noise),
                                                 fit.noise_variance, fit.epistemic_scale));
  }
}

TEST(PredictiveCalibration, NoBetterPairOnADenseGrid) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const HeldOutResiduals r = draws(seed, 300, 0.5 * static_cast<double>(seed), 0.2);
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
