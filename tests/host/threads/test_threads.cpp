// SPDX-License-Identifier: Apache-2.0
// The ADF update on two threads: wide layers are split in two parts whose sums are added in a
// fixed order, so a model is the same bits whatever the thread count; the split gradients are
// still exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "pbp/trainer/adf.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {
namespace {

// 110 inputs, 150 hidden units: layer 0 has 111 x 150 and layer 1 151 x 150 weights, both
// above kSplitLayerWeights.
constexpr uint32_t kInputs = 110;
const std::vector<uint32_t> kHidden{150, 150};

Dataset wide_data(Task task, size_t rows, uint64_t seed) {
  Random random(seed);
  Dataset data;
  data.source = "generated";
  data.rows = rows;
  data.inputs = kInputs;
  data.x.resize(rows * kInputs);
  for (double& v : data.x) v = random.normal();
  data.y.resize(rows);
  for (size_t i = 0; i < rows; ++i) {
    const double* x = data.row(i);
    const double signal = x[0] - 0.5 * x[1] + 0.25 * x[2] * x[3];
    data.y[i] = task == Task::multiclass ? static_cast<double>(signal > 0.5 ? 2 : signal > -0.5)
                                         : signal + 0.1 * random.normal();
  }
  return data;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void expect_identical(const Model& one, const Model& two) {
  ASSERT_EQ(one.layers.size(), two.layers.size());
  for (size_t l = 0; l < one.layers.size(); ++l) {
    EXPECT_TRUE(same_bits(one.layers[l].mean, two.layers[l].mean)) << "layer " << l;
    EXPECT_TRUE(same_bits(one.layers[l].variance, two.layers[l].variance)) << "layer " << l;
  }
  EXPECT_EQ(std::memcmp(&one.noise, &two.noise, sizeof(Gamma)), 0);
  EXPECT_EQ(std::memcmp(&one.prior, &two.prior, sizeof(Gamma)), 0);
}

Model train_with(Task task, uint32_t threads) {
  TrainOptions options;
  options.task = task;
  options.hidden = kHidden;
  options.epochs = 2;
  options.seed = 7;
  options.threads = threads;
  return train(wide_data(task, 240, 3), options);
}

TEST(Threads, WideLayersAreSplitAndGetTheHelper) {
  const Model model = train_with(Task::regression, 1);
  const AdfWorkspace one(model.layers, 1);
  const AdfWorkspace two(model.layers, 2);
  EXPECT_EQ(one.weights[0].split, 80u);  // 150 outputs: 80 and 70 (whole cache lines)
  EXPECT_EQ(one.weights[1].split, 80u);
  EXPECT_EQ(one.weights[2].split, 0u);  // 151 weights: one part
  EXPECT_EQ(one.helper, nullptr);
  EXPECT_NE(two.helper, nullptr);
  // A narrow network never starts the helper.
  TrainOptions options;
  options.hidden = {50};
  options.epochs = 1;
  const Model narrow = train(wide_data(Task::regression, 40, 1), options);
  const AdfWorkspace narrow_two(narrow.layers, 2);
  EXPECT_EQ(narrow_two.helper, nullptr);
}

TEST(Threads, RegressionModelIsTheSameBitsOnOneAndTwoThreads) {
  expect_identical(train_with(Task::regression, 1), train_with(Task::regression, 2));
}

TEST(Threads, MulticlassModelIsTheSameBitsOnOneAndTwoThreads) {
  expect_identical(train_with(Task::multiclass, 1), train_with(Task::multiclass, 2));
}

// Split layers' gradients (their parts' input sums added after both parts) against central
// differences of log Z, on a sample of each layer's weights.
// (A random network: a trained one's gradients are too small for differences to resolve.)
TEST(Threads, SplitGradientsMatchFiniteDifferences) {
  Random random(13);
  std::vector<Layer> layers = train_with(Task::regression, 1).layers;
  for (Layer& layer : layers) {
    for (double& m : layer.mean) m = random.normal();
    for (double& v : layer.variance) v = 0.05 + 0.5 * random.uniform();
  }
  const Dataset data = wide_data(Task::regression, 1, 9);
  const double* x = data.row(0);
  const double y = data.y[0], noise = 0.3;
  AdfWorkspace ws(layers, 2);
  WeightGradients grads;
  log_z_with_gradients(layers, x, y, noise, ws, grads);
  AdfWorkspace one_thread(layers, 1);
  WeightGradients grads_one;
  log_z_with_gradients(layers, x, y, noise, one_thread, grads_one);
  double largest = 0.0;
  for (size_t l = 0; l < layers.size(); ++l) {
    EXPECT_TRUE(same_bits(grads.d_mean[l], grads_one.d_mean[l])) << "layer " << l;
    EXPECT_TRUE(same_bits(grads.d_variance[l], grads_one.d_variance[l])) << "layer " << l;
    for (double g : grads.d_mean[l]) largest = std::max(largest, std::abs(g));
  }
  auto difference = [&](double& parameter) {
    const double saved = parameter, h = 1e-5 * std::max(1.0, std::abs(saved));
    auto at = [&](double delta) {
      parameter = saved + delta;
      return log_z(layers, x, y, noise, ws);
    };
    const double d = (8.0 * (at(h) - at(-h)) - (at(2 * h) - at(-2 * h))) / (12.0 * h);
    parameter = saved;
    return d;
  };
  size_t checked = 0;
  double worst = 0.0;
  for (size_t l = 0; l < layers.size(); ++l) {
    for (size_t i = l; i < layers[l].mean.size(); i += 97) {
      for (auto [analytic, numeric] :
           {std::pair{grads.d_mean[l][i], difference(layers[l].mean[i])},
            std::pair{grads.d_variance[l][i], difference(layers[l].variance[i])}}) {
        // Differences of this network's log Z resolve ~1e-11: small gradients get a floor.
        const double scale = std::max({std::abs(analytic), std::abs(numeric), 1e-4 * largest});
        worst = std::max(worst, std::abs(analytic - numeric) / scale);
        EXPECT_LE(std::abs(analytic - numeric) / scale, 1e-5)
            << "layer " << l << " weight " << i << ": " << analytic << " vs " << numeric;
        ++checked;
      }
    }
  }
  std::printf("%zu derivatives, largest %.3g, worst relative error %.3g\n", checked, largest,
              worst);
  EXPECT_GT(checked, 700u);
}

}  // namespace
}  // namespace pbp::trainer
