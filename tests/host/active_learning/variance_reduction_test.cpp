// SPDX-License-Identifier: Apache-2.0
// The variance-reduction strategy's pieces: the output sensitivities are the network's weight
// gradients (finite differences), their products the linearised posterior variance (the moment
// pass's, for small weight variances), and the pick is the brute-force maximiser of its score.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "pbp/host/variance_reduction.hpp"
#include "pbp/trainer/random.hpp"

namespace pbp::host {
namespace {

// A ReLU network of `widths` (3 inputs, 1 output) with random weight means, every weight variance
// `variance`, inputs already standardised (mean 0, std 1).
trainer::Model random_model(double variance, uint64_t seed,
                            std::vector<uint32_t> widths = {3, 5, 4, 1},
                            trainer::Activation hidden = trainer::Activation::relu) {
  trainer::Random random(seed);
  trainer::Model model;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    trainer::Layer layer;
    layer.inputs = widths[l];
    layer.outputs = widths[l + 1];
    layer.activation = l + 2 < widths.size() ? hidden : trainer::Activation::linear;
    for (uint32_t w = 0; w < layer.outputs * layer.row_length(); ++w) {
      layer.mean.push_back(1.5 * random.normal());
      layer.variance.push_back(variance);
    }
    model.layers.push_back(layer);
  }
  model.standardisation.input_mean.assign(3, 0.0);
  model.standardisation.input_std.assign(3, 1.0);
  model.noise = {11.0, 1.0};  // noise variance 0.1
  return model;
}

trainer::Dataset random_rows(size_t rows, uint64_t seed) {
  trainer::Random random(seed);
  trainer::Dataset data;
  data.rows = rows;
  data.inputs = 3;
  for (size_t i = 0; i < rows * 3; ++i) data.x.push_back(random.normal());
  data.y.assign(rows, 0.0);
  return data;
}

std::vector<size_t> all_rows(size_t rows) {
  std::vector<size_t> indices(rows);
  for (size_t i = 0; i < rows; ++i) indices[i] = i;
  return indices;
}

TEST(VarianceReduction, SensitivitiesAreTheWeightGradientsTimesTheStd) {
  // Variances of 1e-12 make the moment pass a plain network (ReLU: sd 1e-6, so every unit's
  // Phi(alpha) is 0 or 1 unless its pre-activation is within ~1e-5 of zero, piecewise linear in
  // each weight; erf: erf(a / sqrt 2) to within 1e-12, smooth, so the central difference's
  // truncation is ~step^2 times the third derivative, ~1e-12).
  const double variance = 1e-12, step = 1e-6;
  for (const trainer::Activation hidden : {trainer::Activation::relu, trainer::Activation::erf}) {
    trainer::Model model = random_model(variance, 7, {3, 5, 4, 1}, hidden);
    const trainer::Dataset data = random_rows(4, 8);
    const OutputSensitivities j = output_sensitivities(model, data, all_rows(data.rows));
    ASSERT_EQ(j.weights, 5u * 4u + 4u * 6u + 1u * 5u);
    for (size_t i = 0; i < data.rows; ++i) {
      size_t index = 0;
      for (trainer::Layer& layer : model.layers) {
        for (double& weight : layer.mean) {
          const double saved = weight;
          weight = saved + step;
          const double up = trainer::predict(model, {data.row(i), 3}).mean;
          weight = saved - step;
          const double down = trainer::predict(model, {data.row(i), 3}).mean;
          weight = saved;
          const double gradient = (up - down) / (2 * step);
          // Exact for a linear piece up to the outputs' rounding (~1e-15 of values of order 10,
          // divided by 2 step): 1e-8 leaves room; a wrong chain-rule term is off by O(1).
          EXPECT_NEAR(j.row(i)[index] / std::sqrt(variance), gradient,
                      1e-8 + 1e-9 * std::fabs(gradient))
              << "row " << i << " weight " << index << " activation " << static_cast<int>(hidden);
          ++index;
        }
      }
    }
  }
}

TEST(VarianceReduction, LinearisedVarianceIsTheMomentPassOneForSmallVariances) {
  // One hidden layer (deeper, the moment pass drops the correlation its units share through the
  // layer below; the linearisation keeps it). v_w = 1e-10: the moment pass's output variance is
  // J diag(v) J^T plus terms of relative order v_w (the v_w v_z products), and the units'
  // smoothing where a pre-activation lies within a few of its sd (~1e-5) of zero: none of these
  // 20 rows' units do.
  const trainer::Model model = random_model(1e-10, 9, {3, 8, 1});
  const trainer::Dataset data = random_rows(20, 10);
  const OutputSensitivities j = output_sensitivities(model, data, all_rows(data.rows));
  for (size_t i = 0; i < data.rows; ++i) {
    double linearised = 0.0;
    for (const double value : j.row(i)) linearised += value * value;
    const double moment = trainer::predict(model, {data.row(i), 3}).epistemic_variance;
    EXPECT_NEAR(linearised, moment, 1e-4 * moment) << "row " << i;
  }
}

TEST(VarianceReduction, PicksTheBruteForceMaximiser) {
  for (const uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    const trainer::Model model = random_model(0.05, seed);
    const trainer::Dataset data = random_rows(40, seed + 100);
    std::vector<size_t> pool;
    for (size_t i = 0; i < data.rows; i += 2) pool.push_back(i);  // every other row
    const OutputSensitivities j = output_sensitivities(model, data, pool);
    const double noise = model.noise.variance_estimate();
    size_t best = 0;
    double best_score = -1.0;
    for (size_t c = 0; c < pool.size(); ++c) {
      double reduction = 0.0, own = 0.0;
      for (size_t w = 0; w < j.weights; ++w) own += j.row(c)[w] * j.row(c)[w];
      for (size_t r = 0; r < pool.size(); ++r) {
        double covariance = 0.0;
        for (size_t w = 0; w < j.weights; ++w) covariance += j.row(r)[w] * j.row(c)[w];
        reduction += covariance * covariance;
      }
      const double score = reduction / (own + noise);
      if (score > best_score) {
        best_score = score;
        best = c;
      }
    }
    EXPECT_EQ(largest_variance_reduction(model, data, pool), best) << "seed " << seed;
  }
}

}  // namespace
}  // namespace pbp::host
