// SPDX-License-Identifier: Apache-2.0
// The heteroscedastic likelihood (trainer/src/likelihood_heteroscedastic.cpp): its log Z against a
// brute-force 2-D quadrature of the double integral over (f, g), and its four derivatives against
// finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "gradient_check.hpp"
#include "pbp/trainer/likelihood.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer {
namespace {

std::unique_ptr<Likelihood> heteroscedastic() {
  TrainOptions options;
  options.likelihood = LikelihoodKind::heteroscedastic;
  return make_likelihood(options, 0, nullptr, 1);
}

double normal_density(double x, double mean, double variance) {
  const double r = x - mean;
  return std::exp(-0.5 * r * r / variance) / std::sqrt(2.0 * std::numbers::pi * variance);
}

// log of the double integral of N(y | f, e^g) N(f | m_f, v_f) N(g | m_g, v_g), by the trapezoid
// rule on +-10 standard deviations of f and g (n x n points); the integrand is smooth and decays
// like a Gaussian, so the rule converges geometrically once the steps resolve it.
double brute_force_log_z(double m_f, double v_f, double m_g, double v_g, double y, int n) {
  const double sd_f = std::sqrt(v_f), sd_g = std::sqrt(v_g);
  const double step_f = 20.0 * sd_f / (n - 1), step_g = 20.0 * sd_g / (n - 1);
  double sum = 0.0;
  for (int j = 0; j < n; ++j) {
    const double g = m_g - 10.0 * sd_g + j * step_g;
    const double noise = std::exp(g);
    double inner = 0.0;
    for (int i = 0; i < n; ++i) {
      const double f = m_f - 10.0 * sd_f + i * step_f;
      inner += normal_density(y, f, noise) * normal_density(f, m_f, v_f);
    }
    sum += inner * step_f * normal_density(g, m_g, v_g);
  }
  return std::log(sum * step_g);
}

TEST(HeteroscedasticLikelihood, HasTwoOutputsAndItsTask) {
  EXPECT_EQ(heteroscedastic()->outputs(), 2u);
  TrainOptions options;
  options.task = Task::count;
  options.likelihood = LikelihoodKind::heteroscedastic;
  EXPECT_THROW(make_likelihood(options, 0, nullptr, 1), std::invalid_argument);
}

// The 32-node Gauss-Hermite rule in g against the 2-D trapezoid rule (801 x 801 points; the f
// step is at most 0.025 standard deviations of the narrowest N(y | f, e^g) that carries weight,
// e^g >= e^-4 at 4 sd of g). Within 3 predictive sd of the mean both rules agree to 1e-7; for
// points further out the Gauss-Hermite rule's nodes thin where the noise posterior sits (its
// outlier error is stated in likelihood_heteroscedastic.cpp): 1e-5 up to the 8 sd here.
TEST(HeteroscedasticLikelihood, LogZMatchesABruteForceDoubleIntegral) {
  auto likelihood = heteroscedastic();
  for (double m_f : {-0.5, 0.3}) {
    for (double v_f : {0.01, 0.5}) {
      for (double m_g : {-2.0, 0.0, 1.0}) {
        for (double v_g : {0.01, 0.2, 0.5}) {
          for (double y : {-1.0, 0.4, 3.0}) {
            const double mean[2] = {m_f, m_g}, var[2] = {v_f, v_g};
            double d_mean[2], d_var[2];
            const double value = likelihood->log_z(mean, var, y, d_mean, d_var);
            const double want = brute_force_log_z(m_f, v_f, m_g, v_g, y, 801);
            const double predictive_sd = std::sqrt(v_f + std::exp(m_g + 0.5 * v_g));
            const bool near = std::abs(y - m_f) <= 3.0 * predictive_sd;
            EXPECT_NEAR(value, want, near ? 1e-7 : 1e-5)
                << m_f << " " << v_f << " " << m_g << " " << v_g << " " << y;
          }
        }
      }
    }
  }
}

TEST(HeteroscedasticLikelihood, GradientsMatchFiniteDifferences) {
  auto likelihood = heteroscedastic();
  testing::GradientSummary summary;
  for (double m_f : {-3.0, 0.0, 0.7}) {
    for (double v_f : {1e-6, 0.05, 2.0}) {
      for (double m_g : {-6.0, -1.0, 0.0, 2.0}) {
        for (double v_g : {1e-6, 0.1, 1.5}) {
          for (double y : {-2.0, 0.1, 4.0}) {
            testing::check_gradients(*likelihood, {m_f, m_g}, {v_f, v_g}, y, {0.0, false}, summary);
          }
        }
      }
    }
  }
  testing::print_summary("heteroscedastic", summary);
  EXPECT_LE(summary.worst_relative, 1e-6);
}

// Far tails stay finite: no NaN, no infinity in the value or the derivatives.
TEST(HeteroscedasticLikelihood, FiniteInTheTails) {
  auto likelihood = heteroscedastic();
  for (double m_g : {-700.0, -40.0, 40.0, 700.0}) {
    for (double y : {-1e4, 0.0, 1e4}) {
      const double mean[2] = {0.0, m_g}, var[2] = {0.0, 1e-30};
      double d_mean[2], d_var[2];
      const double value = likelihood->log_z(mean, var, y, d_mean, d_var);
      EXPECT_TRUE(std::isfinite(value)) << m_g << " " << y;
      for (int i = 0; i < 2; ++i) {
        EXPECT_TRUE(std::isfinite(d_mean[i]) && std::isfinite(d_var[i])) << m_g << " " << y;
      }
    }
  }
}

// A toy with input-dependent noise: y = sin x + sd(x) eps, sd rising from 0.1 at x = -3 to 0.5 at
// x = 3 (a 25-fold variance). The learnt aleatoric variance follows the true one: within a factor
// 2 at every probe (each probe's neighbourhood holds ~100 of the 1 200 rows: a sample variance
// there is good to ~15 %, the rest is the network's smoothing), and rising with x; the Gaussian
// likelihood's is one constant.
TEST(HeteroscedasticLikelihood, LearntNoiseFollowsTheTrueNoise) {
  const auto sd = [](double x) { return 0.1 + 0.4 * (x + 3.0) / 6.0; };
  Random random(5);
  Dataset data;
  data.rows = 1200;
  data.inputs = 1;
  for (size_t i = 0; i < data.rows; ++i) {
    const double x = -3.0 + 6.0 * random.uniform();
    data.x.push_back(x);
    data.y.push_back(std::sin(x) + sd(x) * random.normal());
  }
  data.feature_names = {"x"};
  TrainOptions options;
  options.likelihood = LikelihoodKind::heteroscedastic;
  const Model model = train(data, options);
  ASSERT_EQ(model.output_count(), 2u);
  double previous = 0.0;
  for (double x : {-2.5, -1.5, 0.0, 1.5, 2.5}) {
    const double learnt = predict(model, std::vector<double>{x}).aleatoric_variance;
    const double truth = sd(x) * sd(x);
    std::printf("x %+.1f: aleatoric variance %.4f, true %.4f\n", x, learnt, truth);
    EXPECT_GT(learnt, 0.5 * truth) << x;
    EXPECT_LT(learnt, 2.0 * truth) << x;
    EXPECT_GT(learnt, previous) << x;
    previous = learnt;
  }
}

}  // namespace
}  // namespace pbp::trainer
