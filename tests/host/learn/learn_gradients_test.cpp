// SPDX-License-Identifier: Apache-2.0
// The learner's backward pass (network_update.hpp, instantiated here in double) against finite
// differences of log Z through the runtime's forward pass (network_moments) in double, for every
// weight's mean and variance, with ReLU, erf and sign hidden layers and both likelihoods.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "pbp/learn/likelihood_gradients.hpp"
#include "pbp/learn/network_update.hpp"
#include "pbp/moments.hpp"
#include "pbp/trainer/random.hpp"

namespace {

using pbp::learn::MutableLayer;

struct Network {
  std::vector<std::vector<double>> mean, variance;
  std::vector<MutableLayer<double>> layers;
};

Network random_network(const std::vector<uint32_t>& widths, uint32_t activation,
                       pbp::trainer::Random& random) {
  Network n;
  const size_t count = widths.size() - 1;
  n.mean.resize(count);
  n.variance.resize(count);
  for (size_t l = 0; l < count; ++l) {
    for (uint32_t i = 0; i < widths[l + 1] * (widths[l] + 1); ++i) {
      n.mean[l].push_back(random.normal());
      n.variance[l].push_back(0.05 + 0.5 * random.uniform());
    }
    n.layers.push_back({n.mean[l].data(), n.variance[l].data(), widths[l], widths[l + 1],
                        l + 1 < count ? activation : PBP_ACTIVATION_LINEAR});
  }
  return n;
}

// log Z of the network's output through the runtime's forward pass.
double log_z(const Network& n, const double* x, double y, bool probit) {
  std::vector<pbp::LayerWeights<double>> weights;
  std::vector<uint32_t> activations;
  uint32_t width = 0;
  for (const MutableLayer<double>& l : n.layers) {
    weights.push_back({l.mean, l.variance, l.inputs, l.outputs});
    activations.push_back(l.activation);
    width = std::max(width, l.outputs);
  }
  std::vector<double> ws(pbp::network_workspace_elements(width));
  double m, v;
  pbp::network_moments<double>(weights.data(), activations.data(),
                               static_cast<uint32_t>(weights.size()), x, ws.data(), width, &m, &v);
  return probit ? pbp::learn::probit_log_z(y > 0.5, m, v).value
                : pbp::learn::gaussian_log_z(y, m, v + 0.3).value;
}

// Fourth-order central difference with a step relative to the parameter (test_gradients.cpp's).
template <class F>
double central_difference(double& parameter, F&& f) {
  const double saved = parameter;
  const double h = 1e-3 * std::max(std::abs(saved), 0.05);
  auto at = [&](double offset) {
    parameter = saved + offset;
    return f();
  };
  const double d1 = at(h) - at(-h);
  const double d2 = at(2 * h) - at(-2 * h);
  parameter = saved;
  return (8.0 * d1 - d2) / (12.0 * h);
}

void check(uint32_t activation, bool probit, uint64_t seed) {
  pbp::trainer::Random random(seed);
  Network n = random_network({3, 6, 4, 1}, activation, random);
  const uint32_t count = static_cast<uint32_t>(n.layers.size());
  std::vector<double> ws(pbp::learn::update_workspace_elements(3, 11));
  const double x[3] = {random.normal(), random.normal(), random.normal()};
  const double y = probit ? 1.0 : random.normal();
  std::copy(x, x + 3, ws.begin());
  const pbp::learn::UnitArrays<double> out =
      pbp::learn::forward_with_intermediates(n.layers.data(), count, ws.data());
  const pbp::learn::LogZ<double> lz =
      probit ? pbp::learn::probit_log_z(true, out.a_mean[0], out.a_var[0])
             : pbp::learn::gaussian_log_z(y, out.a_mean[0], out.a_var[0] + 0.3);
  EXPECT_NEAR(lz.value, log_z(n, x, y, probit), 1e-12);  // the same forward pass
  out.grad_mean[0] = lz.d_mean;
  out.grad_var[0] = lz.d_variance;
  ASSERT_TRUE(pbp::learn::backward_gradients(n.layers.data(), count, ws.data()));
  // Relative agreement, with gradients below 1e-5 of the largest judged against that floor:
  // differences of log Z = O(1) resolve ~1e-12 absolute, the O(h^4) truncation ~1e-9 relative.
  std::vector<double> analytic, numeric;
  for (uint32_t l = 0; l < count; ++l) {
    const auto g = pbp::learn::layer_gradients(n.layers.data(), ws.data(), l);
    const uint32_t row = n.layers[l].inputs + 1;
    for (uint32_t j = 0; j < n.layers[l].outputs; ++j) {
      const auto u = pbp::learn::unit_gradient(g, j);
      for (uint32_t k = 0; k < row; ++k) {
        double& m = n.mean[l][j * row + k];
        double& v = n.variance[l][j * row + k];
        const auto w = pbp::learn::weight_gradient(g, u, k, m);
        analytic.insert(analytic.end(), {w.mean, w.variance});
        const auto f = [&] { return log_z(n, x, y, probit); };
        numeric.push_back(central_difference(m, f));
        numeric.push_back(central_difference(v, f));
        EXPECT_DOUBLE_EQ(w.curvature, w.mean * w.mean - 2.0 * w.variance)
            << "layer " << l << " unit " << j << " input " << k;
      }
    }
  }
  double largest = 0.0;
  for (double a : analytic) largest = std::max(largest, std::abs(a));
  ASSERT_GT(largest, 0.0);
  for (size_t i = 0; i < analytic.size(); ++i) {
    const double scale = std::max({std::abs(analytic[i]), std::abs(numeric[i]), 1e-5 * largest});
    EXPECT_LT(std::abs(analytic[i] - numeric[i]) / scale, 1e-6)
        << "gradient " << i << ": " << analytic[i] << " vs " << numeric[i];
  }
}

TEST(LearnGradients, ReluGaussian) {
  check(PBP_ACTIVATION_RELU, false, 1);
}
TEST(LearnGradients, ReluProbit) {
  check(PBP_ACTIVATION_RELU, true, 2);
}
TEST(LearnGradients, ErfGaussian) {
  check(PBP_ACTIVATION_ERF, false, 3);
}
TEST(LearnGradients, SignProbit) {
  check(PBP_ACTIVATION_SIGN, true, 4);
}

}  // namespace
