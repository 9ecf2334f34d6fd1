// SPDX-License-Identifier: Apache-2.0
// SEP (averaged_sites.hpp): the removal of averaged likelihood sites, and what it is for: q
// counts the data once however many epochs run, where ADF counts it once per epoch.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../prior_refinement/prior_test_support.hpp"
#include "pbp/trainer/averaged_sites.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {
namespace {

// A 3-5-2 network with random posteriors, and random prior factors (PriorFactor) for it.
struct Network {
  std::vector<Layer> layers;
  PriorFactors factors;
};

Network random_network(uint64_t seed) {
  Random random(seed);
  Network n;
  const uint32_t widths[] = {3, 5, 2};
  for (size_t l = 0; l < 2; ++l) {
    Layer layer;
    layer.inputs = widths[l];
    layer.outputs = widths[l + 1];
    layer.activation = l == 0 ? pbp::trainer::Activation::relu : pbp::trainer::Activation::linear;
    std::vector<PriorFactor> factors;
    for (uint32_t i = 0; i < layer.outputs * layer.row_length(); ++i) {
      layer.mean.push_back(random.normal());
      layer.variance.push_back(0.05 + random.uniform());
      factors.push_back({random.normal(), 0.2 + random.uniform(), 0.0, 0.0});
    }
    n.layers.push_back(layer);
    n.factors.push_back(factors);
  }
  return n;
}

TEST(AveragedSites, RemovalIsTheConvexCombinationOfNaturalParameters) {
  const Network n = random_network(1);
  for (const double fraction : {0.0, 1e-4, 0.25, 1.0}) {
    AdfWorkspace ws(n.layers);
    remove_averaged_sites(ws, pad_prior_sites(ws, n.factors), fraction);
    std::vector<Layer> out = n.layers;
    ws.store(out);
    for (size_t l = 0; l < out.size(); ++l) {
      for (size_t i = 0; i < out[l].mean.size(); ++i) {
        const double m = n.layers[l].mean[i], v = n.layers[l].variance[i];
        const PriorFactor& f = n.factors[l][i];
        const double precision = (1 - fraction) / v + fraction * f.precision;
        const double mean_times_precision =
            (1 - fraction) * m / v + fraction * f.mean_times_precision;
        EXPECT_NEAR(1 / out[l].variance[i], precision, 1e-12 * precision);
        EXPECT_NEAR(out[l].mean[i], mean_times_precision / precision, 1e-12 * (1 + std::abs(m)));
      }
    }
  }
}

TEST(AveragedSites, PadsKeepTheirMoments) {
  const Network n = random_network(2);
  AdfWorkspace ws(n.layers);
  remove_averaged_sites(ws, pad_prior_sites(ws, n.factors), 0.5);
  size_t pads = 0;
  for (const PaddedLayer& w : ws.weights) {
    for (size_t i = 0; i < w.mean.size(); ++i) {
      const size_t major = i / w.stride, minor = i % w.stride;
      const size_t j = w.input_major ? minor : major, k = w.input_major ? major : minor;
      if (j < w.outputs && k <= w.inputs) continue;
      EXPECT_EQ(w.mean[i], 0.0);
      EXPECT_EQ(w.variance[i], 1.0);
      ++pads;
    }
  }
  EXPECT_GT(pads, 0u);
}

TEST(AveragedSites, GammaRemovalMovesTowardsItsPrior) {
  Gamma posterior{206.0, 31.0};
  remove_averaged_sites(posterior, Gamma{6.0, 6.0}, 0.25);
  EXPECT_DOUBLE_EQ(posterior.a, 0.75 * 206.0 + 0.25 * 6.0);
  EXPECT_DOUBLE_EQ(posterior.b, 0.75 * 31.0 + 0.25 * 6.0);
}

// y = sin(x0) + 0.5 x1 + noise of std 0.3, standard normal inputs.
Dataset regression_data(size_t rows) {
  return test::synthetic(
      5, rows, 2, [](double v, size_t k) { return k == 0 ? std::sin(v) : 0.5 * v; }, 0.3,
      [](double t) { return t; });
}

// The data's share of the weights' precision, summed over the network (prior factor: the
// initial precision (a-1)/b = 5/6 of the fixed prior).
double data_precision(const Model& model) {
  double sum = 0.0;
  for (const Layer& layer : model.layers) {
    for (const double v : layer.variance) sum += 1.0 / v - 5.0 / 6.0;
  }
  return sum;
}

// ADF's precision grows with every epoch (each pass counts the data again); SEP's settles once
// the fit does. From 40 to 80 epochs (200 rows, 1 x 10) ADF's data precision grew 2.5-fold and
// SEP's by 4 %; ADF's noise shape grows by about 95 per epoch, SEP's stays near one epoch's.
TEST(AveragedSites, SepCountsTheDataOnceAdfOncePerEpoch) {
  const Dataset data = regression_data(200);
  auto fit = [&](Inference inference, uint32_t epochs) {
    TrainOptions options;
    options.hidden = {10};
    options.epochs = epochs;
    options.prior = PriorMode::fixed;
    options.inference = inference;
    return train(data, options);
  };
  const Model adf1 = fit(Inference::adf, 1), adf40 = fit(Inference::adf, 40),
              adf80 = fit(Inference::adf, 80);
  const Model sep40 = fit(Inference::sep, 40), sep80 = fit(Inference::sep, 80);
  EXPECT_GT(data_precision(adf80) / data_precision(adf40), 1.8);
  EXPECT_LT(data_precision(sep80) / data_precision(sep40), 1.15);
  EXPECT_GT(data_precision(sep80) / data_precision(sep40), 0.85);
  EXPECT_LT(data_precision(sep80), 0.05 * data_precision(adf80));
  EXPECT_GT(adf80.noise.a, 40.0 * adf1.noise.a);
  EXPECT_LT(sep80.noise.a, 2.0 * adf1.noise.a);
}

TEST(AveragedSites, SepIsDeterministic) {
  const Dataset data = regression_data(50);
  TrainOptions options;
  options.hidden = {8};
  options.epochs = 5;
  options.inference = Inference::sep;
  const Model a = train(data, options), b = train(data, options);
  EXPECT_EQ(a.layers[0].mean, b.layers[0].mean);
  EXPECT_EQ(a.layers[1].variance, b.layers[1].variance);
  EXPECT_EQ(a.noise.a, b.noise.a);
}

TEST(AveragedSites, SepWithEbpIsRefused) {
  TrainOptions options;
  options.algorithm = Algorithm::ebp;
  options.inference = Inference::sep;
  EXPECT_THROW(train(regression_data(10), options), std::invalid_argument);
}

}  // namespace
}  // namespace pbp::trainer
