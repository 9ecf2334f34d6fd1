// SPDX-License-Identifier: Apache-2.0
// The heteroscedastic likelihood's blob (PBP_LIKELIHOOD_GAUSSIAN_HETEROSCEDASTIC): two outputs and
// the epistemic scale in the model section, predicted by the runtime as by the trainer, read back
// to the same bytes, refused with a wrong output count, and refused by the on-device learner.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "pbp/format.hpp"
#include "pbp/pbp.hpp"
#include "pbp/trainer/blob.hpp"
#include "random_models.hpp"

namespace {

namespace fmt = pbp::format;
using pbp::trainer::Model;

// A random 6-20-20-2 model: the last layer's second row (g, the log noise variance) is the first
// row's weight means doubled and shifted down by 1, so e^g varies with the input around e^-1.
Model heteroscedastic_model(double epistemic_scale) {
  Model model = pbp::test_fixtures::random_model(6, {20, 20}, 9);
  pbp::trainer::Layer& last = model.layers.back();
  const uint32_t row = last.row_length();
  for (uint32_t k = 0; k < row; ++k) {
    last.mean.push_back(2.0 * last.mean[k] - (k + 1 == row ? 1.0 : 0.0));
    last.variance.push_back(0.5 * last.variance[k]);
  }
  last.outputs = 2;
  model.likelihood = pbp::trainer::LikelihoodKind::heteroscedastic;
  model.epistemic_scale = epistemic_scale;
  return model;
}

uint32_t likelihood_field(const std::vector<uint8_t>& blob, pbp::Model& opened) {
  EXPECT_EQ(opened.open(blob.data(), blob.size()), PBP_OK);
  return opened.view().likelihood;
}

TEST(HeteroscedasticBlob, RuntimeAndTrainerPredictAlike) {
  const Model model = heteroscedastic_model(1.5);
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(model);
  pbp::Model opened;
  ASSERT_EQ(likelihood_field(blob, opened), PBP_LIKELIHOOD_GAUSSIAN_HETEROSCEDASTIC);
  EXPECT_EQ(opened.view().task, PBP_TASK_REGRESSION);
  EXPECT_EQ(opened.view().output_count, 2u);
  EXPECT_EQ(opened.view().epistemic_scale, 1.5f);
  std::vector<uint8_t> workspace(opened.workspace_bytes());
  std::mt19937_64 rng(3);
  double smallest = INFINITY, largest = 0.0;
  for (int i = 0; i < 200; ++i) {
    const std::vector<double> x = pbp::test_fixtures::random_row(model, rng);
    const std::vector<float> xf(x.begin(), x.end());
    pbp::Prediction p;
    ASSERT_EQ(opened.predict(xf.data(), 6, 0.9f, workspace.data(), workspace.size(), &p), PBP_OK);
    const pbp::trainer::Prediction ref = pbp::trainer::predict(model, x);
    // The float pass against the double one (agreement_test's bound on the output moments);
    // exp turns nu_g's absolute error into a relative one of the aleatoric variance.
    EXPECT_NEAR(p.mean, ref.mean, 1e-5 * (std::abs(ref.mean) + std::sqrt(ref.variance())));
    EXPECT_NEAR(p.epistemic_variance, ref.epistemic_variance, 1e-5 * ref.epistemic_variance);
    EXPECT_NEAR(p.aleatoric_variance, ref.aleatoric_variance, 1e-5 * ref.aleatoric_variance);
    EXPECT_FLOAT_EQ(p.std * p.std, p.epistemic_variance + p.aleatoric_variance);
    smallest = std::min(smallest, ref.aleatoric_variance);
    largest = std::max(largest, ref.aleatoric_variance);
  }
  EXPECT_GT(largest, smallest);  // the noise varies with the input
}

TEST(HeteroscedasticBlob, ReadsBackAndRewritesTheSameBytes) {
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(heteroscedastic_model(1.0));
  const Model read = pbp::trainer::read_blob(blob);
  EXPECT_EQ(read.likelihood, pbp::trainer::LikelihoodKind::heteroscedastic);
  EXPECT_EQ(pbp::trainer::write_blob(read), blob);
}

TEST(HeteroscedasticBlob, OutputCountMustBeTwo) {
  Model one = pbp::test_fixtures::random_model(6, {20}, 5);
  one.likelihood = pbp::trainer::LikelihoodKind::heteroscedastic;
  EXPECT_THROW(pbp::trainer::write_blob(one), std::invalid_argument);
  Model two = heteroscedastic_model(1.0);
  two.likelihood = pbp::trainer::LikelihoodKind::gaussian;
  EXPECT_THROW(pbp::trainer::write_blob(two), std::invalid_argument);
  // A scaled Gaussian blob (its 36-byte section) relabelled heteroscedastic: one output where the
  // likelihood needs two.
  Model scaled = pbp::test_fixtures::random_model(6, {20}, 5);
  scaled.epistemic_scale = 2.0;
  std::vector<uint8_t> blob = pbp::trainer::write_blob(scaled);
  const uint32_t sections = fmt::load_u32(&blob[fmt::header::kSectionCount]);
  for (uint32_t i = 0; i < sections; ++i) {
    const uint8_t* entry = &blob[fmt::header::kSize + i * fmt::section_entry::kSize];
    if (fmt::load_u32(entry + fmt::section_entry::kType) ==
        static_cast<uint32_t>(fmt::SectionType::model)) {
      const size_t at = fmt::load_u32(entry + fmt::section_entry::kOffset);
      fmt::store_u32(&blob[at + fmt::model_section::kLikelihood],
                     PBP_LIKELIHOOD_GAUSSIAN_HETEROSCEDASTIC);
    }
  }
  const size_t crc_at = blob.size() - fmt::kCrcSize;
  fmt::store_u32(blob.data() + crc_at, fmt::crc32(blob.data(), crc_at));
  pbp::Model opened;
  EXPECT_EQ(opened.open(blob.data(), blob.size()), PBP_ERR_OUTPUT_COUNT);
}

TEST(HeteroscedasticBlob, TheLearnerRefusesIt) {
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(heteroscedastic_model(1.0));
  pbp::Model opened;
  ASSERT_EQ(opened.open(blob.data(), blob.size()), PBP_OK);
  std::vector<float> state(opened.view().weight_count * 2 + 64);
  pbp::Learner learner;
  EXPECT_EQ(learner.init(opened, state.data(), state.size() * sizeof(float)), PBP_ERR_WRONG_TASK);
}

}  // namespace
