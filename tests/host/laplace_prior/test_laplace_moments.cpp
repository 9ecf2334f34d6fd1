// SPDX-License-Identifier: Apache-2.0
// The closed-form tilted moments of a Gaussian cavity times a Laplace density, and the joint
// tilted moments over the common scale phi, against numerical integration (numerical_tilted.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "numerical_tilted.hpp"
#include "pbp/trainer/laplace_prior.hpp"

namespace pbp::trainer {
namespace {

using laplace_test::laplace_reference;
using laplace_test::Reference;

// Tolerances: the closed forms are a few roundings deep (each ~1e-16 relative), the reference is
// long double quadrature of a piecewise-smooth integrand; 1e-9 leaves room for both, and is far
// below any error a wrong formula or a cancelling difference would make.
constexpr double kTolerance = 1e-9;

void expect_matches(double m, double v, double b) {
  const TiltedMoments t = laplace_tilted(m, v, b);
  const Reference r = laplace_reference(m, v, b);
  const double sd = std::sqrt(static_cast<double>(r.variance));
  SCOPED_TRACE(testing::Message() << "m " << m << " v " << v << " b " << b);
  EXPECT_NEAR(t.log_z, static_cast<double>(r.log_z), kTolerance * (1.0 + std::fabs(t.log_z)));
  EXPECT_NEAR(t.mean, static_cast<double>(r.mean), kTolerance * sd);
  EXPECT_NEAR(t.variance, static_cast<double>(r.variance),
              kTolerance * static_cast<double>(r.variance));
}

TEST(LaplaceTilted, MatchesNumericalIntegrationOverCavitiesAndScales) {
  for (const double b : {0.01, 0.3, 1.0, 100.0}) {
    for (const double v : {1e-12, 1e-4, 0.09, 1.0, 1e4, 1e8}) {
      for (const double u : {0.0, 0.3, -1.0, 2.5, -7.0, 30.0, -1e3}) {
        expect_matches(u * std::sqrt(v), v, b);
      }
    }
  }
}

// The deep tail (sqrt(v)/b large: both half lines are truncated far in the tail) is where
// 1 - lambda (alpha + lambda) cancels; around the switch to the continued fraction (alpha = -8)
// both branches must agree with the reference.
TEST(LaplaceTilted, ContinuedFractionBranchAgreesAroundTheSwitch) {
  for (const double r : {7.5, 7.999, 8.0, 8.001, 9.0, 20.0, 1e3, 1e6}) {
    expect_matches(0.0, r * r, 1.0);
    expect_matches(0.5 * r, r * r, 1.0);  // alpha_+ = -r/2 and alpha_- = -3r/2
  }
}

// Limits the moments must reach: a Gaussian unaffected by a very wide Laplace, the Laplace itself
// under a very wide Gaussian (mean 0, variance 2 b^2), and a far cavity shifted by v / b.
TEST(LaplaceTilted, ReachesItsLimits) {
  const TiltedMoments narrow = laplace_tilted(0.7, 1e-10, 1e6);
  EXPECT_NEAR(narrow.mean, 0.7, 1e-12);
  EXPECT_NEAR(narrow.variance, 1e-10, 1e-10 * 1e-9);
  const TiltedMoments wide = laplace_tilted(0.0, 1e16, 0.5);
  EXPECT_NEAR(wide.mean, 0.0, 1e-12);
  EXPECT_NEAR(wide.variance, 0.5, 0.5 * 1e-12);
  const TiltedMoments far = laplace_tilted(50.0, 1.0, 2.0);  // mass on w > 0 only
  EXPECT_NEAR(far.mean, 50.0 - 0.5, 1e-12);
  EXPECT_NEAR(far.variance, 1.0, 1e-12);
  EXPECT_NEAR(laplace_tilted(-50.0, 1.0, 2.0).mean, -49.5, 1e-12);
}

// Z's derivatives give the moments (mean = m + v dlogZ/dm, variance = v - v^2 (dlogZ/dm)^2 +
// 2 v^2 dlogZ/dv): central differences of the closed-form log Z agree with the closed-form
// moments. Step h relative to the scale of m and v; the differences' error ~ h^2 + eps/h, so the
// tolerance 1e-6 is far above it (h = 1e-4: 1e-8 + 1e-12) and far below a wrong formula.
TEST(LaplaceTilted, MomentsAreTheDerivativesOfLogZ) {
  for (const double b : {0.2, 1.0, 5.0}) {
    for (const double v : {0.01, 0.5, 4.0}) {
      for (const double m : {-1.5, -0.1, 0.0, 0.4, 3.0}) {
        const double s = std::sqrt(v);
        const double hm = 1e-4 * s, hv = 1e-4 * v;
        const double dm =
            (laplace_tilted(m + hm, v, b).log_z - laplace_tilted(m - hm, v, b).log_z) / (2.0 * hm);
        const double dv =
            (laplace_tilted(m, v + hv, b).log_z - laplace_tilted(m, v - hv, b).log_z) / (2.0 * hv);
        const TiltedMoments t = laplace_tilted(m, v, b);
        SCOPED_TRACE(testing::Message() << "m " << m << " v " << v << " b " << b);
        EXPECT_NEAR(t.mean, m + v * dm, 1e-6 * s);
        EXPECT_NEAR(t.variance, v - v * v * (dm * dm - 2.0 * dv), 1e-6 * v);
      }
    }
  }
}

// A cavity in phi that the weight contradicts beyond what three passes can follow is refused,
// not answered from the grid's end.
TEST(LaplaceScaleTilted, RefusesWhatItsGridCannotHold) {
  const ScaleTiltedMoments far = laplace_scale_tilted(1e4, 1e-8, {-20.0, 1e-6});
  EXPECT_FALSE(far.ok);
  EXPECT_TRUE(laplace_scale_tilted(1.0, 0.1, {0.0, 1.0}).ok);
}

}  // namespace
}  // namespace pbp::trainer
