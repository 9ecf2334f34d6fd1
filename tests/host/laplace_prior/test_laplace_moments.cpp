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

// The joint tilted distribution over (w, phi): the double integral by brute force, the inner one
// numerically too, on a fine grid over phi (+-12 cavity sd, 601 nodes, trapezoidal).
Reference phi_reference_moments(double m, double v, const LaplaceScale& cavity, Reference& w) {
  const int nodes = 601;
  const long double sd = std::sqrt(static_cast<long double>(cavity.variance));
  const long double h = 24.0L * sd / (nodes - 1);
  std::vector<long double> log_weight(nodes), phi(nodes), mean(nodes), var(nodes);
  long double top = -INFINITY;
  for (int k = 0; k < nodes; ++k) {
    phi[k] = cavity.mean - 12.0L * sd + h * k;
    const long double b = std::sqrt(std::exp(phi[k]) / 2.0L);
    const Reference inner = laplace_reference(m, v, b, 100);
    const long double d = phi[k] - cavity.mean;
    log_weight[k] = inner.log_z - 0.5L * d * d / cavity.variance;
    mean[k] = inner.mean;
    var[k] = inner.variance;
    top = std::max(top, log_weight[k]);
  }
  long double total = 0, phi_sum = 0, w_sum = 0;
  for (int k = 0; k < nodes; ++k) {
    log_weight[k] = std::exp(log_weight[k] - top);
    total += log_weight[k];
    phi_sum += log_weight[k] * phi[k];
    w_sum += log_weight[k] * mean[k];
  }
  const long double phi_mean = phi_sum / total, w_mean = w_sum / total;
  long double phi_var = 0, w_var = 0;
  for (int k = 0; k < nodes; ++k) {
    const long double p = log_weight[k] / total;
    phi_var += p * (phi[k] - phi_mean) * (phi[k] - phi_mean);
    w_var += p * (var[k] + (mean[k] - w_mean) * (mean[k] - w_mean));
  }
  w = {top + std::log(total * h) - 0.5L * std::log(2.0L * M_PIl * cavity.variance), w_mean, w_var};
  return {w.log_z, phi_mean, phi_var};
}

TEST(LaplaceScaleTilted, MatchesTheDoubleIntegral) {
  struct Case {
    double m, v;
    LaplaceScale phi;
  };
  // Broad and narrow q(phi), cavities near zero (the data does not want the weight: phi moves
  // down) and far from it (phi moves up, for |m| / b ~ 20 a long way for a narrow cavity).
  for (const Case& c :
       {Case{0.0, 0.01, {0.0, 2.25}}, Case{0.05, 0.2, {0.2, 2.25}}, Case{1.5, 0.05, {0.0, 2.25}},
        Case{-2.0, 0.3, {-1.0, 0.5}}, Case{0.3, 1.0, {0.0, 0.01}}, Case{3.0, 0.01, {-2.0, 0.04}},
        Case{0.0, 4.0, {1.0, 1e-4}}, Case{-0.8, 1e-6, {0.5, 1.0}}}) {
    SCOPED_TRACE(testing::Message()
                 << "m " << c.m << " v " << c.v << " phi " << c.phi.mean << ", " << c.phi.variance);
    Reference w{};
    const Reference phi = phi_reference_moments(c.m, c.v, c.phi, w);
    const ScaleTiltedMoments t = laplace_scale_tilted(c.m, c.v, c.phi);
    ASSERT_TRUE(t.ok);
    // The reference's outer trapezoid and inner 100-panel rule: ~1e-10; 1e-8 relative.
    const double w_sd = std::sqrt(static_cast<double>(w.variance));
    const double phi_sd = std::sqrt(static_cast<double>(phi.variance));
    EXPECT_NEAR(t.w.log_z, static_cast<double>(w.log_z), 1e-8 * (1.0 + std::fabs(t.w.log_z)));
    EXPECT_NEAR(t.w.mean, static_cast<double>(w.mean), 1e-8 * w_sd);
    EXPECT_NEAR(t.w.variance, static_cast<double>(w.variance), 1e-8 * w.variance);
    EXPECT_NEAR(t.phi.mean, static_cast<double>(phi.mean), 1e-8 * phi_sd);
    EXPECT_NEAR(t.phi.variance, static_cast<double>(phi.variance), 1e-8 * phi.variance);
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
