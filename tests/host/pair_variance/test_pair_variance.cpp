// SPDX-License-Identifier: Apache-2.0
// The pair variance in the trainer (distance_variance.hpp): what a fit stores, what predict adds,
// and the same term through the blob and the runtime (FORMAT.md, section 8).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "pbp/pbp.h"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/distance_variance.hpp"
#include "pbp/trainer/random.hpp"
#include "pbp/trainer/train.hpp"

namespace pbp::trainer {
namespace {

// Two inputs on [0, 1] with no row where both exceed 0.5: each value occurs, that corner's
// combinations do not. y = x0 + x1 plus a little noise.
Dataset rows_without_a_corner(size_t inputs = 2) {
  Random random(5);
  Dataset data;
  data.inputs = inputs;
  while (data.rows < 200) {
    std::vector<double> x(inputs);
    for (double& v : x) v = random.uniform();
    if (x[0] > 0.5 && x[1] > 0.5) continue;
    data.x.insert(data.x.end(), x.begin(), x.end());
    data.y.push_back(x[0] + x[1] + 0.05 * random.normal());
    ++data.rows;
  }
  return data;
}

Model small_model(const Dataset& data) {
  TrainOptions options;
  options.hidden = {8};
  options.epochs = 5;
  return train(data, options);
}

TEST(PairVariance, FitsTwoToThirtyTwoInputs) {
  EXPECT_FALSE(pair_variance_fits(1));
  EXPECT_TRUE(pair_variance_fits(2));
  EXPECT_TRUE(pair_variance_fits(32));
  EXPECT_FALSE(pair_variance_fits(33));
}

TEST(PairVariance, StoredOnlyWhenFittedAboveZeroAndTheInputsFit) {
  const Dataset data = rows_without_a_corner();
  const Model trained = small_model(data);
  Model none = trained;
  set_distance_variance(none, data, DistanceScaleFit{});
  EXPECT_TRUE(none.input_occupancy.empty());
  EXPECT_TRUE(none.pair_occupancy.empty());
  Model pairs = trained;
  set_distance_variance(pairs, data, DistanceScaleFit{0.0, 2.0});
  EXPECT_TRUE(pairs.input_occupancy.empty());
  EXPECT_EQ(pairs.pair_scale, 2.0);
  EXPECT_EQ(pairs.pair_occupancy, input_pair_occupancy(data, pairs.standardisation));
  EXPECT_EQ(pairs.pair_occupancy.size(), format::input_pair_occupancy_section::kWordsPerPair);

  const Dataset wide = rows_without_a_corner(33);
  Model wide_model = small_model(wide);
  set_distance_variance(wide_model, wide, DistanceScaleFit{0.5, 2.0});
  EXPECT_FALSE(wide_model.input_occupancy.empty());
  EXPECT_TRUE(wide_model.pair_occupancy.empty());  // 528 pairs: left out
}

TEST(PairVariance, AddsTheScaledNoveltySquaredInTheTrainerAndTheRuntime) {
  const Dataset data = rows_without_a_corner();
  const Model trained = small_model(data);
  Model pairs = trained;
  set_distance_variance(pairs, data, DistanceScaleFit{0.0, 2.0});
  const double ts = trained.standardisation.target_std;
  const double term = (2.0 * ts) * (2.0 * ts);  // f = 1: the only pair unseen

  const std::vector<double> corner = {0.9, 0.9};
  const std::vector<double> seen(data.row(0), data.row(0) + 2);
  EXPECT_DOUBLE_EQ(predict(pairs, corner).epistemic_variance,
                   predict(trained, corner).epistemic_variance + term);
  EXPECT_EQ(predict(pairs, seen).epistemic_variance, predict(trained, seen).epistemic_variance);

  // The runtime: the same network's float variance plus fl((A2 fl(ts) f)^2), one rounding each
  // for the product, the square and the sum.
  std::vector<std::vector<uint32_t>> aligned;
  float epistemic[2];
  int k = 0;
  const Model& with_pairs = pairs;
  for (const Model* model : {&trained, &with_pairs}) {
    const std::vector<uint8_t> blob = write_blob(*model);
    aligned.emplace_back((blob.size() + 3) / 4);
    std::memcpy(aligned.back().data(), blob.data(), blob.size());
    pbp_model opened;
    ASSERT_EQ(pbp_open(&opened, aligned.back().data(), blob.size()), PBP_OK);
    std::vector<float> workspace(opened.workspace_bytes / 4);
    const float x[2] = {0.9f, 0.9f};
    pbp_prediction p;
    ASSERT_EQ(pbp_predict(&opened, x, 2, 0.95f, workspace.data(), opened.workspace_bytes, &p),
              PBP_OK);
    epistemic[k++] = p.epistemic_variance;
  }
  const double float_term = static_cast<double>(epistemic[1]) - epistemic[0];
  EXPECT_NEAR(float_term, term, 4 * 0x1p-24 * (epistemic[1] + term));
}

}  // namespace
}  // namespace pbp::trainer
