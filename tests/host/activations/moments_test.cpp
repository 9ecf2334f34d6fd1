// SPDX-License-Identifier: Apache-2.0
// The erf and sign moments (runtime/core/pbp/activation_*.hpp) against Monte Carlo, their
// deterministic and non-finite cases, and float (the runtime's) against double (the trainer's).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "pbp/activation_erf.hpp"
#include "pbp/activation_sign.hpp"
#include "pbp/trainer/random.hpp"

namespace {

struct Case {
  double m, v;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> list = {
      {0.0, 1.0}, {0.5, 0.2},  {-1.3, 0.7}, {2.0, 3.0},   {-0.2, 0.01},
      {3.5, 0.5}, {-4.0, 8.0}, {1.0, 25.0}, {0.05, 1e-3}, {-2.5, 0.05},
  };
  return list;
}

struct Sampled {
  double mean, variance, mean_se, variance_se;
};

// Sample mean and variance of g(a), a ~ N(m, v), and their standard errors: sd / sqrt(n) for the
// mean, the sd of (g - mean)^2 / sqrt(n) for the variance.
template <class G>
Sampled sample(double m, double v, G g, uint64_t seed) {
  constexpr int kDraws = 400000;
  pbp::trainer::Random random(seed);
  std::vector<double> z(kDraws);
  double sum = 0;
  for (double& value : z) {
    value = g(m + std::sqrt(v) * random.normal());
    sum += value;
  }
  const double mean = sum / kDraws;
  double s2 = 0, s4 = 0;
  for (const double value : z) {
    const double d2 = (value - mean) * (value - mean);
    s2 += d2;
    s4 += d2 * d2;
  }
  const double variance = s2 / (kDraws - 1);
  const double fourth = s4 / kDraws;
  return {mean, variance, std::sqrt(variance / kDraws),
          std::sqrt(std::max(fourth - variance * variance, 0.0) / kDraws)};
}

// Within 5 standard errors (a fixed seed: the test is deterministic, and 5 SE leaves a
// ~6e-7 chance per check that a correct formula fails for an unlucky seed).
void expect_close(const char* what, const Case& c, double mean, double variance, const Sampled& s) {
  EXPECT_NEAR(mean, s.mean, 5 * s.mean_se + 1e-12) << what << " m " << c.m << " v " << c.v;
  EXPECT_NEAR(variance, s.variance, 5 * s.variance_se + 1e-12)
      << what << " m " << c.m << " v " << c.v;
}

TEST(ActivationMoments, ErfMatchesMonteCarlo) {
  uint64_t seed = 1;
  for (const Case& c : cases()) {
    const pbp::ErfMoments<double> r = pbp::erf_moments(c.m, c.v);
    const Sampled s = sample(
        c.m, c.v, [](double a) { return std::erf(a / std::sqrt(2.0)); }, seed++);
    expect_close("erf", c, r.mean, r.variance, s);
  }
}

TEST(ActivationMoments, SignMatchesMonteCarlo) {
  uint64_t seed = 100;
  for (const Case& c : cases()) {
    const pbp::SignMoments<double> r = pbp::sign_moments(c.m, c.v);
    const Sampled s = sample(
        c.m, c.v, [](double a) { return a > 0 ? 1.0 : -1.0; }, seed++);
    expect_close("sign", c, r.mean, r.variance, s);
  }
}

TEST(ActivationMoments, ZeroVarianceIsTheDeterministicUnit) {
  for (const double m : {-2.0, -0.5, 0.0, 0.3, 4.0}) {
    const pbp::ErfMoments<double> e = pbp::erf_moments(m, 0.0);
    EXPECT_NEAR(e.mean, std::erf(m / std::sqrt(2.0)), 1e-15) << m;
    EXPECT_EQ(e.variance, 0.0) << m;
    const pbp::SignMoments<double> s = pbp::sign_moments(m, 0.0);
    EXPECT_EQ(s.mean, m > 0 ? 1.0 : m < 0 ? -1.0 : 0.0) << m;  // sign(0) = 0
    EXPECT_EQ(s.variance, 0.0) << m;
  }
  // Small v: the erf variance tends to (2 phi(m))^2 v, its first-order term, without
  // cancellation (the width 1 - c is computed exactly enough).
  for (const float v : {1e-6f, 1e-4f}) {
    const double slope = 2 * std::exp(-0.5) / std::sqrt(2 * M_PI);  // at m = 1
    EXPECT_NEAR(pbp::erf_moments(1.0f, v).variance / (slope * slope * v), 1.0, 3 * v + 1e-5) << v;
  }
}

TEST(ActivationMoments, NonFiniteInputsGiveNonFiniteMoments) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const auto& [m, v] :
       {std::pair{nan, 1.0f}, {1.0f, nan}, {inf, 1.0f}, {-inf, 1.0f}, {0.5f, inf}, {inf, inf}}) {
    const pbp::ErfMoments<float> e = pbp::erf_moments(m, v);
    EXPECT_TRUE(std::isnan(e.mean) && std::isnan(e.variance)) << m << " " << v;
    const pbp::SignMoments<float> s = pbp::sign_moments(m, v);
    EXPECT_TRUE(std::isnan(s.mean) && std::isnan(s.variance)) << m << " " << v;
  }
}

// Float against double on a grid. Error sources in float (u = 2^-24): h = m / sqrt(1 + v) and
// alpha = m / sqrt(v) within 3u relative; Phi and Phi(-x) within ~3 ulp each, and the mean's
// sensitivity to its argument at most 2 max(x phi(x)) = 0.48: the mean within 16u absolute. The
// erf variance: its 16 terms carry their exp argument's error, (4 + 12 h^2) u, plus 16u for the
// sum and 8u for the width: (28 + 12 h^2) u relative, taken x2. The sign variance 4 Phi Phi(-x):
// each factor's relative error, ~3 ulp plus alpha's 3u relative times |x| phi(x) / Phi(+-x) <=
// |x| (|x| + 1), so (12 + 4 alpha^2) u relative, taken x2.
TEST(ActivationMoments, FloatAgreesWithDouble) {
  const double u = 0x1p-24;
  double worst_erf = 0, worst_sign = 0;
  for (double m = -6; m <= 6; m += 0.37) {
    for (const double v : {1e-4, 0.01, 0.1, 0.5, 1.0, 2.0, 10.0, 100.0}) {
      const float mf = static_cast<float>(m), vf = static_cast<float>(v);
      const pbp::ErfMoments<double> ed = pbp::erf_moments<double>(mf, vf);
      const pbp::ErfMoments<float> ef = pbp::erf_moments(mf, vf);
      EXPECT_NEAR(ef.mean, ed.mean, 16 * u) << m << " " << v;
      const double erf_bound = 2 * (28 + 12 * ed.h * ed.h) * u;
      const double erf_error = std::fabs(ef.variance - ed.variance) / ed.variance;
      EXPECT_LE(erf_error, erf_bound) << m << " " << v;
      worst_erf = std::max(worst_erf, erf_error / erf_bound);
      const pbp::SignMoments<double> sd = pbp::sign_moments<double>(mf, vf);
      const pbp::SignMoments<float> sf = pbp::sign_moments(mf, vf);
      EXPECT_NEAR(sf.mean, sd.mean, 16 * u) << m << " " << v;
      if (sd.variance > 1e-30) {  // float's normal range
        const double sign_bound = 2 * (12 + 4 * sd.alpha * sd.alpha) * u;
        const double sign_error = std::fabs(sf.variance - sd.variance) / sd.variance;
        EXPECT_LE(sign_error, sign_bound) << m << " " << v;
        worst_sign = std::max(worst_sign, sign_error / sign_bound);
      }
    }
  }
  std::printf("float vs double: erf variance %.2f, sign variance %.2f of their bounds\n", worst_erf,
              worst_sign);
}

}  // namespace
