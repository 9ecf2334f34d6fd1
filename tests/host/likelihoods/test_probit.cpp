// SPDX-License-Identifier: Apache-2.0
// The probit likelihood in its tails: finite, and log Z equal to the true log Phi.
#include <gtest/gtest.h>

#include <cmath>

#include "likelihoods/likelihoods.hpp"

namespace pbp::trainer {
namespace {

// log Phi(x) in long double (x87 64-bit or, on AArch64, binary128 113-bit mantissa; exponent to
// 1e-4951 in both): erfc does not underflow before x ~ -100, and log1p keeps the upper tail's
// tiny deficit.
double reference_log_phi(double x) {
  const long double t = static_cast<long double>(x) / std::sqrt(2.0L);
  if (x < 0.0) return static_cast<double>(std::log(0.5L * std::erfc(-t)));
  return static_cast<double>(std::log1p(-0.5L * std::erfc(t)));
}

TEST(Probit, TailsAreFiniteAndAccurate) {
  ProbitLikelihood likelihood;
  double worst = 0.0;
  for (double m = -60.0; m <= 60.0; m += 0.25) {
    for (double v : {0.0, 1e-300, 1e-12, 1e-3, 1.0, 50.0, 1e6, 1e300}) {
      for (double label : {0.0, 1.0}) {
        double d_mean, d_var;
        const double value = likelihood.log_z(&m, &v, label, &d_mean, &d_var);
        ASSERT_TRUE(std::isfinite(value) && std::isfinite(d_mean) && std::isfinite(d_var))
            << "m " << m << " v " << v << " label " << label;
        EXPECT_LE(value, 0.0);
        // The class's own x (its rounding is amplified ~x^2 in the upper tail's relative error).
        const double x = (label > 0.5 ? 1.0 : -1.0) * m * (1.0 / std::sqrt(1.0 + v));
        const double expected = reference_log_phi(x);
        // Relative where log Phi is not tiny; absolute to 1e-300 ~ where the upper tail is -0.
        const double error = std::abs(value - expected) / std::max(std::abs(expected), 1e-300);
        if (x < 37.0)
          worst = std::max(worst, error);
        else
          EXPECT_LE(std::abs(value - expected), 1e-300);
      }
    }
  }
  std::printf("probit log Z vs long double log Phi: worst relative %.3g\n", worst);
  EXPECT_LE(worst, 1e-13);
}

TEST(Probit, FarTailsStayFinite) {
  ProbitLikelihood likelihood;
  for (double m : {-1e5, -1e4, 1e4, 1e5}) {
    for (double v : {0.0, 1e-12, 1.0}) {
      double d_mean, d_var;
      const double value = likelihood.log_z(&m, &v, 1.0, &d_mean, &d_var);
      EXPECT_TRUE(std::isfinite(value) && std::isfinite(d_mean) && std::isfinite(d_var)) << m;
      if (m < 0.0) {
        EXPECT_NEAR(d_mean, -m / (1.0 + v), 1e-3 * std::abs(m));  // phi/Phi ~ -x
      }
    }
  }
}

TEST(Probit, LabelZeroIsTheNegativeClass) {
  ProbitLikelihood likelihood;
  const double m = 0.7, v = 0.3;
  double g1, g2, h1, h2;
  const double positive = likelihood.log_z(&m, &v, 1.0, &g1, &h1);
  const double negative = likelihood.log_z(&m, &v, 0.0, &g2, &h2);
  EXPECT_NEAR(std::exp(positive) + std::exp(negative), 1.0, 1e-15);
  EXPECT_GT(g1, 0.0);
  EXPECT_LT(g2, 0.0);
}

}  // namespace
}  // namespace pbp::trainer
