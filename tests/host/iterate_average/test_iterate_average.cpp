// SPDX-License-Identifier: Apache-2.0
// IterateAverage (iterate_average.hpp): the natural-parameter average of q over an epoch's
// iterates, and how training reports it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../prior_refinement/prior_test_support.hpp"
#include "pbp/trainer/iterate_average.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {
namespace {

std::vector<Layer> random_layers(uint64_t seed) {
  Random random(seed);
  std::vector<Layer> layers;
  const uint32_t widths[] = {3, 6, 2};
  for (size_t l = 0; l < 2; ++l) {
    Layer layer;
    layer.inputs = widths[l];
    layer.outputs = widths[l + 1];
    layer.activation = l == 0 ? pbp::trainer::Activation::relu : pbp::trainer::Activation::linear;
    for (uint32_t i = 0; i < layer.outputs * layer.row_length(); ++i) {
      layer.mean.push_back(random.normal());
      layer.variance.push_back(0.05 + random.uniform());
    }
    layers.push_back(layer);
  }
  return layers;
}

TEST(IterateAverage, AveragesPrecisionAndMeanTimesPrecision) {
  const std::vector<Layer> a = random_layers(1), b = random_layers(2);
  AdfWorkspace ws(a);
  IterateAverage average(ws);
  average.add(ws);
  ws.load(b);
  average.add(ws);
  ws.load(b);
  average.add(ws);
  EXPECT_EQ(average.count(), 3u);
  std::vector<Layer> out = a;
  average.store(ws, out);
  for (size_t l = 0; l < out.size(); ++l) {
    for (size_t i = 0; i < out[l].mean.size(); ++i) {
      const double pa = 1 / a[l].variance[i], pb = 1 / b[l].variance[i];
      const double precision = (pa + 2 * pb) / 3;
      const double mean = (a[l].mean[i] * pa + 2 * b[l].mean[i] * pb) / (pa + 2 * pb);
      EXPECT_NEAR(1 / out[l].variance[i], precision, 1e-12 * precision);
      EXPECT_NEAR(out[l].mean[i], mean, 1e-12 * (1 + std::abs(mean)));
    }
  }
  // After clear(), one iterate's average is that iterate.
  average.clear();
  EXPECT_EQ(average.count(), 0u);
  average.add(ws);
  average.store(ws, out);
  for (size_t i = 0; i < out[1].mean.size(); ++i) {
    EXPECT_NEAR(out[1].mean[i], b[1].mean[i], 1e-12 * (1 + std::abs(b[1].mean[i])));
    EXPECT_NEAR(out[1].variance[i], b[1].variance[i], 1e-12 * b[1].variance[i]);
  }
}

Dataset regression_data(size_t rows) {
  return test::synthetic(
      7, rows, 2, [](double v, size_t k) { return k == 0 ? std::sin(v) : 0.5 * v; }, 0.3,
      [](double t) { return t; });
}

double total_precision(const Model& model) {
  double sum = 0.0;
  for (const Layer& layer : model.layers) {
    for (const double v : layer.variance) sum += 1.0 / v;
  }
  return sum;
}

// ADF's precision grows through every epoch, so an epoch's average lies between the q that ended
// the epoch before and the q that ends it; and averaging changes what is reported, not the
// iterates training goes on from: epoch 3's last q is the same with and without it, so the
// regression runs' noise Gammas (updated by every step, never averaged) are the same bits.
TEST(IterateAverage, EachEpochReportsTheAverageAndTrainingGoesOnFromTheLastIterate) {
  const Dataset data = regression_data(120);
  auto fit = [&](IterateAveraging averaging, std::vector<double>& precisions) {
    TrainOptions options;
    options.hidden = {8};
    options.epochs = 3;
    options.prior = PriorMode::fixed;
    options.averaging = averaging;
    options.on_epoch = [&](uint32_t, uint32_t, const Model& m) {
      precisions.push_back(total_precision(m));
    };
    return train(data, options);
  };
  std::vector<double> last, averaged;
  const Model off = fit(IterateAveraging::off, last);
  const Model on = fit(IterateAveraging::on, averaged);
  ASSERT_EQ(last.size(), 3u);
  ASSERT_EQ(averaged.size(), 3u);
  for (size_t e = 1; e < 3; ++e) {
    EXPECT_GT(averaged[e], last[e - 1]) << "epoch " << e + 1;
    EXPECT_LT(averaged[e], last[e]) << "epoch " << e + 1;
  }
  EXPECT_EQ(on.noise.a, off.noise.a);
  EXPECT_EQ(on.noise.b, off.noise.b);
  EXPECT_NE(on.layers[0].mean, off.layers[0].mean);
  // The default: the last iterate for regression.
  std::vector<double> unused;
  EXPECT_EQ(fit(IterateAveraging::automatic, unused).layers[0].mean, off.layers[0].mean);
}

}  // namespace
}  // namespace pbp::trainer
