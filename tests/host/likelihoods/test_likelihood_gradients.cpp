// SPDX-License-Identifier: Apache-2.0
// d log Z / d (mean, var) of every likelihood against finite differences over grids that reach
// the extremes (tails, tiny and huge variances, large counts).
#include <gtest/gtest.h>

#include <cmath>

#include "gradient_check.hpp"
#include "likelihoods/likelihoods.hpp"

namespace pbp::trainer {
namespace {

using testing::check_gradients;
using testing::GradientSummary;
using testing::print_summary;
using testing::VarianceSteps;

constexpr double kTolerance = 1e-6;

TEST(LikelihoodGradients, Gaussian) {
  Gamma noise{6.0, 6.0};  // noise variance 1.2: v may step below 0
  GaussianLikelihood likelihood(noise);
  GradientSummary summary;
  for (double m : {-30.0, -1.0, 0.0, 0.5, 20.0}) {
    for (double v : {1e-12, 1e-3, 1.0, 100.0}) {
      for (double y : {-3.0, 0.0, 2.5}) {
        check_gradients(likelihood, {m}, {v}, y, {0.05, true}, summary);
      }
    }
  }
  print_summary("gaussian", summary);
  EXPECT_LE(summary.worst_relative, kTolerance);
}

TEST(LikelihoodGradients, Probit) {
  ProbitLikelihood likelihood;  // defined for v > -1: central differences may cross 0
  GradientSummary summary;
  for (double m : {-60.0, -40.0, -10.0, -1.0, 0.0, 0.3, 5.0, 40.0, 60.0}) {
    for (double v : {1e-12, 1e-4, 0.5, 3.0, 1e4}) {
      for (double y : {0.0, 1.0}) check_gradients(likelihood, {m}, {v}, y, {0.05, true}, summary);
    }
  }
  print_summary("probit", summary);
  EXPECT_LE(summary.worst_relative, kTolerance);
}

const std::vector<std::vector<double>> kClassMeans = {
    {0.0, 0.0, 0.0}, {-5.0, 3.0, 40.0}, {100.0, -100.0, 0.0}, {0.3, -0.7, 1.1}};
const std::vector<std::vector<double>> kClassVars = {
    {1e-10, 1e-10, 1e-10}, {0.5, 2.0, 10.0}, {1e3, 1.0, 1e-3}};

TEST(LikelihoodGradients, SoftmaxLogBound) {
  SoftmaxLogBoundLikelihood likelihood(3);  // linear in v: any step is fine
  GradientSummary summary;
  for (const auto& m : kClassMeans) {
    for (const auto& v : kClassVars) {
      for (double y : {0.0, 1.0, 2.0}) check_gradients(likelihood, m, v, y, {0.05, true}, summary);
    }
  }
  print_summary("softmax log bound", summary);
  EXPECT_LE(summary.worst_relative, kTolerance);
}

TEST(LikelihoodGradients, SoftmaxMeanField) {
  SoftmaxMeanFieldLikelihood likelihood(3);  // smooth through v = 0 (1 + pi/8 v stays > 0)
  GradientSummary summary;
  for (const auto& m : kClassMeans) {
    for (const auto& v : kClassVars) {
      for (double y : {0.0, 1.0, 2.0}) check_gradients(likelihood, m, v, y, {0.05, true}, summary);
    }
  }
  print_summary("softmax mean-field", summary);
  EXPECT_LE(summary.worst_relative, kTolerance);
}

TEST(LikelihoodGradients, SoftmaxSampledWithFixedSamples) {
  constexpr uint32_t kSamples = 16;
  SoftmaxSampledLikelihood likelihood(3, kSamples, 7);
  Random random(11);
  std::vector<double> eps(size_t{kSamples} * 3);
  for (double& e : eps) e = random.normal();
  likelihood.fix_samples(eps);
  GradientSummary summary;
  // sqrt(v) is not smooth at 0: steps relative to v only.
  for (const auto& m : kClassMeans) {
    for (const auto& v : kClassVars) {
      for (double y : {0.0, 1.0, 2.0}) check_gradients(likelihood, m, v, y, {0.0, false}, summary);
    }
  }
  print_summary("softmax sampled (fixed samples)", summary);
  EXPECT_LE(summary.worst_relative, kTolerance);
}

TEST(LikelihoodGradients, NegativeBinomial) {
  NegativeBinomialLikelihood likelihood;
  GradientSummary summary;
  for (double m : {-30.0, -3.0, 0.0, 1.0, 3.0, 8.0, 30.0}) {
    for (double v : {1e-10, 1e-4, 0.05, 1.0, 20.0}) {
      for (double y : {0.0, 1.0, 7.0, 100.0, 5000.0}) {
        // log Z bends in v on the scale 1 / (y + e^m)^2 (its Taylor series in v); v >= 0.
        const double bend = 1.0 / ((1.0 + y + std::exp(m)) * (1.0 + y + std::exp(m)));
        check_gradients(likelihood, {m}, {v}, y, {std::min(0.05, bend), false}, summary);
      }
    }
  }
  print_summary("negative binomial", summary);
  EXPECT_LE(summary.worst_relative, kTolerance);
}

}  // namespace
}  // namespace pbp::trainer
