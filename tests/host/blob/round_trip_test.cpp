// SPDX-License-Identifier: Apache-2.0
// Writer -> runtime reader round trip: every field of models with 1, 2 and 4 hidden layers comes
// back as written (values rounded to float32 once), metadata included.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pbp/pbp.hpp"
#include "pbp/trainer/blob.hpp"
#include "random_models.hpp"

namespace {

using pbp::trainer::Model;

std::string as_std(pbp_string s) {
  return std::string(s.data ? s.data : "", s.length);
}

void expect_round_trip(const Model& model) {
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(model);
  pbp::Model opened;
  ASSERT_EQ(opened.open(blob.data(), blob.size()), PBP_OK);
  const pbp_model& m = opened.view();
  EXPECT_EQ(m.task, PBP_TASK_REGRESSION);
  EXPECT_EQ(m.blob_size, blob.size());
  EXPECT_EQ(m.input_count, model.input_count());
  EXPECT_EQ(m.output_count, 1u);
  ASSERT_EQ(m.layer_count, model.layers.size());
  uint32_t max_width = 0, weights = 0;
  for (size_t l = 0; l < model.layers.size(); ++l) {
    const pbp::trainer::Layer& layer = model.layers[l];
    EXPECT_EQ(m.layers[l].inputs, layer.inputs);
    EXPECT_EQ(m.layers[l].outputs, layer.outputs);
    EXPECT_EQ(m.layers[l].activation, static_cast<uint32_t>(layer.activation));
    for (size_t i = 0; i < layer.mean.size(); ++i) {
      ASSERT_EQ(m.layers[l].mean[i], static_cast<float>(layer.mean[i]))
          << "layer " << l << " " << i;
      ASSERT_EQ(m.layers[l].variance[i], static_cast<float>(layer.variance[i]));
    }
    max_width = std::max(max_width, layer.outputs);
    weights += static_cast<uint32_t>(layer.mean.size());
  }
  EXPECT_EQ(m.max_width, max_width);
  EXPECT_EQ(m.weight_count, weights);
  EXPECT_EQ(m.workspace_bytes, PBP_WORKSPACE_BYTES(model.input_count(), max_width));
  EXPECT_EQ(m.noise_a, static_cast<float>(model.noise.a));
  EXPECT_EQ(m.noise_b, static_cast<float>(model.noise.b));
  EXPECT_EQ(m.prior_a, static_cast<float>(model.prior.a));
  EXPECT_EQ(m.prior_b, static_cast<float>(model.prior.b));
  const pbp::trainer::Standardisation& s = model.standardisation;
  EXPECT_EQ(m.target_mean, static_cast<float>(s.target_mean));
  EXPECT_EQ(m.target_std, static_cast<float>(s.target_std));
  for (uint32_t k = 0; k < model.input_count(); ++k) {
    EXPECT_EQ(m.input_mean[k], static_cast<float>(s.input_mean[k]));
    EXPECT_EQ(m.input_std[k], static_cast<float>(s.input_std[k]));
  }
  EXPECT_EQ(as_std(m.name), model.metadata.name);
  EXPECT_EQ(as_std(m.target_name), model.metadata.target_name);
  EXPECT_EQ(as_std(m.notes), model.metadata.notes);
  EXPECT_EQ(m.training_rows, model.metadata.training_rows);
  ASSERT_EQ(m.feature_name_count, model.metadata.feature_names.size());
  for (uint32_t k = 0; k < m.feature_name_count; ++k) {
    pbp_string name;
    ASSERT_EQ(opened.feature_name(k, &name), PBP_OK);
    EXPECT_EQ(as_std(name), model.metadata.feature_names[k]);
  }
  pbp_string name;
  EXPECT_EQ(opened.feature_name(m.feature_name_count, &name), PBP_ERR_INDEX_OUT_OF_RANGE);
}

TEST(BlobRoundTrip, OneHiddenLayer) {
  expect_round_trip(pbp::test_fixtures::random_model(4, {7}, 1));
}

TEST(BlobRoundTrip, TwoHiddenLayers) {
  expect_round_trip(pbp::test_fixtures::random_model(13, {50, 20}, 2));
}

TEST(BlobRoundTrip, FourHiddenLayers) {
  expect_round_trip(pbp::test_fixtures::random_model(3, {10, 9, 8, 7}, 3));
}

TEST(BlobRoundTrip, NoMetadata) {
  Model model = pbp::test_fixtures::random_model(2, {3}, 4);
  model.metadata = {};
  expect_round_trip(model);
}

TEST(BlobRoundTrip, NoHiddenLayer) {
  expect_round_trip(pbp::test_fixtures::random_model(5, {}, 5));
}

TEST(BlobWriter, RejectsInconsistentModels) {
  Model model = pbp::test_fixtures::random_model(2, {3}, 6);
  Model bad = model;
  bad.layers[1].inputs = 4;
  EXPECT_THROW(pbp::trainer::write_blob(bad), std::invalid_argument);
  bad = model;
  bad.noise.a = 1.0;
  EXPECT_THROW(pbp::trainer::write_blob(bad), std::invalid_argument);
  bad = model;
  bad.layers[0].mean[0] = 1e300;  // not finite in float32
  EXPECT_THROW(pbp::trainer::write_blob(bad), std::invalid_argument);
  bad = model;
  bad.layers[0].variance[1] = -0.5;
  EXPECT_THROW(pbp::trainer::write_blob(bad), std::invalid_argument);
  bad = model;
  bad.layers[1].activation = pbp::trainer::Activation::relu;
  EXPECT_THROW(pbp::trainer::write_blob(bad), std::invalid_argument);
  bad = model;
  bad.metadata.feature_names.pop_back();
  EXPECT_THROW(pbp::trainer::write_blob(bad), std::invalid_argument);
  bad = model;
  bad.layers.clear();
  EXPECT_THROW(pbp::trainer::write_blob(bad), std::invalid_argument);
}

}  // namespace
