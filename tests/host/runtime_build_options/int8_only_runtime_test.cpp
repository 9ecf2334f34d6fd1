// SPDX-License-Identifier: Apache-2.0
// A runtime built with ReLU and int8 weights only (PBP_WITH_FLOAT32=0, PBP_WITH_FLOAT16=0,
// PBP_WITH_INT8=1, PBP_WITH_ERF=0, PBP_WITH_SIGN=0) opens and runs the corpus's int8 model with
// every hidden layer in fixed point, and refuses its float32 and float16 models with
// PBP_ERR_STORAGE_TYPE, its erf and sign ones with PBP_ERR_STORAGE_TYPE or PBP_ERR_ACTIVATION
// (whichever pbp_open meets first), and a learner (float32 weights) with PBP_ERR_STORAGE_TYPE.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "corpus_blob.hpp"
#include "pbp/pbp.h"
#include "pbp/pbp_learn.h"

namespace {

static_assert(PBP_WITH_FLOAT32 == 0 && PBP_WITH_FLOAT16 == 0 && PBP_WITH_INT8 == 1 &&
                  PBP_WITH_ERF == 0 && PBP_WITH_SIGN == 0,
              "this test needs the int8-only build");

TEST(Int8OnlyRuntime, RefusesFloatModels) {
  for (const char* name : {"valid_tiny.pbp", "valid_deep.pbp", "valid_float16.pbp"}) {
    EXPECT_EQ(open_corpus_blob(name), PBP_ERR_STORAGE_TYPE) << name;
  }
  for (const char* name : {"valid_erf.pbp", "valid_sign.pbp"}) {
    const pbp_status status = open_corpus_blob(name);
    EXPECT_TRUE(status == PBP_ERR_STORAGE_TYPE || status == PBP_ERR_ACTIVATION) << name;
  }
}

TEST(Int8OnlyRuntime, RunsInt8ModelsAndRefusesToLearn) {
  const std::vector<uint8_t> blob = corpus_blob("valid_int8.pbp");
  ASSERT_FALSE(blob.empty());
  pbp_model model;
  ASSERT_EQ(pbp_open(&model, blob.data(), blob.size()), PBP_OK);
  ASSERT_EQ(model.task, PBP_TASK_REGRESSION);
  std::vector<float> input(model.input_count, 0.5f);
  std::vector<float> workspace(model.workspace_bytes / sizeof(float) + 1);
  pbp_prediction prediction;
  ASSERT_EQ(pbp_predict(&model, input.data(), model.input_count, 0.95f, workspace.data(),
                        workspace.size() * sizeof(float), &prediction),
            PBP_OK);
  EXPECT_TRUE(std::isfinite(prediction.mean));
  EXPECT_GT(prediction.epistemic_variance, 0.0f);
  std::vector<float> state(PBP_LEARN_STATE_BYTES(model.weight_count) / sizeof(float) + 1);
  pbp_learner learner;
  EXPECT_EQ(pbp_learn_init(&learner, &model, state.data(), state.size() * sizeof(float)),
            PBP_ERR_STORAGE_TYPE);
}

}  // namespace
