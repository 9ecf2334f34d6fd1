// SPDX-License-Identifier: Apache-2.0
// Every regression line of the trainer's likelihood table (pbp/trainer/likelihood_table.hpp)
// through its blob: the writer stores the line's blob likelihood (pbp/likelihoods.hpp; the
// Gaussian's scaled form for an epistemic scale other than 1), the runtime opens it with that
// likelihood's task and output width and predicts, in float, what the trainer predicts in double
// with the same predictive, and the reader gives the line back and the same bytes again. So a new
// likelihood is checked here by its table lines alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "pbp/likelihoods.hpp"
#include "pbp/pbp.hpp"
#include "pbp/trainer/blob.hpp"
#include "pbp/trainer/likelihood_table.hpp"
#include "random_models.hpp"

namespace {

using pbp::trainer::LikelihoodKind;
using pbp::trainer::Model;

// A random 6-20-k model, k the likelihood's outputs: each row past the first is the first's
// means halved and shifted down by 1 (a log noise variance around e^-1, as the heteroscedastic
// likelihood's second output), its variances halved.
Model model_with_outputs(uint32_t outputs, LikelihoodKind kind, double epistemic_scale) {
  Model model = pbp::test_fixtures::random_model(6, {20}, 9);
  pbp::trainer::Layer& last = model.layers.back();
  const uint32_t row = last.row_length();
  for (uint32_t extra = 1; extra < outputs; ++extra) {
    for (uint32_t k = 0; k < row; ++k) {
      last.mean.push_back(0.5 * last.mean[k] - (k + 1 == row ? 1.0 : 0.0));
      last.variance.push_back(0.5 * last.variance[k]);
    }
  }
  last.outputs = outputs;
  model.likelihood = kind;
  model.epistemic_scale = epistemic_scale;
  return model;
}

template <class Blob>
void check_regression_line(LikelihoodKind kind, const char* name) {
  for (const double scale : {1.0, 1.5}) {
    SCOPED_TRACE(testing::Message() << name << ", epistemic scale " << scale);
    const Model model = model_with_outputs(Blob::kOutputs, kind, scale);
    const std::vector<uint8_t> blob = pbp::trainer::write_blob(model);
    pbp::Model opened;
    ASSERT_EQ(opened.open(blob.data(), blob.size()), PBP_OK);
    const uint32_t id = opened.view().likelihood;
    EXPECT_EQ(id, pbp::trainer::blob_likelihood(kind, pbp::format::Task::regression, scale != 1.0));
    EXPECT_TRUE(id == Blob::kId || scale != 1.0);
    EXPECT_EQ(opened.view().task, PBP_TASK_REGRESSION);
    EXPECT_EQ(opened.view().output_count, Blob::kOutputs);
    EXPECT_EQ(opened.view().epistemic_scale, static_cast<float>(scale));
    std::vector<uint8_t> workspace(opened.workspace_bytes());
    std::mt19937_64 rng(3);
    double smallest = INFINITY, largest = 0.0;
    for (int i = 0; i < 100; ++i) {
      const std::vector<double> x = pbp::test_fixtures::random_row(model, rng);
      const std::vector<float> xf(x.begin(), x.end());
      pbp::Prediction p;
      ASSERT_EQ(opened.predict(xf.data(), 6, 0.9f, workspace.data(), workspace.size(), &p), PBP_OK);
      const pbp::trainer::Prediction ref = pbp::trainer::predict(model, x);
      // The float pass against the double one (agreement_test's bound on the output moments);
      // an exp in a predictive turns an absolute error of its exponent into a relative one.
      EXPECT_NEAR(p.mean, ref.mean, 1e-5 * (std::abs(ref.mean) + std::sqrt(ref.variance())));
      EXPECT_NEAR(p.epistemic_variance, ref.epistemic_variance, 1e-5 * ref.epistemic_variance);
      EXPECT_NEAR(p.aleatoric_variance, ref.aleatoric_variance, 1e-5 * ref.aleatoric_variance);
      EXPECT_FLOAT_EQ(p.std * p.std, p.epistemic_variance + p.aleatoric_variance);
      smallest = std::min(smallest, ref.aleatoric_variance);
      largest = std::max(largest, ref.aleatoric_variance);
    }
    // A second output (the heteroscedastic's log noise) makes the noise vary with the input.
    if (Blob::kOutputs > 1) {
      EXPECT_GT(largest, smallest);
    }
    const Model read = pbp::trainer::read_blob(blob);
    EXPECT_EQ(read.likelihood, kind);
    EXPECT_EQ(pbp::trainer::write_blob(read), blob);
  }
}

TEST(LikelihoodTable, EveryRegressionLineWritesReadsAndPredictsItsBlobLikelihood) {
  int checked = 0;
#define PBP_CHECK_LINE(kind, name, Blob, factory)                   \
  if constexpr (::pbp::Blob::kTask == PBP_TASK_REGRESSION) {        \
    check_regression_line<::pbp::Blob>(LikelihoodKind::kind, name); \
    ++checked;                                                      \
  }
  PBP_TRAINER_LIKELIHOODS(PBP_CHECK_LINE)
#undef PBP_CHECK_LINE
  EXPECT_GE(checked, 2);  // gaussian, heteroscedastic
}

// Each blob likelihood's id is its traits' (pbp.h's names for those it has), read back by the
// trainer's table as the line that writes it.
TEST(LikelihoodTable, EveryBlobLikelihoodMapsBackToATrainerLine) {
#define PBP_CHECK_BLOB(Traits, name, built)                                                  \
  EXPECT_NE(pbp::trainer::trainer_likelihood(::pbp::Traits::kId), LikelihoodKind::automatic) \
      << name;                                                                               \
  EXPECT_STREQ(pbp::likelihood_name(::pbp::Traits::kId), name);
  PBP_LIKELIHOODS(PBP_CHECK_BLOB)
#undef PBP_CHECK_BLOB
  EXPECT_EQ(pbp::GaussianLikelihood::kId, PBP_LIKELIHOOD_GAUSSIAN);
  EXPECT_EQ(pbp::HeteroscedasticLikelihood::kId, PBP_LIKELIHOOD_GAUSSIAN_HETEROSCEDASTIC);
  EXPECT_EQ(pbp::trainer::trainer_likelihood(PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED),
            LikelihoodKind::gaussian);
  EXPECT_EQ(pbp::trainer::trainer_likelihood(PBP_LIKELIHOOD_POISSON),
            LikelihoodKind::negative_binomial);
}

}  // namespace
