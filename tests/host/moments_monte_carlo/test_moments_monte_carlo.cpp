// SPDX-License-Identifier: Apache-2.0
// The forward moment propagation against Monte Carlo sampling of the weights (10^6 draws).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "pbp/trainer/adf.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::trainer {
namespace {

std::vector<Layer> small_network(const std::vector<uint32_t>& widths, Random& random) {
  std::vector<Layer> layers;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    Layer layer;
    layer.inputs = widths[l];
    layer.outputs = widths[l + 1];
    layer.activation =
        l + 2 < widths.size() ? pbp::trainer::Activation::relu : pbp::trainer::Activation::linear;
    for (size_t i = 0; i < size_t{layer.outputs} * layer.row_length(); ++i) {
      layer.mean.push_back(random.normal() * 0.8);
      layer.variance.push_back(0.02 + 0.3 * random.uniform());
    }
    layers.push_back(layer);
  }
  return layers;
}

// One network output with weights drawn from q.
double sampled_output(const std::vector<Layer>& layers, const std::vector<double>& x,
                      Random& random) {
  std::vector<double> z = x;
  for (const Layer& layer : layers) {
    std::vector<double> a(layer.outputs);
    const double scale = 1.0 / std::sqrt(layer.inputs + 1.0);
    for (uint32_t j = 0; j < layer.outputs; ++j) {
      double sum = 0.0;
      for (uint32_t k = 0; k <= layer.inputs; ++k) {
        const size_t i = size_t{j} * layer.row_length() + k;
        const double w = layer.mean[i] + std::sqrt(layer.variance[i]) * random.normal();
        sum += w * (k < layer.inputs ? z[k] : 1.0);
      }
      a[j] = sum * scale;
      if (layer.activation == pbp::trainer::Activation::relu && a[j] < 0.0) a[j] = 0.0;
    }
    z = a;
  }
  return z[0];
}

struct SampleMoments {
  double mean, variance, mean_se, variance_se;
};

SampleMoments monte_carlo(const std::vector<Layer>& layers, const std::vector<double>& x, int draws,
                          uint64_t seed) {
  Random random(seed);
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  for (int d = 0; d < draws; ++d) {
    const double f = sampled_output(layers, x, random);
    s1 += f;
    s2 += f * f;
    s3 += f * f * f;
    s4 += f * f * f * f;
  }
  const double n = draws;
  const double mean = s1 / n;
  const double var = s2 / n - mean * mean;
  const double m4 = s4 / n - 4 * mean * s3 / n + 6 * mean * mean * s2 / n - 3 * std::pow(mean, 4);
  return {mean, var, std::sqrt(var / n), std::sqrt((m4 - var * var) / n)};
}

// With one hidden layer the propagated output mean and variance are exact (the pre-activations of
// the first layer are Gaussian and the hidden units independent), so only sampling error remains.
TEST(MomentsMonteCarlo, OneHiddenLayerIsExactUpToSamplingError) {
  Random random(5);
  const std::vector<Layer> layers = small_network({3, 6, 1}, random);
  for (const std::vector<double>& x :
       {std::vector<double>{0.5, -1.0, 2.0}, std::vector<double>{-0.3, 0.1, 0.0}}) {
    AdfWorkspace ws(layers);
    const OutputMoments moments = forward_with_cache(layers, x.data(), ws);
    const SampleMoments mc = monte_carlo(layers, x, 1000000, 99);
    const double mean_z = (moments.mean - mc.mean) / mc.mean_se;
    const double var_z = (moments.variance - mc.variance) / mc.variance_se;
    std::printf(
        "propagated mean %.6f var %.6f; MC mean %.6f (se %.1e) var %.6f (se %.1e); "
        "z-scores %.2f %.2f\n",
        moments.mean, moments.variance, mc.mean, mc.mean_se, mc.variance, mc.variance_se, mean_z,
        var_z);
    EXPECT_LT(std::abs(mean_z), 5.0);
    EXPECT_LT(std::abs(var_z), 5.0);
  }
}

// With two hidden layers the Gaussian approximation of the second layer's pre-activations is an
// approximation (the paper's); it should still be close.
TEST(MomentsMonteCarlo, TwoHiddenLayersAreClose) {
  Random random(6);
  const std::vector<Layer> layers = small_network({2, 5, 4, 1}, random);
  const std::vector<double> x{0.8, -0.4};
  AdfWorkspace ws(layers);
  const OutputMoments moments = forward_with_cache(layers, x.data(), ws);
  const SampleMoments mc = monte_carlo(layers, x, 1000000, 7);
  const double sd = std::sqrt(mc.variance);
  std::printf("2 hidden: propagated mean %.5f var %.5f; MC mean %.5f var %.5f\n", moments.mean,
              moments.variance, mc.mean, mc.variance);
  EXPECT_LT(std::abs(moments.mean - mc.mean), 0.05 * sd + 5 * mc.mean_se);
  EXPECT_LT(std::abs(moments.variance - mc.variance), 0.10 * mc.variance + 5 * mc.variance_se);
}

}  // namespace
}  // namespace pbp::trainer
