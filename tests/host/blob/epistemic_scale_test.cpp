// SPDX-License-Identifier: Apache-2.0
// A regression model's epistemic scale (the recipe's calibration): written only with the
// likelihood that carries it, applied by the runtime as by the trainer, read back, and refused
// when missing or out of range.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "pbp/format.hpp"
#include "pbp/pbp.hpp"
#include "pbp/trainer/blob.hpp"
#include "random_models.hpp"

namespace {

namespace fmt = pbp::format;
using pbp::trainer::Model;

// Offset and length of the blob's model section, from its section table.
std::pair<size_t, uint32_t> model_section(const std::vector<uint8_t>& blob) {
  const uint32_t sections = fmt::load_u32(&blob[fmt::header::kSectionCount]);
  for (uint32_t i = 0; i < sections; ++i) {
    const uint8_t* entry = &blob[fmt::header::kSize + i * fmt::section_entry::kSize];
    if (fmt::load_u32(entry + fmt::section_entry::kType) ==
        static_cast<uint32_t>(fmt::SectionType::model)) {
      return {fmt::load_u32(entry + fmt::section_entry::kOffset),
              fmt::load_u32(entry + fmt::section_entry::kLength)};
    }
  }
  ADD_FAILURE() << "no model section";
  return {0, 0};
}

pbp_status open_resealed(std::vector<uint8_t>& blob) {
  const size_t crc_at = blob.size() - fmt::kCrcSize;
  fmt::store_u32(blob.data() + crc_at, fmt::crc32(blob.data(), crc_at));
  pbp::Model opened;
  return opened.open(blob.data(), blob.size());
}

Model scaled_model(double scale) {
  Model model = pbp::test_fixtures::random_model(6, {20, 20}, 5);
  model.epistemic_scale = scale;
  return model;
}

TEST(EpistemicScale, OneKeepsThePlainGaussianLayout) {
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(scaled_model(1.0));
  const auto [at, length] = model_section(blob);
  EXPECT_EQ(length, fmt::model_section::kSize);
  EXPECT_EQ(fmt::load_u32(&blob[at + fmt::model_section::kLikelihood]), PBP_LIKELIHOOD_GAUSSIAN);
  pbp::Model opened;
  ASSERT_EQ(opened.open(blob.data(), blob.size()), PBP_OK);
  EXPECT_EQ(opened.view().epistemic_scale, 1.0f);
}

TEST(EpistemicScale, RuntimeAndTrainerApplyIt) {
  const Model plain = scaled_model(1.0), scaled = scaled_model(3.25);
  const std::vector<uint8_t> plain_blob = pbp::trainer::write_blob(plain);
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(scaled);
  EXPECT_EQ(fmt::load_u32(&blob[model_section(blob).first + fmt::model_section::kLikelihood]),
            PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED);
  pbp::Model a, b;
  ASSERT_EQ(a.open(plain_blob.data(), plain_blob.size()), PBP_OK);
  ASSERT_EQ(b.open(blob.data(), blob.size()), PBP_OK);
  EXPECT_EQ(b.view().task, PBP_TASK_REGRESSION);
  EXPECT_EQ(b.view().epistemic_scale, 3.25f);
  std::vector<uint8_t> workspace(b.workspace_bytes());
  std::mt19937_64 rng(7);
  for (int row = 0; row < 200; ++row) {
    const std::vector<double> x = pbp::test_fixtures::random_row(scaled, rng);
    const std::vector<float> xf(x.begin(), x.end());
    pbp::Prediction p, q;
    ASSERT_EQ(a.predict(xf.data(), 6, 0.9f, workspace.data(), workspace.size(), &p), PBP_OK);
    ASSERT_EQ(b.predict(xf.data(), 6, 0.9f, workspace.data(), workspace.size(), &q), PBP_OK);
    EXPECT_EQ(q.mean, p.mean);
    EXPECT_EQ(q.aleatoric_variance, p.aleatoric_variance);
    // 3.25 psi target_std^2 against 3.25 (psi target_std^2): two float roundings apart.
    EXPECT_NEAR(q.epistemic_variance, 3.25f * p.epistemic_variance,
                2.0f * FLT_EPSILON * q.epistemic_variance);
    const pbp::trainer::Prediction plain_ref = pbp::trainer::predict(plain, x);
    const pbp::trainer::Prediction ref = pbp::trainer::predict(scaled, x);
    EXPECT_NEAR(ref.epistemic_variance, 3.25 * plain_ref.epistemic_variance,
                1e-15 * ref.epistemic_variance);
    // The runtime's float pass against the trainer's double (agreement_test's bound).
    EXPECT_NEAR(q.epistemic_variance, ref.epistemic_variance, 1e-5 * ref.epistemic_variance);
  }
}

TEST(EpistemicScale, ReadsBackAndRewritesTheSameBytes) {
  const std::vector<uint8_t> blob = pbp::trainer::write_blob(scaled_model(0.4));
  const Model read = pbp::trainer::read_blob(blob);
  EXPECT_EQ(read.epistemic_scale, static_cast<double>(0.4f));
  EXPECT_EQ(pbp::trainer::write_blob(read), blob);
}

TEST(EpistemicScale, WriterRefusesWhatTheRuntimeWouldRefuse) {
  for (double bad : {0.0, -1.0, 1e-4, 2000.0, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_THROW(pbp::trainer::write_blob(scaled_model(bad)), std::invalid_argument) << bad;
  }
  Model binary = pbp::test_fixtures::random_model(6, {20}, 5);
  binary.task = pbp::trainer::Task::binary;
  binary.epistemic_scale = 2.0;
  EXPECT_THROW(pbp::trainer::write_blob(binary), std::invalid_argument);
}

TEST(EpistemicScale, RuntimeRefusesAMissingOrBadScale) {
  const std::vector<uint8_t> good = pbp::trainer::write_blob(scaled_model(2.0));
  const size_t scale_at = model_section(good).first + fmt::model_section::kEpistemicScale;
  const float bad[] = {0.0f,
                       -2.0f,
                       1.0f / 2048.0f,
                       2048.0f,
                       std::numeric_limits<float>::infinity(),
                       std::numeric_limits<float>::quiet_NaN()};
  for (float value : bad) {
    std::vector<uint8_t> blob = good;
    fmt::store_f32(&blob[scale_at], value);
    EXPECT_EQ(open_resealed(blob), PBP_ERR_BAD_EPISTEMIC_SCALE) << value;
  }
  for (float value : {1.0f / 1024.0f, 1024.0f}) {  // the range's ends are valid
    std::vector<uint8_t> blob = good;
    fmt::store_f32(&blob[scale_at], value);
    EXPECT_EQ(open_resealed(blob), PBP_OK) << value;
  }
  // The plain layout (32-byte model section) with the scaled likelihood: the scale is missing.
  std::vector<uint8_t> plain = pbp::trainer::write_blob(scaled_model(1.0));
  fmt::store_u32(&plain[model_section(plain).first + fmt::model_section::kLikelihood],
                 PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED);
  EXPECT_EQ(open_resealed(plain), PBP_ERR_BAD_EPISTEMIC_SCALE);
}

}  // namespace
