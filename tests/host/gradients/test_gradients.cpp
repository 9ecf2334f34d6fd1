// SPDX-License-Identifier: Apache-2.0
// Finite-difference checks of d log Z / d (m, v) for every weight, and of the ReLU moment
// Jacobian on both sides of the alpha < -30 series branch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "pbp/trainer/adf.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer {
namespace {

std::vector<Layer> random_network(const std::vector<uint32_t>& widths, Random& random,
                                  Activation activation = Activation::relu) {
  std::vector<Layer> layers;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    Layer layer;
    layer.inputs = widths[l];
    layer.outputs = widths[l + 1];
    layer.activation = l + 2 < widths.size() ? activation : Activation::linear;
    const size_t count = size_t{layer.outputs} * layer.row_length();
    for (size_t i = 0; i < count; ++i) {
      layer.mean.push_back(random.normal());
      layer.variance.push_back(0.05 + 0.5 * random.uniform());
    }
    layers.push_back(layer);
  }
  return layers;
}

// Fourth-order central difference (error O(h^4)) with a step relative to the parameter, so that
// neither truncation nor rounding reaches the 1e-6 tolerance.
template <class F>
double central_difference(double& parameter, F&& f, double relative_step = 1e-3) {
  const double saved = parameter;
  const double h = relative_step * std::max(std::abs(saved), 0.05);
  auto at = [&](double offset) {
    parameter = saved + offset;
    return f();
  };
  const double d1 = at(h) - at(-h);
  const double d2 = at(2 * h) - at(-2 * h);
  parameter = saved;
  return (8.0 * d1 - d2) / (12.0 * h);
}

struct Agreement {
  double worst_relative = 0.0;
  size_t checked = 0;
  size_t pure_relative = 0;  // derivatives large enough to be judged by relative error alone
};

// Relative error |g - fd| / max(|g|, |fd|). Gradients below 1e-5 of the network's largest are
// compared against that floor instead: differences of log Z = O(1) resolve only ~1e-12 absolute.
Agreement check_network(std::vector<Layer> layers, const double* x, double y, double noise_var) {
  AdfWorkspace ws(layers);
  WeightGradients grads;
  log_z_with_gradients(layers, x, y, noise_var, ws, grads);
  double largest = 0.0;
  for (size_t l = 0; l < layers.size(); ++l) {
    for (double g : grads.d_mean[l]) largest = std::max(largest, std::abs(g));
    for (double g : grads.d_variance[l]) largest = std::max(largest, std::abs(g));
  }
  auto f = [&] { return log_z(layers, x, y, noise_var, ws); };
  Agreement agreement;
  for (size_t l = 0; l < layers.size(); ++l) {
    for (size_t i = 0; i < layers[l].mean.size(); ++i) {
      const double fd_mean = central_difference(layers[l].mean[i], f);
      const double fd_var = central_difference(layers[l].variance[i], f);
      for (auto [analytic, numeric] :
           {std::pair{grads.d_mean[l][i], fd_mean}, std::pair{grads.d_variance[l][i], fd_var}}) {
        const double scale = std::max({std::abs(analytic), std::abs(numeric), 1e-5 * largest});
        if (scale > 1e-5 * largest) ++agreement.pure_relative;
        const double relative = std::abs(analytic - numeric) / scale;
        if (relative > 1e-6) {
          std::printf("  layer %zu weight %zu (m %.4g v %.4g): analytic %.10g numeric %.10g\n", l,
                      i, layers[l].mean[i], layers[l].variance[i], analytic, numeric);
        }
        agreement.worst_relative = std::max(agreement.worst_relative, relative);
        ++agreement.checked;
      }
    }
  }
  return agreement;
}

TEST(Gradients, OneHiddenLayerMatchesFiniteDifferences) {
  Random random(11);
  for (int trial = 0; trial < 5; ++trial) {
    const std::vector<Layer> layers = random_network({4, 8, 1}, random);
    const double x[4] = {random.normal(), random.normal(), random.normal(), random.normal()};
    const Agreement a = check_network(layers, x, random.normal(), 0.3);
    std::printf(
        "1 hidden layer, trial %d: %zu derivatives (%zu above the floor), worst relative "
        "error %.3g\n",
        trial, a.checked, a.pure_relative, a.worst_relative);
    EXPECT_LE(a.worst_relative, 1e-6);
  }
}

TEST(Gradients, ThreeHiddenLayersMatchFiniteDifferences) {
  Random random(12);
  for (int trial = 0; trial < 3; ++trial) {
    const std::vector<Layer> layers = random_network({3, 6, 5, 4, 1}, random);
    const double x[3] = {random.normal(), random.normal(), random.normal()};
    const Agreement a = check_network(layers, x, random.normal(), 0.2);
    std::printf(
        "3 hidden layers, trial %d: %zu derivatives (%zu above the floor), worst "
        "relative error %.3g\n",
        trial, a.checked, a.pure_relative, a.worst_relative);
    EXPECT_LE(a.worst_relative, 1e-6);
  }
}

// The erf and sign units' Jacobians (activation_jacobian.hpp) through the whole reverse mode.
void expect_network_gradients(Activation activation, uint64_t seed, const char* name) {
  Random random(seed);
  for (int trial = 0; trial < 3; ++trial) {
    const std::vector<Layer> layers = random_network({3, 6, 5, 1}, random, activation);
    const double x[3] = {random.normal(), random.normal(), random.normal()};
    const Agreement a = check_network(layers, x, random.normal(), 0.2);
    std::printf(
        "%s, 2 hidden layers, trial %d: %zu derivatives (%zu above the floor), worst "
        "relative error %.3g\n",
        name, trial, a.checked, a.pure_relative, a.worst_relative);
    EXPECT_LE(a.worst_relative, 1e-6);
  }
}

TEST(Gradients, ErfNetworkMatchesFiniteDifferences) {
  expect_network_gradients(Activation::erf, 15, "erf");
}

TEST(Gradients, SignNetworkMatchesFiniteDifferences) {
  expect_network_gradients(Activation::sign, 16, "sign");
}

TEST(Gradients, NetworkWithUnitsInTheSeriesBranch) {
  Random random(13);
  std::vector<Layer> layers = random_network({3, 6, 5, 1}, random);
  // Drive two units of each hidden layer far negative with little variance: alpha < -30.
  for (size_t l = 0; l + 1 < layers.size(); ++l) {
    for (uint32_t j = 0; j < 2; ++j) {
      const uint32_t row = layers[l].row_length();
      for (uint32_t k = 0; k < row; ++k) layers[l].variance[j * row + k] = 1e-4;
      layers[l].mean[j * row + layers[l].inputs] = -12.0;
    }
  }
  const double x[3] = {0.3, -0.2, 0.1};
  AdfWorkspace ws(layers);
  forward_with_cache(layers, x, ws);
  int in_branch = 0;
  for (size_t l = 0; l + 1 < layers.size(); ++l) {
    for (double alpha : ws.relu_alpha[l]) in_branch += alpha < kReluAsymptoteBelow<double>;
  }
  std::printf("units with alpha < -30: %d\n", in_branch);
  EXPECT_GE(in_branch, 3);
  const Agreement a = check_network(layers, x, 0.7, 0.4);
  std::printf("series-branch network: worst relative error %.3g over %zu derivatives\n",
              a.worst_relative, a.checked);
  EXPECT_LE(a.worst_relative, 1e-6);
}

// A smooth stand-in likelihood over several outputs, so the reverse mode from more than one output
// is checked independently of the real likelihoods (tests/host/likelihoods checks those).
class QuadraticLikelihood final : public Likelihood {
 public:
  explicit QuadraticLikelihood(uint32_t outputs) : outputs_(outputs) {}
  uint32_t outputs() const override { return outputs_; }
  double log_z(const double* mean, const double* var, double target, double* d_mean,
               double* d_var) override {
    double value = 0.0;
    for (uint32_t i = 0; i < outputs_; ++i) {
      const double c = 0.3 * (i + 1) - target;
      value += c * mean[i] - 0.25 * mean[i] * mean[i] - 0.4 * (i + 1) * var[i];
      d_mean[i] = c - 0.5 * mean[i];
      d_var[i] = -0.4 * (i + 1);
    }
    return value;
  }

 private:
  uint32_t outputs_;
};

TEST(Gradients, SeveralOutputsMatchFiniteDifferences) {
  Random random(14);
  const std::vector<Layer> layers = random_network({3, 7, 5, 4}, random);
  const double x[3] = {0.4, -1.1, 0.6};
  QuadraticLikelihood likelihood(4);
  AdfWorkspace ws(layers);
  WeightGradients grads;
  log_z_with_gradients(layers, x, 0.2, likelihood, ws, grads);
  std::vector<Layer> probe = layers;
  auto f = [&] {
    forward_with_cache(probe, x, ws);
    std::vector<double> dm(4), dv(4);
    return likelihood.log_z(ws.a_mean.back().data(), ws.a_var.back().data(), 0.2, dm.data(),
                            dv.data());
  };
  double worst = 0.0, largest = 0.0;
  for (size_t l = 0; l < layers.size(); ++l) {
    for (double g : grads.d_mean[l]) largest = std::max(largest, std::abs(g));
  }
  for (size_t l = 0; l < layers.size(); ++l) {
    for (size_t i = 0; i < layers[l].mean.size(); ++i) {
      const double pairs[2][2] = {
          {grads.d_mean[l][i], central_difference(probe[l].mean[i], f)},
          {grads.d_variance[l][i], central_difference(probe[l].variance[i], f)}};
      for (const auto& p : pairs) {
        const double scale = std::max({std::abs(p[0]), std::abs(p[1]), 1e-5 * largest});
        worst = std::max(worst, std::abs(p[0] - p[1]) / scale);
      }
    }
  }
  std::printf("4 outputs, 2 hidden layers: worst relative error %.3g\n", worst);
  EXPECT_LE(worst, 1e-6);
}

// The Jacobian of (m_z, v_z) with respect to (m_a, v_a), checked directly where the moments are
// tiny but representable, so the series branch's derivative is really exercised.
TEST(Gradients, ReluJacobianOnBothSidesOfTheSeriesBranch) {
  double worst = 0.0;
  for (double alpha :
       {-37.0, -35.0, -31.5, -30.2, -30.0 + 1e-3, -29.8, -20.0, -5.0, -0.5, 0.0, 0.7, 3.0, 12.0}) {
    for (double v : {0.01, 1.0, 40.0}) {
      const double m = alpha * std::sqrt(v);
      const ReluMoments<double> r = relu_moments(m, v);
      const ReluJacobian jac = relu_jacobian(r);
      double mm = m, vv = v;
      auto mean_of = [&] { return relu_moments(mm, vv).mean; };
      auto var_of = [&] { return relu_moments(mm, vv).variance; };
      // Steps small against the curvature of log Phi(alpha) (~alpha^2) in the far tail.
      const double step = 1e-4 / (1.0 + std::abs(alpha));
      const double pairs[4][2] = {{jac.mean_by_mean, central_difference(mm, mean_of, step)},
                                  {jac.mean_by_var, central_difference(vv, mean_of, step)},
                                  {jac.var_by_mean, central_difference(mm, var_of, step)},
                                  {jac.var_by_var, central_difference(vv, var_of, step)}};
      for (const auto& p : pairs) {
        // Entries below 1e-9 of the Jacobian's largest are beyond what differences resolve.
        const double largest = std::max({std::abs(jac.mean_by_mean), std::abs(jac.mean_by_var),
                                         std::abs(jac.var_by_mean), std::abs(jac.var_by_var)});
        const double scale = std::max({std::abs(p[0]), std::abs(p[1]), 1e-9 * largest, 1e-300});
        const double rel = std::abs(p[0] - p[1]) / scale;
        worst = std::max(worst, rel);
        EXPECT_LE(rel, 1e-6) << "alpha " << alpha << " v " << v << ": " << p[0] << " vs " << p[1];
      }
    }
  }
  std::printf("ReLU Jacobian: worst relative error %.3g\n", worst);
}

}  // namespace
}  // namespace pbp::trainer
