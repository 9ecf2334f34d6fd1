// calibrated_noise_variance (noise_calibration.hpp): the noise variance that fits held-out rows.
#include <gtest/gtest.h>

#include <cmath>

#include "pbp/trainer/noise_calibration.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer {
namespace {

HeldOutResiduals draws(uint64_t seed, size_t rows, double noise, double epistemic_scale) {
  Random random(seed);
  HeldOutResiduals r;
  for (size_t i = 0; i < rows; ++i) {
    const double epistemic = epistemic_scale * random.uniform();
    const double error = std::sqrt(epistemic + noise) * random.normal();
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

}  // namespace
}  // namespace pbp::trainer
