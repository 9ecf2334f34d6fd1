// SPDX-License-Identifier: Apache-2.0
// predict_cost on a bare-metal target (Cortex-M, RV32 under QEMU): runs PREDICT_COST_ITERATIONS
// predictions of one kind (PREDICT_COST_MODE_pbp / _mlp / _mlp8 / _sample), or learning updates
// (_learn, pbp_learn_update on a regression model), over the inputs of the header
// made by `predict_cost header`. predict_cost_targets.sh counts the instructions of the
// 1-iteration and the N-iteration ELF and divides the difference by N - 1: the code is the same,
// only the volatile iteration count differs.
#include <stdio.h>
#include <string.h>

#include "kernels.hpp"
#include "pbp/pbp.h"
#include "pbp/pbp_learn.h"
#include PREDICT_COST_HEADER

namespace {

volatile uint32_t g_iterations = PREDICT_COST_ITERATIONS;
volatile float g_sink;

constexpr uint32_t kMaxWidth = 64;
constexpr uint32_t kMaxWeights = 1024;
#if !defined(PREDICT_COST_MODE_learn)
float g_workspace[PBP_WORKSPACE_BYTES(PREDICT_COST_INPUT_COUNT, kMaxWidth) / sizeof(float) +
                  PREDICT_COST_INPUT_COUNT + 2 * kMaxWidth];
#endif
#if defined(PREDICT_COST_MODE_sample)
float g_sd[kMaxWeights];
#endif
#if defined(PREDICT_COST_MODE_mlp8)
constexpr uint32_t kMaxInt8Rows = 2 * kMaxWidth + 8;  // a 13-50-1 has 51 (16 KB of RAM on the M0)
pbp_bench::Int8MlpRow g_int8_rows[kMaxInt8Rows];
int8_t g_int8_workspace[PREDICT_COST_INPUT_COUNT + 2 * kMaxWidth];
#endif
#if defined(PREDICT_COST_MODE_learn)
// The state takes 8 bytes per weight, fewer than the float32 blob; up to 51 units (13-50-1).
constexpr uint32_t kLearnMaxUnits = 51;
pbp_learner g_learner;
float g_state[PREDICT_COST_BLOB_SIZE / sizeof(float)];
float g_learn_workspace[PBP_LEARN_WORKSPACE_FLOATS(PREDICT_COST_INPUT_COUNT, kLearnMaxUnits)];
#endif

}  // namespace

int main() {
  pbp_model model;
  const pbp_status status = pbp_open(&model, predict_cost_blob, PREDICT_COST_BLOB_SIZE);
  if (status != PBP_OK || model.max_width > kMaxWidth || model.weight_count > kMaxWeights) {
    printf("predict_cost: cannot open the model (%s)\n", pbp_status_name(status));
    return 1;
  }
#if defined(PREDICT_COST_MODE_sample)
  const float* sd[PBP_MAX_LAYERS];
  float* next = g_sd;
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    pbp_bench::prepare_sd(model.layers[l], next);
    sd[l] = next;
    next += model.layers[l].outputs * (model.layers[l].inputs + 1);
  }
  pbp_bench::Rng rng{0x9e3779b9u};
#endif
#if defined(PREDICT_COST_MODE_mlp8)
  pbp_bench::Int8Mlp int8_mlp;
  if (!pbp_bench::prepare_int8_mlp(model, predict_cost_inputs[0], g_int8_rows, kMaxInt8Rows,
                                   g_workspace, int8_mlp)) {
    printf("predict_cost: the int8 MLP needs an int8 blob\n");
    return 1;
  }
#endif
#if defined(PREDICT_COST_MODE_learn)
  if (pbp_learn_init(&g_learner, &model, g_state, sizeof g_state) != PBP_OK ||
      g_learner.workspace_bytes > sizeof g_learn_workspace) {
    return 1;
  }
  // The recipe's models learn with the re-fit on, the default (the update's dearest path once 32
  // rows are in).
  // RAM of learning against the float32 blob (predict_cost_targets.sh reports it).
  printf("learn: blob %u state %u workspace %u learner %u bytes\n",
         static_cast<unsigned>(PREDICT_COST_BLOB_SIZE),
         static_cast<unsigned>(PBP_LEARN_STATE_BYTES(model.weight_count)),
         static_cast<unsigned>(g_learner.workspace_bytes),
         static_cast<unsigned>(sizeof(pbp_learner)));
#endif
  const uint32_t iterations = g_iterations;
  uint32_t row = 0;
  float acc = 0.0f;
  for (uint32_t i = 0; i < iterations; ++i) {
    const float* x = predict_cost_inputs[row];
#if defined(PREDICT_COST_MODE_pbp)
    pbp_prediction p;
    if (pbp_predict(&model, x, PREDICT_COST_INPUT_COUNT, 0.95f, g_workspace, sizeof g_workspace,
                    &p) != PBP_OK) {
      return 1;
    }
    acc += p.std;
#elif defined(PREDICT_COST_MODE_learn)
    // A plausible target in the model's units: the row's updates run the full path.
    const float target =
        model.target_mean + model.target_std * (0.25f * static_cast<float>(row) - 1.0f);
    pbp_learn_outcome outcome;
    if (pbp_learn_update(&g_learner, x, PREDICT_COST_INPUT_COUNT, target, g_learn_workspace,
                         sizeof g_learn_workspace, &outcome) != PBP_OK) {
      return 1;
    }
    acc += outcome.log_z;
#elif defined(PREDICT_COST_MODE_mlp)
    acc += pbp_bench::mlp_forward(model, x, g_workspace);
#elif defined(PREDICT_COST_MODE_mlp8)
    acc += pbp_bench::int8_mlp_forward(int8_mlp, x, g_int8_workspace);
#else
    float mean, std;
    pbp_bench::sampled_prediction(model, sd, x, 30, rng, g_workspace, &mean, &std);
    acc += std;
#endif
    row = row + 1 == PREDICT_COST_ROWS ? 0 : row + 1;
  }
  g_sink = acc;
  printf("predict_cost: %u iterations\n", static_cast<unsigned>(iterations));
  return 0;
}
