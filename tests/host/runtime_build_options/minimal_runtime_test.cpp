// SPDX-License-Identifier: Apache-2.0
// A runtime built with ReLU, float32 and the always-built likelihoods only (PBP_WITH_ERF=0,
// PBP_WITH_SIGN=0, PBP_WITH_FLOAT16=0, PBP_WITH_INT8=0, PBP_WITH_HETEROSCEDASTIC=0,
// PBP_WITH_DATA_DISTANCE=0, PBP_WITH_PREDICTIVE_TAIL=0) opens and runs the corpus's ReLU float32
// models, and refuses its erf and sign models with PBP_ERR_ACTIVATION, its float16 and int8 ones
// with PBP_ERR_STORAGE_TYPE, a heteroscedastic one with PBP_ERR_UNSUPPORTED_TASK and one with the
// distance variance or a Student-t predictive with PBP_ERR_UNKNOWN_REQUIRED_SECTION: it never
// misreads them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "corpus_blob.hpp"
#include "golden_vectors.h"
#include "pbp/pbp.h"

namespace {

static_assert(PBP_WITH_ERF == 0 && PBP_WITH_SIGN == 0 && PBP_WITH_FLOAT16 == 0 &&
                  PBP_WITH_INT8 == 0 && PBP_WITH_HETEROSCEDASTIC == 0 &&
                  PBP_WITH_DATA_DISTANCE == 0 && PBP_WITH_PREDICTIVE_TAIL == 0,
              "this test needs the minimal build");

TEST(MinimalRuntime, RefusesErfAndSignModels) {
  for (const char* name : {"valid_erf.pbp", "valid_sign.pbp"}) {
    EXPECT_EQ(open_corpus_blob(name), PBP_ERR_ACTIVATION) << name;
  }
}

TEST(MinimalRuntime, RefusesFloat16AndInt8Models) {
  for (const char* name : {"valid_float16.pbp", "valid_int8.pbp"}) {
    EXPECT_EQ(open_corpus_blob(name), PBP_ERR_STORAGE_TYPE) << name;
  }
}

TEST(MinimalRuntime, RefusesHeteroscedasticModels) {
  // The golden 3-8-2 heteroscedastic model (ReLU, float32): only its likelihood is left out.
  pbp_model model;
  EXPECT_EQ(pbp_open(&model, pbp_golden_blob_13, sizeof pbp_golden_blob_13),
            PBP_ERR_UNSUPPORTED_TASK);
}

TEST(MinimalRuntime, RefusesDistanceVarianceModels) {
  EXPECT_EQ(open_corpus_blob("valid_distance_variance.pbp"), PBP_ERR_UNKNOWN_REQUIRED_SECTION);
  EXPECT_EQ(open_corpus_blob("valid_pair_variance.pbp"), PBP_ERR_UNKNOWN_REQUIRED_SECTION);
}

TEST(MinimalRuntime, RefusesStudentTModels) {
  EXPECT_EQ(open_corpus_blob("valid_predictive_tail.pbp"), PBP_ERR_UNKNOWN_REQUIRED_SECTION);
}

TEST(MinimalRuntime, RunsReluModels) {
  for (const char* name : {"valid_tiny.pbp", "valid_deep.pbp", "valid_epistemic_scaled.pbp"}) {
    const std::vector<uint8_t> blob = corpus_blob(name);
    ASSERT_FALSE(blob.empty()) << name;
    pbp_model model;
    ASSERT_EQ(pbp_open(&model, blob.data(), blob.size()), PBP_OK) << name;
    std::vector<float> input(model.input_count, 0.5f);
    ASSERT_EQ(model.task, PBP_TASK_REGRESSION) << name;
    std::vector<float> workspace(model.workspace_bytes / sizeof(float) + 1);
    pbp_prediction prediction;
    ASSERT_EQ(pbp_predict(&model, input.data(), model.input_count, 0.95f, workspace.data(),
                          workspace.size() * sizeof(float), &prediction),
              PBP_OK)
        << name;
    EXPECT_TRUE(std::isfinite(prediction.mean)) << name;
    EXPECT_GT(prediction.epistemic_variance, 0.0f) << name;
  }
}

}  // namespace
