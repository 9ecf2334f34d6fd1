// SPDX-License-Identifier: Apache-2.0
// The own log Gamma and digamma against the standard library, known values and each other.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "pbp/trainer/special_functions.hpp"

namespace pbp::trainer {
namespace {

constexpr double kEulerGamma = 0.57721566490153286061;

TEST(SpecialFunctions, LogGammaMatchesStd) {
  double worst = 0.0;
  for (double lx = -10.0; lx <= 6.0; lx += 0.001) {  // x from 1e-10 to 1e6, log-spaced
    const double x = std::pow(10.0, lx);
    const double expected = std::lgamma(x);
    const double error = std::abs(log_gamma(x) - expected) / std::max(1.0, std::abs(expected));
    worst = std::max(worst, error);
  }
  for (double x = 0.5; x <= 3.0; x += 0.0005) {  // around the zeros at 1 and 2
    worst = std::max(worst, std::abs(log_gamma(x) - std::lgamma(x)));
  }
  std::printf("log_gamma: worst error vs std::lgamma %.3g (relative, absolute below 1)\n", worst);
  EXPECT_LE(worst, 1e-14);
  EXPECT_NEAR(log_gamma(1.0), 0.0, 4e-15);  // absolute: the zeros of log Gamma
  EXPECT_NEAR(log_gamma(2.0), 0.0, 4e-15);
  EXPECT_TRUE(std::isnan(log_gamma(0.0)));
  EXPECT_TRUE(std::isnan(log_gamma(-1.5)));
}

TEST(SpecialFunctions, DigammaKnownValuesAndRecurrence) {
  EXPECT_NEAR(digamma(1.0), -kEulerGamma, 1e-15);
  EXPECT_NEAR(digamma(0.5), -kEulerGamma - 2.0 * std::numbers::ln2, 2e-15);
  double harmonic = 0.0;
  for (int n = 1; n < 40; ++n) {
    harmonic += 1.0 / n;  // digamma(n + 1) = H_n - gamma
    EXPECT_NEAR(digamma(n + 1.0), harmonic - kEulerGamma, 1e-14 * std::max(1.0, harmonic));
  }
  double worst = 0.0;
  for (double lx = -8.0; lx <= 8.0; lx += 0.01) {
    const double x = std::pow(10.0, lx);
    const double step = digamma(x + 1.0) - digamma(x);  // = 1/x
    worst = std::max(worst, std::abs(step - 1.0 / x) / std::max(1.0 / x, std::abs(digamma(x))));
  }
  std::printf("digamma: worst recurrence error %.3g\n", worst);
  EXPECT_LE(worst, 1e-14);
  EXPECT_TRUE(std::isnan(digamma(0.0)));
}

// digamma is the derivative of log_gamma: fourth-order central differences of our own lgamma.
TEST(SpecialFunctions, DigammaIsTheDerivativeOfLogGamma) {
  double worst = 0.0;
  for (double lx = -3.0; lx <= 6.0; lx += 0.01) {
    const double x = std::pow(10.0, lx);
    const double h = 1e-3 * x;
    const double fd = (8.0 * (log_gamma(x + h) - log_gamma(x - h)) -
                       (log_gamma(x + 2 * h) - log_gamma(x - 2 * h))) /
                      (12.0 * h);
    // Differences of log Gamma resolve ~1e-15 |lgamma| / h absolutely.
    const double floor = 1e-12 * std::max(1.0, std::abs(log_gamma(x))) / h;
    const double d = digamma(x);
    worst = std::max(worst, std::abs(fd - d) / std::max({std::abs(d), floor, 1e-300}));
  }
  std::printf("digamma vs d log_gamma: worst %.3g\n", worst);
  EXPECT_LE(worst, 1e-7);
}

}  // namespace
}  // namespace pbp::trainer
