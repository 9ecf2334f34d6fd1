// SPDX-License-Identifier: Apache-2.0
// int8 weight storage end to end: the writer's codes and scales (each value within half a step),
// the trainer's reader (exact decoding, so rewriting gives the same bytes), the runtime's
// validation, and its int8 kernel against the trainer's double arithmetic on the decoded weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "opened_blob.hpp"
#include "pbp/format.hpp"
#include "pbp/pbp.h"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/model.hpp"
#include "random_models.hpp"

namespace {

namespace fmt = pbp::format;
using pbp::trainer::Model;
using Bytes = std::vector<uint8_t>;

using pbp_quantisation_test::Opened;

Model as_int8(Model model) {
  model.weight_storage = fmt::Storage::int8;
  return model;
}

// The runtime's prediction of a 5-input model against the trainer's on its decoded weights, on
// 20 inputs x_k = 2 sin(step row + k), within the int8 kernel's bound (the test below).
void expect_predictions_match(const Opened& opened, const Model& decoded, double step) {
  std::vector<float> workspace(opened.model.workspace_bytes / sizeof(float));
  for (int row = 0; row < 20; ++row) {
    std::vector<double> x(5);
    std::vector<float> xf(5);
    for (int k = 0; k < 5; ++k) {
      xf[k] = static_cast<float>(std::sin(step * row + k) * 2.0);
      x[k] = xf[k];
    }
    const pbp::trainer::Prediction expected = pbp::trainer::predict(decoded, x);
    pbp_prediction p;
    ASSERT_EQ(pbp_predict(&opened.model, xf.data(), 5, 0.95f, workspace.data(),
                          workspace.size() * sizeof(float), &p),
              PBP_OK);
    EXPECT_NEAR(p.mean, expected.mean,
                1e-3 * (std::fabs(expected.mean) + std::sqrt(expected.epistemic_variance)));
    EXPECT_NEAR(p.epistemic_variance, expected.epistemic_variance,
                1e-3 * expected.epistemic_variance);
  }
}

TEST(Int8Blob, EveryWeightWithinHalfAStep) {
  const Model model = pbp::test_fixtures::random_model(5, {16, 8}, 3);
  const Bytes blob = pbp::trainer::write_blob(as_int8(model));
  const Opened opened(blob);
  ASSERT_EQ(opened.status, PBP_OK);
  const Model read = pbp::trainer::read_blob(blob);
  EXPECT_EQ(read.weight_storage, fmt::Storage::int8);
  for (size_t l = 0; l < model.layers.size(); ++l) {
    const pbp_layer& layer = opened.model.layers[l];
    ASSERT_EQ(layer.storage, PBP_STORAGE_INT8);
    const auto* means = static_cast<const uint8_t*>(layer.stored_mean);
    const double w = fmt::load_f32(static_cast<const uint8_t*>(layer.stored_variance));
    const size_t row_length = layer.inputs + 1u;
    for (size_t i = 0; i < model.layers[l].mean.size(); ++i) {
      const double s = fmt::load_f32(means + fmt::int8_weights::kScaleSize * (i / row_length));
      EXPECT_LE(std::fabs(read.layers[l].mean[i] - model.layers[l].mean[i]), 0.5 * s) << i;
      // The standard deviation within half a step of sqrt(w), or clamped up to sqrt(w).
      const double sd = std::sqrt(model.layers[l].variance[i]);
      const double read_sd = std::sqrt(read.layers[l].variance[i]);
      if (sd < 0.5 * std::sqrt(w)) {
        EXPECT_EQ(read.layers[l].variance[i], w) << i;
      } else {
        EXPECT_LE(std::fabs(read_sd - sd), 0.5 * std::sqrt(w) * (1 + 1e-6)) << i;
      }
    }
  }
  // Decoding is exact, so the read model writes the same bytes again.
  EXPECT_EQ(pbp::trainer::write_blob(read), blob);
}

TEST(Int8Blob, ZeroRowsAndZeroVariancesGetValidCodes) {
  Model model = pbp::test_fixtures::random_model(3, {4}, 7);
  auto& first = model.layers[0];
  for (uint32_t k = 0; k < first.row_length(); ++k) first.mean[k] = 0.0;  // row 0 all zero
  first.variance[1] = 0.0;
  const Bytes blob = pbp::trainer::write_blob(as_int8(model));
  const Opened opened(blob);
  ASSERT_EQ(opened.status, PBP_OK);
  const auto* means = static_cast<const uint8_t*>(opened.model.layers[0].stored_mean);
  EXPECT_EQ(fmt::load_f32(means), std::numeric_limits<float>::min());
  const Model read = pbp::trainer::read_blob(blob);
  const double w =
      fmt::load_f32(static_cast<const uint8_t*>(opened.model.layers[0].stored_variance));
  EXPECT_EQ(read.layers[0].mean[0], 0.0);
  EXPECT_EQ(read.layers[0].variance[1], w);  // never a certain weight
  EXPECT_GT(w, 0.0);
}

// The runtime's int8 prediction against the trainer's double prediction on the decoded weights,
// a 5-16-8-1 network. The int8 kernel rounds each layer's unit moments to int16 codes, each
// within 2^-15 of its vector's largest, so a layer's sums move by at most (n + 1) 2^-15 of their
// largest term: over the three layers (6 + 17 + 9 terms) about 1e-3 of the output's scale
// (|mean| + sd, and of the variance); float rounding (~1e-6) is lost in it.
TEST(Int8Blob, PredictionsMatchTheTrainerOnTheDecodedWeights) {
  const Model model = pbp::test_fixtures::random_model(5, {16, 8}, 11);
  const Bytes blob = pbp::trainer::write_blob(as_int8(model));
  const Model decoded = pbp::trainer::read_blob(blob);
  const Opened opened(blob);
  ASSERT_EQ(opened.status, PBP_OK);
  expect_predictions_match(opened, decoded, 1.7);
}

// Layers of one blob in different storage types (an int8 model's float16 fallback layers): each
// layer stored and validated in its own, read back per layer with the coarsest as the model's,
// rewritten to the same bytes, and predicted as the trainer predicts from the decoded weights
// (only the int8 layer's codes round: within the bound of the test above).
TEST(Int8Blob, LayersOfDifferentStorage) {
  Model model = pbp::test_fixtures::random_model(5, {16, 8}, 11);
  model.weight_storage = fmt::Storage::int8;
  model.layer_storage = {fmt::Storage::float16, fmt::Storage::int8, fmt::Storage::float32};
  const Bytes blob = pbp::trainer::write_blob(model);
  const Opened opened(blob);
  ASSERT_EQ(opened.status, PBP_OK);
  EXPECT_EQ(opened.model.layers[0].storage, PBP_STORAGE_FLOAT16);
  EXPECT_EQ(opened.model.layers[1].storage, PBP_STORAGE_INT8);
  EXPECT_EQ(opened.model.layers[2].storage, PBP_STORAGE_FLOAT32);
  const Model decoded = pbp::trainer::read_blob(blob);
  EXPECT_EQ(decoded.weight_storage, fmt::Storage::int8);
  EXPECT_EQ(decoded.layer_storage, model.layer_storage);
  EXPECT_EQ(pbp::trainer::write_blob(decoded), blob);
  for (size_t i = 0; i < model.layers[2].mean.size(); ++i) {  // float32: exact
    EXPECT_EQ(decoded.layers[2].mean[i], static_cast<float>(model.layers[2].mean[i]));
  }
  expect_predictions_match(opened, decoded, 1.3);
  // One storage per layer or none: any other count is the caller's mistake.
  model.layer_storage.pop_back();
  EXPECT_THROW(pbp::trainer::write_blob(model), std::invalid_argument);
  // Layers that agree read back as one storage.
  model.layer_storage = {fmt::Storage::float16, fmt::Storage::float16, fmt::Storage::float16};
  const Model uniform = pbp::trainer::read_blob(pbp::trainer::write_blob(model));
  EXPECT_EQ(uniform.weight_storage, fmt::Storage::float16);
  EXPECT_TRUE(uniform.layer_storage.empty());
}

// Storage type 4: a layer whose variances span 40 binades (beyond the square-root codes' 16) keeps
// each within half a logarithmic step of its value (the widest step, 140 / 128, gives 4.6 %),
// those below t at t, the largest at the top code; rewriting the read model gives the same bytes.
TEST(Int8Blob, LogarithmicVarianceCodesWithinHalfAStep) {
  Model model = pbp::test_fixtures::random_model(5, {16, 8}, 5);
  for (auto& layer : model.layers) {
    for (size_t i = 0; i < layer.variance.size(); ++i) {
      layer.variance[i] *= std::ldexp(1.0, -static_cast<int>(i % 41));
    }
  }
  model.weight_storage = fmt::Storage::int8_log_variance;
  const Bytes blob = pbp::trainer::write_blob(model);
  const Opened opened(blob);
  ASSERT_EQ(opened.status, PBP_OK);
  const Model read = pbp::trainer::read_blob(blob);
  EXPECT_EQ(read.weight_storage, fmt::Storage::int8);  // both int8 types count as int8
  ASSERT_EQ(read.layer_storage.size(), model.layers.size());
  const double half_step = 0.5 * std::log(140.0 / 128.0);
  for (size_t l = 0; l < model.layers.size(); ++l) {
    EXPECT_EQ(read.layer_storage[l], fmt::Storage::int8_log_variance);
    ASSERT_EQ(opened.model.layers[l].storage, PBP_STORAGE_INT8_LOG_VARIANCE);
    const float t =
        fmt::load_f32(static_cast<const uint8_t*>(opened.model.layers[l].stored_variance));
    const std::vector<double>& v = model.layers[l].variance;
    const size_t top = static_cast<size_t>(std::max_element(v.begin(), v.end()) - v.begin());
    EXPECT_NEAR(read.layers[l].variance[top] / v[top], 1.0, 1e-6);  // t rounded to float
    for (size_t i = 0; i < v.size(); ++i) {
      const double r = read.layers[l].variance[i];
      if (v[i] <= t) {
        EXPECT_EQ(r, t) << i;
      } else {
        EXPECT_LE(std::fabs(std::log(r / v[i])), half_step * (1 + 1e-9)) << i;
      }
    }
  }
  EXPECT_EQ(pbp::trainer::write_blob(read), blob);
}

// The three int8 storages of one model side by side, as --fallback leaves them; predicted within
// the int8 kernel's bound (PredictionsMatchTheTrainerOnTheDecodedWeights: the activations' codes
// are the only rounding, the same for both variance codes).
TEST(Int8Blob, LogarithmicVarianceLayerBesideTheOthers) {
  Model model = pbp::test_fixtures::random_model(5, {16, 8}, 13);
  model.weight_storage = fmt::Storage::int8;
  model.layer_storage = {fmt::Storage::int8, fmt::Storage::int8_log_variance,
                         fmt::Storage::float16};
  const Bytes blob = pbp::trainer::write_blob(model);
  const Opened opened(blob);
  ASSERT_EQ(opened.status, PBP_OK);
  EXPECT_EQ(opened.model.layers[1].storage, PBP_STORAGE_INT8_LOG_VARIANCE);
  const Model decoded = pbp::trainer::read_blob(blob);
  EXPECT_EQ(decoded.weight_storage, fmt::Storage::int8);
  EXPECT_EQ(decoded.layer_storage, model.layer_storage);
  EXPECT_EQ(pbp::trainer::write_blob(decoded), blob);
  expect_predictions_match(opened, decoded, 1.1);
  // a variance beyond what t may scale (t < 2^95: the top code's variance below 1.56e38) is
  // refused, not written
  model.layers[1].variance[0] = 3e38;
  EXPECT_THROW(pbp::trainer::write_blob(model), std::invalid_argument);
}

}  // namespace
