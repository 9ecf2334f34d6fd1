// SPDX-License-Identifier: Apache-2.0
// The joint tilted moments over (w, phi) against a brute-force double integral in long double:
// label `sweep` (binary128 in software on AArch64, minutes under qemu).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "numerical_tilted.hpp"
#include "pbp/trainer/laplace_prior.hpp"

namespace pbp::trainer {
namespace {

using laplace_test::laplace_reference;
using laplace_test::Reference;

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

}  // namespace
}  // namespace pbp::trainer
