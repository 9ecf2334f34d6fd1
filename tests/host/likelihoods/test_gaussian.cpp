// SPDX-License-Identifier: Apache-2.0
// The regression likelihood reproduces the ADF loop's own operations bit for bit, and
// make_likelihood builds the class each task asks for.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "likelihoods/likelihoods.hpp"
#include "pbp/trainer/moment_matching.hpp"

namespace pbp::trainer {
namespace {

TEST(GaussianLikelihood, ReproducesGaussianLogZAndTheGammaUpdate) {
  Gamma noise{6.0, 6.0};
  Gamma reference = noise;
  GaussianLikelihood likelihood(noise);
  Random random(4);
  for (int i = 0; i < 1000; ++i) {
    const double m = 2.0 * random.normal(), v = 0.01 + random.uniform(), y = random.normal();
    double d_mean, d_var;
    const double value = likelihood.log_z(&m, &v, y, &d_mean, &d_var);
    // What adf_update_loaded did before the likelihood units existed.
    const GaussianLogZ lz = gaussian_log_z(y, m, v + reference.variance_estimate());
    EXPECT_EQ(value, lz.value);
    EXPECT_EQ(d_mean, lz.d_mean);
    EXPECT_EQ(d_var, lz.d_variance);
    likelihood.after_update(&m, &v, y);
    const std::optional<Gamma> next = gaussian_gamma_update(reference, y, m, v);
    if (next) reference = *next;
    EXPECT_EQ(likelihood.noise_rejected(), !next);
    ASSERT_EQ(noise.a, reference.a);
    ASSERT_EQ(noise.b, reference.b);
  }
}

TEST(GaussianLikelihood, KeepsTheGammaWhenTheMatchIsImproper) {
  Gamma noise{1.5, 1e-300};  // b/(a-1) ~ 0: the matched Gamma degenerates
  GaussianLikelihood likelihood(noise);
  const double m = 0.0, v = 1e-300, y = 1e3;
  likelihood.after_update(&m, &v, y);
  if (likelihood.noise_rejected()) {
    EXPECT_EQ(noise.a, 1.5);
    EXPECT_EQ(noise.b, 1e-300);
  }
  EXPECT_GT(noise.a, 0.0);
  EXPECT_GT(noise.b, 0.0);
}

TEST(MakeLikelihood, BuildsTheTasksLikelihood) {
  Gamma noise;
  TrainOptions options;
  options.task = Task::regression;
  EXPECT_NE(dynamic_cast<GaussianLikelihood*>(make_likelihood(options, 0, &noise, 1).get()),
            nullptr);
  EXPECT_THROW(make_likelihood(options, 0, nullptr, 1), std::invalid_argument);
  options.task = Task::binary;
  EXPECT_NE(dynamic_cast<ProbitLikelihood*>(make_likelihood(options, 2, nullptr, 1).get()),
            nullptr);
  options.task = Task::count;
  EXPECT_NE(
      dynamic_cast<NegativeBinomialLikelihood*>(make_likelihood(options, 0, nullptr, 1).get()),
      nullptr);
  options.task = Task::multiclass;
  auto mean_field = make_likelihood(options, 4, nullptr, 1);  // the default
  EXPECT_NE(dynamic_cast<SoftmaxMeanFieldLikelihood*>(mean_field.get()), nullptr);
  EXPECT_EQ(mean_field->outputs(), 4u);
  options.softmax = SoftmaxApproximation::log_bound;
  auto bound = make_likelihood(options, 3, nullptr, 1);
  EXPECT_NE(dynamic_cast<SoftmaxLogBoundLikelihood*>(bound.get()), nullptr);
  EXPECT_EQ(bound->outputs(), 3u);
  options.softmax = SoftmaxApproximation::sampled;
  options.samples = 12;
  auto sampled = make_likelihood(options, 5, nullptr, 1);
  auto* concrete = dynamic_cast<SoftmaxSampledLikelihood*>(sampled.get());
  ASSERT_NE(concrete, nullptr);
  EXPECT_EQ(concrete->outputs(), 5u);
  EXPECT_EQ(concrete->sample_count(), 12u);
  EXPECT_THROW(make_likelihood(options, 1, nullptr, 1), std::invalid_argument);
}

}  // namespace
}  // namespace pbp::trainer

namespace pbp::trainer {
namespace {

// Z1/Z and rho - 1 = Z2 Z / Z1^2 - 1 in closed form agree with the log evidences computed in
// long double (eq. 12's Gaussian at the noise variances b/(a-1), b/a, b/(a+1)). Long double's
// 2^-64 over log Z = O(1), cancelled down to log rho = O(1/a^2) (a <= 50 here), stays below
// 1e-15 relative; the closed forms carry a few double roundings of each of the two terms of
// log rho, so rho - 1 is held to 1e-13 of the larger term (|log1p term| ~ 1/a^2), Z1/Z to 1e-13.
TEST(GaussianLikelihood, EvidenceRatiosMatchTheLogEvidences) {
  Random random(7);
  for (int i = 0; i < 2000; ++i) {
    const double m = 3.0 * random.normal(), v = 1e-3 + random.uniform(), y = 3.0 * random.normal();
    const double a = 1.5 + 48.0 * random.uniform(), b = 0.05 + 5.0 * random.uniform();
    auto log_n = [&](long double s) {
      const long double r = static_cast<long double>(y) - m;
      return -0.5L * (std::log(2.0L * 3.14159265358979323846264338327950288L * s) + r * r / s);
    };
    const long double vl = v, bl = b;
    const long double l0 = log_n(vl + bl / (a - 1.0L));
    const long double l1 = log_n(vl + bl / a);
    const long double l2 = log_n(vl + bl / (a + 1.0L));
    const learn::EvidenceRatios<double> z = learn::gaussian_evidence_ratios(y, m, v, a, b);
    const double want01 = static_cast<double>(std::exp(l1 - l0));
    const double want_rho = static_cast<double>(std::expm1(l2 + l0 - 2.0L * l1));
    EXPECT_NEAR(z.z1_over_z, want01, 1e-13 * want01) << m << " " << v << " " << y << " " << a;
    const double scale = std::max(std::abs(want_rho), 1.0 / (a * a));
    EXPECT_NEAR(z.rho_minus_one, want_rho, 1e-13 * scale) << m << " " << v << " " << y << " " << a;
  }
}

}  // namespace
}  // namespace pbp::trainer
