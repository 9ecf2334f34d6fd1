// SPDX-License-Identifier: Apache-2.0
// The two baselines pbp_predict is compared with (tools/bench/predict_cost.sh), built with the
// runtime's own flags (pbp_runtime_flags: -ffp-contract=off, same -O level) on the host and on the
// targets. Freestanding: no heap, no libm.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "pbp/pbp.h"

namespace pbp_bench {

// Workspace both baselines need, in floats: the standardised input and two activation buffers.
inline uint32_t baseline_workspace_floats(const pbp_model& model) {
  return model.input_count + 2u * model.max_width;
}

// (b) A plain float MLP forward pass with the weight means, read in place from the blob (same
// row-major [outputs][inputs + 1] layout, bias last), the same input standardisation, the same
// 1/sqrt(n+1) pre-activation scale and output de-standardisation as pbp_predict; ReLU on every
// layer but the last. Returns the prediction in target units.
float mlp_forward(const pbp_model& model, const float* input, float* workspace);

// A cheap PRNG (xorshift32) and an approximately standard normal draw: Irwin-Hall sum of four
// 16-bit uniforms (two xorshift32 outputs), centred and scaled to variance 1.
struct Rng {
  uint32_t state;
};
float normal_draw(Rng& rng);

// (c) Sampling: `samples` forward passes, each with every weight drawn afresh from N(m, v)
// (w = m + sd * normal_draw, sd = sqrt(v) stored per weight like the means: `sd[l]` holds layer
// l's, prepared once by prepare_sd). Returns the sample mean and the sample standard deviation
// (n - 1) of the outputs, in target units. samples in [2, 64].
void sampled_prediction(const pbp_model& model, const float* const* sd, const float* input,
                        uint32_t samples, Rng& rng, float* workspace, float* mean, float* std);

// sd = sqrt(variance) for every weight of layer l into out (outputs * (inputs + 1) floats).
void prepare_sd(const pbp_layer& layer, float* out);

// Pieces of pbp_predict's forward pass, for the per-unit / per-weight breakdown (host only).
void first_linear(const pbp_model& model, const float* x, float* mean, float* var);
void relu_layer(uint32_t count, float* mean, float* var);
void second_linear(const pbp_model& model, const float* mean_in, const float* var_in, float* mean,
                   float* var);

}  // namespace pbp_bench
