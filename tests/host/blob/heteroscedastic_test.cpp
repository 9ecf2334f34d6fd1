// SPDX-License-Identifier: Apache-2.0
// The heteroscedastic likelihood's blob (PBP_LIKELIHOOD_GAUSSIAN_HETEROSCEDASTIC): refused with a
// wrong output count, and refused by the on-device learner.
#include <gtest/gtest.h>

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

// Its predictions against the trainer's and its read-back: likelihood_table_test.cpp, as every
// regression likelihood's.

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
