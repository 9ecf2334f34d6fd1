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

namespace pbp_bench {

// (b8) A plain int8 MLP of the same shape, written the way CMSIS-NN writes one
// (arm_fully_connected_s8 over arm_nn_vec_mat_mult_t_s8): the int8 blob's mean codes as the
// weights with their per-row scales, int8 activations with one scale per layer, int32 sums by
// SMLAD on SXTB16-packed int16 pairs (a plain loop on cores without the DSP instructions), the
// bias in the sums' units, each row requantised by a fixed-point multiplier and shift, ReLU as the
// clamp at 0; the last layer's sums scaled to float. The multipliers, shifts and biases are fixed
// once (prepare_int8_mlp), from activation scales calibrated on one input, as a deployment fixes
// them offline. For int8 blobs (storage type 3) only.
struct Int8MlpRow {
  int32_t bias;        // in units of the row's sums
  int32_t multiplier;  // Q31, in [2^30, 2^31)
  int32_t shift;       // right shift after the Q31 product, >= 0
  float scale;         // the last layer: its sums to the standardised output
};
struct Int8Mlp {
  const pbp_model* model;
  const Int8MlpRow* rows;  // every layer's, in order
  float input_scale;       // 1 / the standardised input's step
};
// False where the blob is not int8 throughout or `row_capacity` is below its rows.
bool prepare_int8_mlp(const pbp_model& model, const float* calibration_input, Int8MlpRow* rows,
                      uint32_t row_capacity, float* workspace, Int8Mlp& mlp);
// The prediction in target units; workspace: input_count + 2 max_width bytes.
float int8_mlp_forward(const Int8Mlp& mlp, const float* input, int8_t* workspace);

}  // namespace pbp_bench
