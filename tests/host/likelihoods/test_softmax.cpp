// SPDX-License-Identifier: Apache-2.0
// The three softmax approximations against log Z = log E[softmax_y(z)], z ~ N(m, diag v),
// integrated on a fine grid in double: its rounding (kTruthLogError) is far below every tolerance
// here, and long double, binary128 in software on AArch64, made the grid 35 times slower there.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "likelihoods/likelihoods.hpp"
#include "pbp/outputs.hpp"

namespace pbp::trainer {
namespace {

// E[f(z)] for z ~ N(m, diag v) in 2 or 3 dimensions by the trapezoid rule on +-9 sd (spectrally
// accurate for these smooth integrands): returns E[softmax_y], E[d softmax_y / dz_c] and
// E[d softmax_y / dz_c (z_c - m_c)] / (2 v_c) (Stein: the d/dv_c of the expectation).
struct Exact {
  double log_z;
  std::vector<double> d_mean, d_var;
};

constexpr int kHalf = 48;  // 97 nodes a dimension, step 0.1875 sd

// The truth's rounding: E[softmax_y] sums at most 97^3 positive terms one by one, each within
// 1000 u (the weights' normalisation ~300 u, a node's |z| < 30 a few ulp), so it is within
// (97^3 + 1000) u relative (1.0e-10), and its log within that absolute.
constexpr double kTruthLogError =
    ((2 * kHalf + 1.0) * (2 * kHalf + 1) * (2 * kHalf + 1) + 1000) * 0x1p-53;

Exact exact_softmax(const std::vector<double>& m, const std::vector<double>& v, uint32_t y) {
  const size_t c = m.size();
  constexpr double kStep = 0.1875;
  std::vector<double> weight(2 * kHalf + 1);
  double total = 0;
  for (int i = -kHalf; i <= kHalf; ++i)
    total += weight[i + kHalf] = std::exp(-0.5 * (i * kStep) * (i * kStep));
  for (double& w : weight) w /= total;
  double z_mean = 0;
  std::vector<double> g_mean(c, 0), g_var(c, 0), z(c), t(c);
  const int count2 = 2 * kHalf + 1, count3 = c == 3 ? count2 : 1;
  for (int i = 0; i < count2; ++i) {
    for (int j = 0; j < count2; ++j) {
      for (int k = 0; k < count3; ++k) {
        const int node[3] = {i, j, k};
        double w = 1, largest = -INFINITY;
        for (size_t d = 0; d < c; ++d) {
          w *= weight[node[d]];
          z[d] = m[d] + std::sqrt(v[d]) * (node[d] - kHalf) * kStep;
          largest = std::max(largest, z[d]);
        }
        double sum = 0;
        for (size_t d = 0; d < c; ++d) sum += t[d] = std::exp(z[d] - largest);
        const double p = t[y] / sum;
        z_mean += w * p;
        for (size_t d = 0; d < c; ++d) {
          const double dp = p * ((d == y ? 1.0 : 0.0) - t[d] / sum);
          g_mean[d] += w * dp;
          g_var[d] += w * dp * (node[d] - kHalf) * kStep / (2 * std::sqrt(v[d]));
        }
      }
    }
  }
  Exact e{std::log(z_mean), {}, {}};
  for (size_t d = 0; d < c; ++d) {
    e.d_mean.push_back(g_mean[d] / z_mean);
    e.d_var.push_back(g_var[d] / z_mean);
  }
  return e;
}

struct Case {
  std::vector<double> mean, var;
};

const std::vector<Case> kCases = {{{0.0, 0.0}, {1.0, 1.0}},
                                  {{2.0, -1.0}, {0.1, 4.0}},
                                  {{-3.0, 3.0}, {2.0, 0.5}},
                                  {{0.5, -1.0, 1.0}, {1.0, 2.0, 0.5}},
                                  {{0.0, 0.0, 0.0}, {0.01, 0.01, 0.01}},
                                  {{-2.0, 4.0, 0.0}, {3.0, 1.0, 6.0}}};

TEST(Softmax, LogBoundIsBelowTheTrueLogZ) {
  for (const Case& c : kCases) {
    const uint32_t classes = static_cast<uint32_t>(c.mean.size());
    SoftmaxLogBoundLikelihood bound(classes);
    for (uint32_t y = 0; y < classes; ++y) {
      std::vector<double> d_mean(classes), d_var(classes);
      const double lower = bound.log_z(c.mean.data(), c.var.data(), y, d_mean.data(), d_var.data());
      const double truth = exact_softmax(c.mean, c.var, y).log_z;
      // Beyond the truth's rounding, the bound's own: a few ulp of |m + v / 2| <= 8.
      EXPECT_LE(lower, truth + kTruthLogError + 1e-14) << "class " << y;
      EXPECT_GT(lower, truth - 10.0);  // a bound, not nonsense
    }
  }
}

TEST(Softmax, LogBoundIsStableForLargeMeans) {
  SoftmaxLogBoundLikelihood bound(3);
  const double mean[3] = {800.0, -800.0, 0.0}, var[3] = {1e3, 1.0, 0.0};
  double d_mean[3], d_var[3];
  for (double y : {0.0, 1.0, 2.0}) {
    const double value = bound.log_z(mean, var, y, d_mean, d_var);
    EXPECT_TRUE(std::isfinite(value));
    for (int c = 0; c < 3; ++c) EXPECT_TRUE(std::isfinite(d_mean[c]) && std::isfinite(d_var[c]));
  }
}

// The mean-field value is an approximation (outputs.hpp: mean error of the probabilities below
// 0.02). Where the label's mean lies well below the largest, more spread in the label's output
// raises E[softmax_y]: the true d log Z / d v_y is positive, and so is the mean-field one, while
// the log bound's is negative on every output of every point.
TEST(Softmax, MeanFieldFollowsTheTruthAndItsVarianceGradient) {
  int misclassified = 0;
  for (const Case& c : kCases) {
    const uint32_t classes = static_cast<uint32_t>(c.mean.size());
    SoftmaxMeanFieldLikelihood mean_field(classes);
    SoftmaxLogBoundLikelihood bound(classes);
    const double largest = *std::max_element(c.mean.begin(), c.mean.end());
    for (uint32_t y = 0; y < classes; ++y) {
      std::vector<double> d_mean(classes), d_var(classes), b_mean(classes), b_var(classes);
      const double value =
          mean_field.log_z(c.mean.data(), c.var.data(), y, d_mean.data(), d_var.data());
      bound.log_z(c.mean.data(), c.var.data(), y, b_mean.data(), b_var.data());
      const Exact truth = exact_softmax(c.mean, c.var, y);
      EXPECT_NEAR(std::exp(value), std::exp(truth.log_z), 0.03) << "class " << y;
      for (uint32_t d = 0; d < classes; ++d) EXPECT_LT(b_var[d], 0.0);
      if (largest - c.mean[y] < 1.0) continue;
      ++misclassified;
      EXPECT_GT(truth.d_var[y], 0.0) << "case m0 " << c.mean[0] << " class " << y;
      EXPECT_GT(d_var[y], 0.0) << "case m0 " << c.mean[0] << " class " << y;
    }
  }
  EXPECT_GE(misclassified, 4);
}

// Two classes: exp(log Z) is the runtime's predicted probability of the label, bit for bit in
// double (the same pairwise scale; the normalisation is exact for two classes).
TEST(Softmax, MeanFieldIsThePredictedProbabilityForTwoClasses) {
  SoftmaxMeanFieldLikelihood mean_field(2);
  for (const Case& c : kCases) {
    if (c.mean.size() != 2) continue;
    double p[2];
    outputs::softmax_probabilities(c.mean.data(), c.var.data(), 2, p);
    for (uint32_t y = 0; y < 2; ++y) {
      double d_mean[2], d_var[2];
      EXPECT_NEAR(std::exp(mean_field.log_z(c.mean.data(), c.var.data(), y, d_mean, d_var)), p[y],
                  1e-15);
    }
  }
}

TEST(Softmax, MeanFieldIsStableForLargeMeans) {
  SoftmaxMeanFieldLikelihood mean_field(3);
  const double mean[3] = {800.0, -800.0, 0.0}, var[3] = {1e3, 1.0, 0.0};
  double d_mean[3], d_var[3];
  for (double y : {0.0, 1.0, 2.0}) {
    const double value = mean_field.log_z(mean, var, y, d_mean, d_var);
    EXPECT_TRUE(std::isfinite(value));
    EXPECT_LE(value, 0.0);
    for (int c = 0; c < 3; ++c) EXPECT_TRUE(std::isfinite(d_mean[c]) && std::isfinite(d_var[c]));
  }
  // A label far below the rest is not clamped away: its gradient still pulls it up.
  mean_field.log_z(mean, var, 1.0, d_mean, d_var);
  EXPECT_GT(d_mean[1], 0.5);
}

TEST(Softmax, SampledEstimateConvergesToTheTruth) {
  constexpr uint32_t kSamples = 40000;
  for (const Case& c : kCases) {
    const uint32_t classes = static_cast<uint32_t>(c.mean.size());
    SoftmaxSampledLikelihood sampled(classes, kSamples, 3);
    for (uint32_t y = 0; y < classes; ++y) {
      std::vector<double> d_mean(classes), d_var(classes);
      const double estimate =
          sampled.log_z(c.mean.data(), c.var.data(), y, d_mean.data(), d_var.data());
      const Exact truth = exact_softmax(c.mean, c.var, y);
      EXPECT_NEAR(estimate, truth.log_z, 0.03) << "class " << y;
      for (uint32_t d = 0; d < classes; ++d) {
        EXPECT_NEAR(d_mean[d], truth.d_mean[d], 0.03) << "class " << y << " output " << d;
        EXPECT_NEAR(d_var[d], truth.d_var[d], 0.03 + 0.05 * std::abs(truth.d_var[d]))
            << "class " << y << " output " << d;
      }
    }
  }
}

TEST(Softmax, SampledDrawsFreshSamplesUnlessFixed) {
  SoftmaxSampledLikelihood sampled(3, 4, 5);
  const double mean[3] = {0.1, 0.2, -0.3}, var[3] = {1.0, 1.0, 1.0};
  double g[3], h[3];
  const double first = sampled.log_z(mean, var, 1.0, g, h);
  const std::vector<double> used = sampled.samples();
  EXPECT_NE(first, sampled.log_z(mean, var, 1.0, g, h));
  sampled.fix_samples(used);
  EXPECT_EQ(first, sampled.log_z(mean, var, 1.0, g, h));
  EXPECT_EQ(first, sampled.log_z(mean, var, 1.0, g, h));
  EXPECT_THROW(sampled.fix_samples({1.0, 2.0}), std::invalid_argument);
  // The same seed gives the same draws.
  SoftmaxSampledLikelihood a(3, 4, 9), b(3, 4, 9);
  EXPECT_EQ(a.log_z(mean, var, 0.0, g, h), b.log_z(mean, var, 0.0, g, h));
}

TEST(Softmax, SampledIsStableWhenZIsTiny) {
  SoftmaxSampledLikelihood sampled(3, 8, 1);
  const double mean[3] = {-900.0, 0.0, 900.0}, var[3] = {1e-300, 0.0, 1e4};
  double g[3], h[3];
  const double value = sampled.log_z(mean, var, 0.0, g, h);
  EXPECT_TRUE(std::isfinite(value));
  EXPECT_LT(value, -1000.0);
  for (int c = 0; c < 3; ++c) EXPECT_TRUE(std::isfinite(g[c]) && std::isfinite(h[c])) << c;
}

}  // namespace
}  // namespace pbp::trainer
