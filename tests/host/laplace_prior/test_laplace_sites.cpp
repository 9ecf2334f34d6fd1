// SPDX-License-Identifier: Apache-2.0
// The Laplace prior's EP site updates (refine_laplace_factor, refine_laplace_prior) and what the
// prior does in training: on the ARD test's relevance problem the noise inputs' weights shrink.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "pbp/trainer/laplace_prior.hpp"
#include "pbp/trainer/prior.hpp"
#include "pbp/trainer/train.hpp"
#include "prior_test_support.hpp"

namespace pbp::trainer {
namespace {

// Undamped and without a start tilt, one refinement sets q(w) and q(phi) to the tilted moments
// of the cavities, and refining again from there changes nothing (EP's fixed point).
TEST(LaplaceSites, UndampedRefinementMatchesTheTiltedMomentsAndIsAFixedPoint) {
  PriorFactor factor{0.3, 0.8, 0.0, 0.0, 0.0};
  LaplaceSite site{-0.2, 0.4};
  double mean = 0.6, variance = 0.25;
  LaplaceScale q{-0.5, 0.3};
  const double cavity_precision = 1.0 / variance - factor.precision;
  const double cavity_mean = (mean / variance - factor.mean_times_precision) / cavity_precision;
  const double phi_precision = 1.0 / q.variance - site.precision;
  const LaplaceScale phi_cavity{(q.mean / q.variance - site.mean_times_precision) / phi_precision,
                                1.0 / phi_precision};
  const ScaleTiltedMoments tilted =
      laplace_scale_tilted(cavity_mean, 1.0 / cavity_precision, phi_cavity);
  ASSERT_TRUE(tilted.ok);
  ASSERT_TRUE(refine_laplace_factor(mean, variance, q, factor, site, kUndamped));
  // Natural parameters round-trip through a subtraction and an addition: ~1e-15 relative.
  EXPECT_NEAR(mean, tilted.w.mean, 1e-12);
  EXPECT_NEAR(variance, tilted.w.variance, 1e-12 * tilted.w.variance);
  EXPECT_NEAR(q.mean, tilted.phi.mean, 1e-12);
  EXPECT_NEAR(q.variance, tilted.phi.variance, 1e-12 * tilted.phi.variance);
  const double m1 = mean, v1 = variance, q1 = q.mean;
  ASSERT_TRUE(refine_laplace_factor(mean, variance, q, factor, site, kUndamped));
  EXPECT_NEAR(mean, m1, 1e-12);
  EXPECT_NEAR(variance, v1, 1e-12 * v1);
  EXPECT_NEAR(q.mean, q1, 1e-12);
}

// Damped by d, each site's natural parameters move d of the way to the undamped ones.
TEST(LaplaceSites, DampingMixesTheSitesNaturalParameters) {
  PriorFactor full{0.1, 0.5, 0.0, 0.0, 0.0}, damped = full;
  LaplaceSite full_site{0.05, 0.2}, damped_site = full_site;
  double m_full = -0.4, v_full = 0.3, m_damped = m_full, v_damped = v_full;
  LaplaceScale q_full{0.2, 0.5}, q_damped = q_full;
  ASSERT_TRUE(refine_laplace_factor(m_full, v_full, q_full, full, full_site, kUndamped));
  ASSERT_TRUE(refine_laplace_factor(m_damped, v_damped, q_damped, damped, damped_site, 0.5));
  EXPECT_NEAR(damped.precision, 0.5 * (0.5 + full.precision), 1e-12);
  EXPECT_NEAR(damped.mean_times_precision, 0.5 * (0.1 + full.mean_times_precision), 1e-12);
  EXPECT_NEAR(damped_site.precision, 0.5 * (0.2 + full_site.precision), 1e-12);
  EXPECT_NEAR(damped_site.mean_times_precision, 0.5 * (0.05 + full_site.mean_times_precision),
              1e-12);
}

// Improper cavities (in w or in phi) and a grid that cannot hold the tilted leave everything as
// it was.
TEST(LaplaceSites, ImproperCavitiesAreSkipped) {
  struct Case {
    double mean, variance;
    PriorFactor factor;
    LaplaceScale q;
    LaplaceSite site;
  };
  for (const Case& c : {Case{0.2, 0.5, {0.0, 2.5, 0, 0, 0}, {0.0, 1.0}, {}},         // v_cav < 0
                        Case{0.2, 0.5, {0.0, 2.0 - 1e-7, 0, 0, 0}, {0.0, 1.0}, {}},  // v_cav > 1e6
                        Case{0.2, 0.5, {}, {0.0, 1.0}, {0.0, 1.5}},  // phi cavity < 0
                        Case{1e4, 1e-8, {}, {-20.0, 1e-6}, {}}}) {   // off the grid
    double mean = c.mean, variance = c.variance;
    LaplaceScale q = c.q;
    PriorFactor factor = c.factor;
    LaplaceSite site = c.site;
    EXPECT_FALSE(refine_laplace_factor(mean, variance, q, factor, site, kArdDamping));
    EXPECT_EQ(mean, c.mean);
    EXPECT_EQ(variance, c.variance);
    EXPECT_EQ(q.mean, c.q.mean);
    EXPECT_EQ(q.variance, c.q.variance);
    EXPECT_EQ(factor.precision, c.factor.precision);
    EXPECT_EQ(site.precision, c.site.precision);
  }
}

// The sweep covers layer 0's input weights and nothing else; refine_prior leaves them alone.
TEST(LaplaceSites, TheSweepsSplitLayerZeroBetweenThePriors) {
  std::vector<Layer> layers(2);
  layers[0].inputs = 2;
  layers[0].outputs = 3;
  layers[1].inputs = 3;
  layers[1].outputs = 1;
  for (Layer& layer : layers) {
    layer.mean.assign(layer.outputs * layer.row_length(), 0.4);
    layer.variance.assign(layer.outputs * layer.row_length(), 0.5);
  }
  PriorFactors factors = initial_prior_factors(layers, Gamma{});
  const PriorGroups groups = laplace_prior_groups(layers);
  for (size_t i = 0; i < layers[0].mean.size(); ++i) {
    EXPECT_EQ(groups.of_weight[0][i], i % 3 == 2 ? 0u : kNotGaussianPrior) << i;
  }
  std::vector<Gamma> priors(1);
  const PriorRefinement gaussian = refine_prior(layers, priors, groups, factors, kArdDamping);
  EXPECT_EQ(gaussian.attempted, 3u + 4u);  // layer 0's biases, layer 1
  EXPECT_EQ(layers[0].mean[0], 0.4);
  LaplacePrior prior = initial_laplace_prior(layers[0], Gamma{}.variance_estimate());
  EXPECT_EQ(prior.sites.size(), 6u);
  PriorRefinement laplace;
  refine_laplace_prior(layers[0], factors[0], prior, kArdDamping, laplace);
  EXPECT_EQ(laplace.attempted, 6u);
  EXPECT_EQ(laplace.skipped, 0u);
  EXPECT_NE(layers[0].mean[0], 0.4);
  EXPECT_NE(prior.q.mean, prior.hyperprior.mean);
  std::vector<PriorFactor> short_factors(5);
  EXPECT_THROW(refine_laplace_prior(layers[0], short_factors, prior, kArdDamping, laplace),
               std::invalid_argument);
  EXPECT_THROW(refine_laplace_prior(layers[0], factors[0], prior, 0.0, laplace),
               std::invalid_argument);
}

// y = sin(2 x0) + 0.5 x1^2 + 0.8 x2 + noise; x3, x4, x5 are pure noise (the ARD test's problem).
Dataset relevance_problem(uint64_t seed, size_t rows) {
  return test::synthetic(
      seed, rows, 6,
      [](double v, size_t k) {
        return k == 0 ? std::sin(2.0 * v) : k == 1 ? 0.5 * v * v : k == 2 ? 0.8 * v : 0.0;
      },
      0.1, [](double t) { return t; });
}

// Each input's layer-0 weights' mean square E[w^2] = m^2 + v, averaged over the hidden units.
std::vector<double> input_weight_power(const Model& model) {
  const Layer& first = model.layers.front();
  std::vector<double> power(first.inputs, 0.0);
  for (size_t unit = 0; unit < first.outputs; ++unit) {
    for (size_t k = 0; k < first.inputs; ++k) {
      const size_t i = unit * first.row_length() + k;
      power[k] += (first.mean[i] * first.mean[i] + first.variance[i]) / first.outputs;
    }
  }
  return power;
}

TEST(LaplacePrior, NoiseInputsWeightsShrinkTowardZero) {
  const Dataset data = relevance_problem(5, 300);
  TrainOptions options;
  options.prior = PriorMode::learned;
  const std::vector<double> gaussian = input_weight_power(train(data, options));
  options.prior = PriorMode::laplace;
  TrainReport report;
  const Model model = train(data, options, &report);
  const std::vector<double> laplace = input_weight_power(model);
  ASSERT_TRUE(model.input_laplace_scale.has_value());
  std::printf("q(phi) = N(%.4f, %.5f): Laplace variance ~ %.4f; skipped %llu of %llu\n",
              model.input_laplace_scale->mean, model.input_laplace_scale->variance,
              std::exp(model.input_laplace_scale->mean),
              static_cast<unsigned long long>(report.prior_factor_skipped),
              static_cast<unsigned long long>(report.prior_factor_updates));
  double smallest_relevant = INFINITY;
  for (size_t k = 0; k < 6; ++k) {
    std::printf("x%zu  E[w^2] learned %.5f  laplace %.5f\n", k, gaussian[k], laplace[k]);
    if (k < 3) smallest_relevant = std::min(smallest_relevant, laplace[k]);
  }
  // Measured: the noise inputs' E[w^2] is 0.37-0.46 of the Gaussian prior's and 0.17-0.21 of
  // the weakest real input's; the relevant inputs' move less (0.78-0.93 of the Gaussian's).
  for (size_t k = 3; k < 6; ++k) {
    EXPECT_LT(laplace[k], 0.6 * gaussian[k]) << k;
    EXPECT_LT(laplace[k], 0.25 * smallest_relevant) << k;
  }
  EXPECT_LT(model.input_laplace_scale->mean, std::log(Gamma{}.variance_estimate()));
  // Improper cavities are skipped, as with the Gaussian prior (609 of 16 040 there).
  EXPECT_LT(report.prior_factor_skipped, report.prior_factor_updates / 10);
}

TEST(LaplacePrior, TrainingIsDeterministicAndNeedsPbp) {
  TrainOptions options;
  options.hidden = {10};
  options.epochs = 5;
  options.prior = PriorMode::laplace;
  const Dataset data = relevance_problem(9, 80);
  const Model first = train(data, options);
  const Model second = train(data, options);
  ASSERT_TRUE(first.input_laplace_scale && second.input_laplace_scale);
  EXPECT_EQ(first.input_laplace_scale->mean, second.input_laplace_scale->mean);
  EXPECT_EQ(first.input_laplace_scale->variance, second.input_laplace_scale->variance);
  EXPECT_EQ(first.layers[0].mean, second.layers[0].mean);
  EXPECT_TRUE(first.input_priors.empty());
  EXPECT_NE(first.prior.a, Gamma{}.a);  // the deeper weights' Gamma is learned as well
  options.prior = PriorMode::learned;
  EXPECT_FALSE(train(data, options).input_laplace_scale.has_value());
  options.prior = PriorMode::laplace;
  options.algorithm = Algorithm::ebp;
  EXPECT_THROW(train(data, options), std::invalid_argument);
}

}  // namespace
}  // namespace pbp::trainer
