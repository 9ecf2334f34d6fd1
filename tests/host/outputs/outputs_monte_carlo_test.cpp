// SPDX-License-Identifier: Apache-2.0
// The classification formulas of outputs.hpp (double) against Monte Carlo: the binary probit
// predictive is exact, the multiclass one an approximation whose error is measured and bounded
// here (and compared with the simpler per-class scaling it replaced).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "pbp/outputs.hpp"

namespace {

namespace outputs = pbp::outputs;

// E[softmax(z)], z ~ N(nu, diag psi), by `samples` draws (antithetic pairs).
std::vector<double> monte_carlo_softmax(const std::vector<double>& nu,
                                        const std::vector<double>& psi, int samples,
                                        std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  const size_t c_count = nu.size();
  std::vector<double> mean(c_count, 0.0), eps(c_count), z(c_count);
  for (int s = 0; s < samples / 2; ++s) {
    for (size_t c = 0; c < c_count; ++c) eps[c] = normal(rng);
    for (double sign : {1.0, -1.0}) {
      double top = -INFINITY;
      for (size_t c = 0; c < c_count; ++c) {
        z[c] = nu[c] + sign * std::sqrt(psi[c]) * eps[c];
        top = std::max(top, z[c]);
      }
      double sum = 0.0;
      for (size_t c = 0; c < c_count; ++c) sum += (z[c] = std::exp(z[c] - top));
      for (size_t c = 0; c < c_count; ++c) mean[c] += z[c] / sum;
    }
  }
  for (double& m : mean) m /= 2 * (samples / 2);
  return mean;
}

// The per-class probit scaling p_c ~ exp(nu_c / sqrt(1 + pi psi_c / 8)), for comparison only.
std::vector<double> per_class_scaling(const std::vector<double>& nu,
                                      const std::vector<double>& psi) {
  std::vector<double> p(nu.size());
  double top = -INFINITY, sum = 0.0;
  for (size_t c = 0; c < nu.size(); ++c) {
    p[c] = nu[c] / std::sqrt(1.0 + M_PI * psi[c] / 8.0);
    top = std::max(top, p[c]);
  }
  for (double& v : p) sum += (v = std::exp(v - top));
  for (double& v : p) v /= sum;
  return p;
}

struct ErrorStats {
  double max = 0.0;
  double sum = 0.0;
  int count = 0;
  void add(double e) {
    max = std::max(max, e);
    sum += e;
    ++count;
  }
  double mean() const { return sum / count; }
};

TEST(OutputsMonteCarlo, BinaryProbitIsExact) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  const double cases[][2] = {{0.0, 1.0}, {1.0, 3.0}, {-2.0, 0.25}, {3.0, 10.0}, {0.5, 0.0}};
  for (const auto& c : cases) {
    const double nu = c[0], psi = c[1];
    const int samples = 400000;
    double sum = 0.0;
    for (int s = 0; s < samples; ++s)
      sum += pbp::math::normal_cdf(nu + std::sqrt(psi) * normal(rng));
    const outputs::BinaryProbabilities<double> p = outputs::binary_probabilities(nu, psi);
    EXPECT_NEAR(p.positive, sum / samples, 0.003) << nu << " " << psi;
    EXPECT_NEAR(p.negative + p.positive, 1.0, 1e-15);
  }
}

// Random (nu, psi): C in 2..10, nu ~ N(0, s^2) with s in {0.5, 2, 5}, psi log-uniform in
// [0.01, 10] (each class its own). 300 cases x 40000 samples (MC standard error <= 0.0025).
TEST(OutputsMonteCarlo, MulticlassMeanFieldError) {
  std::mt19937_64 rng(2024);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ErrorStats mean_field, per_class, mean_field_small_psi;
  const double spreads[] = {0.5, 2.0, 5.0};
  for (int t = 0; t < 300; ++t) {
    const size_t classes = 2 + t % 9;
    const double spread = spreads[(t / 9) % 3];
    const bool small_psi = t % 2 == 0;  // psi <= 1 in half the cases
    std::vector<double> nu(classes), psi(classes);
    for (size_t c = 0; c < classes; ++c) {
      nu[c] = spread * normal(rng);
      psi[c] = std::exp(std::log(0.01) + unit(rng) * std::log(small_psi ? 100.0 : 1000.0));
    }
    const std::vector<double> reference = monte_carlo_softmax(nu, psi, 40000, rng);
    std::vector<double> p(classes);
    outputs::softmax_probabilities(nu.data(), psi.data(), static_cast<uint32_t>(classes), p.data());
    const std::vector<double> simple = per_class_scaling(nu, psi);
    double total = 0.0;
    for (size_t c = 0; c < classes; ++c) {
      mean_field.add(std::abs(p[c] - reference[c]));
      if (small_psi) mean_field_small_psi.add(std::abs(p[c] - reference[c]));
      per_class.add(std::abs(simple[c] - reference[c]));
      total += p[c];
    }
    EXPECT_NEAR(total, 1.0, 1e-12);
  }
  std::printf(
      "multiclass vs Monte Carlo, |p - p_mc| over %d class probabilities:\n"
      "  mean-field (outputs.hpp): max %.4f, mean %.4f (psi <= 1: max %.4f, mean %.4f)\n"
      "  per-class scaling:        max %.4f, mean %.4f\n",
      mean_field.count, mean_field.max, mean_field.mean(), mean_field_small_psi.max,
      mean_field_small_psi.mean(), per_class.max, per_class.mean());
  EXPECT_LT(mean_field.max, 0.25);
  EXPECT_LT(mean_field.mean(), 0.02);
  EXPECT_LT(mean_field_small_psi.max, 0.08);
  EXPECT_LT(mean_field_small_psi.mean(), 0.01);
  EXPECT_LT(mean_field.mean(), per_class.mean());
}

TEST(OutputsMonteCarlo, MulticlassExactCases) {
  // psi = 0: the softmax itself. Equal nu: uniform whatever psi.
  const double nu[4] = {0.3, -1.0, 2.0, 0.0};
  const double zero[4] = {0, 0, 0, 0};
  double p[4];
  outputs::softmax_probabilities(nu, zero, 4, p);
  double sum = 0.0;
  for (double v : nu) sum += std::exp(v);
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(p[c], std::exp(nu[c]) / sum, 1e-15);
  const double same[3] = {1.5, 1.5, 1.5};
  const double psi[3] = {0.1, 5.0, 50.0};
  outputs::softmax_probabilities(same, psi, 3, p);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(p[c], 1.0 / 3, 1e-15);
  EXPECT_NEAR(outputs::entropy(p, 3), std::log(3.0), 1e-15);
  // C = 2 is the probit approximation of the logistic-normal integral.
  const double two_nu[2] = {0.0, 1.2}, two_psi[2] = {0.7, 0.9};
  outputs::softmax_probabilities(two_nu, two_psi, 2, p);
  EXPECT_NEAR(p[1], 1.0 / (1.0 + std::exp(-1.2 / std::sqrt(1.0 + M_PI / 8.0 * 1.6))), 1e-15);
}

}  // namespace
