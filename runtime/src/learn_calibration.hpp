// SPDX-License-Identifier: Apache-2.0
// Internal to the runtime: the regression learner's running check on its own predictions and the
// prequential re-fit of the epistemic scale and the noise from it (pbp_learn_check in
// pbp_learn.h). Float, source order, no data kept: the same bits on every target.
//
// Why: one pass of ADF narrows the weights with every row while the stored epistemic scale s and
// the noise stay as calibrated for the rows the model was trained on. Each row's prediction
// before it is learnt is an honest held-out test of the current model, so the window of recent
// rows scores candidate predictives N(m, s psi + n). For a ratio rho = s / n the best n is
// closed form, mean(r^2 / (rho psi + 1)), and the window's log-likelihood is then
// -1/2 (mean log(rho psi + 1) + log n + 1) per row: two running sums per candidate ratio.
#pragma once
#include <stdint.h>

#include "pbp/pbp.h"
#include "pbp/pbp_learn.h"

namespace pbp::detail {

// Each row's weight in the window decays by this per later row: about the last 128 rows count.
inline constexpr float kCheckDecay = 127.0f / 128.0f;
// Rows scored before the re-fit replaces the stored scale and noise (the recipe fits them on
// 46 or more held-out rows; fewer than this and the stored calibration is the better guess).
inline constexpr uint32_t kRecalibrationRows = 32;

// Scores a regression row's prediction (standardised residual `residual`, unscaled epistemic
// variance `psi`, both from the model before the row is learnt) into `check`, under the model's
// predictive. A row whose figures are not finite is left out.
void score_row(pbp_learn_check& check, const pbp_model& model, float residual, float psi);

// The noise variance (standardised units) the update's likelihood uses while the re-fit is on:
// once kRecalibrationRows rows are scored, the window's prequential mean squared residual (its
// noise-only candidate), else `adf_noise` (the update's own Gamma). Why: a blob whose calibration
// put its misfit in the epistemic scale has a noise near 0 (the recipe's floor, 1e-10), and ADF
// with that noise treats every row as exact and chases its noise; the rows' own misfit, measured
// before each is learnt, tempers each step as a power-EP fraction would, from the data alone
// (Boston, tools/bench/learn_accuracy.sh: test RMSE 3.94 -> 3.83, RESULTS.md).
float update_noise_variance(const pbp_learn_check& check, float adf_noise);

// The epistemic scale and noise variance (standardised units) that best fit the window, if
// `check` has enough rows and the fit is finite and valid for a blob.
bool refit(const pbp_learn_check& check, float* epistemic_scale, float* noise_variance);

}  // namespace pbp::detail
