// SPDX-License-Identifier: Apache-2.0
// The regression learner's running check and its prequential re-fit (learn_calibration.hpp).
#include "learn_calibration.hpp"

#include "pbp/format.hpp"
#include "pbp/math.hpp"
#include "pbp/outputs.hpp"
#include "pbp/predictive_tail.hpp"

namespace pbp::detail {
namespace {

// Candidate k's ratio rho = s / n: 0 (noise only), then 1/4, 1/2, ..., 2^14 (exact in float).
float candidate_ratio(uint32_t k) {
  if (k == 0) return 0.0f;
  float ratio = 0.25f;
  for (uint32_t i = 1; i < k; ++i) ratio *= 2.0f;
  return ratio;
}

constexpr float kTwoPi = 6.283185307179586476925286766559005768f;
constexpr float kInside95 = 3.84145882069412447f;  // 1.959964^2, the 95 % interval's z^2

}  // namespace

void score_row(pbp_learn_check& check, const pbp_model& model, float residual, float psi) {
  const float r2 = residual * residual;
  const float variance =
      model.epistemic_scale * psi + outputs::gamma_variance(model.noise_a, model.noise_b);
  const float z2 = r2 / variance;
  // The predictive's own density and 95 % interval: a Student-t's (FORMAT.md, section 9), else
  // the Gaussian's as they always were.
  float loglik = -0.5f * (math::log(kTwoPi * variance) + z2);
  float inside_95 = kInside95;
  if (PBP_WITH_PREDICTIVE_TAIL && model.tail_dof != 0u) {
    loglik = outputs::predictive_log_density(z2, model.tail_dof) - 0.5f * math::log(variance);
    const float half_width = outputs::predictive_half_width(0.025f, model.tail_dof);
    inside_95 = half_width * half_width;
  }
  loglik -= math::log(model.target_std);
  if (!math::is_finite(z2) || !math::is_finite(loglik) || !(psi >= 0.0f)) return;
  float residual_sum[PBP_LEARN_CHECK_CANDIDATES], log_spread_sum[PBP_LEARN_CHECK_CANDIDATES];
  for (uint32_t k = 0; k < PBP_LEARN_CHECK_CANDIDATES; ++k) {
    const float spread = candidate_ratio(k) * psi + 1.0f;
    residual_sum[k] = kCheckDecay * check.residual_sum[k] + r2 / spread;
    log_spread_sum[k] = kCheckDecay * check.log_spread_sum[k] + math::log(spread);
    if (!math::is_finite(residual_sum[k]) || !math::is_finite(log_spread_sum[k])) return;
  }
  // Nothing is written until every figure of the row is known to be finite.
  for (uint32_t k = 0; k < PBP_LEARN_CHECK_CANDIDATES; ++k) {
    check.residual_sum[k] = residual_sum[k];
    check.log_spread_sum[k] = log_spread_sum[k];
  }
  check.window = kCheckDecay * check.window + 1.0f;
  // Windowed means: mean += (x - mean) / window is the decayed sum over the decayed weight.
  check.mean_loglik += (loglik - check.mean_loglik) / check.window;
  check.mean_z2 += (z2 - check.mean_z2) / check.window;
  check.inside_95 += ((z2 <= inside_95 ? 1.0f : 0.0f) - check.inside_95) / check.window;
  ++check.rows;
}

float update_noise_variance(const pbp_learn_check& check, float adf_noise) {
  if (check.rows < kRecalibrationRows) return adf_noise;
  // residual_sum[0] is the decayed sum of r^2 (candidate 0: spread 1); finite and >= 0.
  const float mean_square = check.residual_sum[0] / check.window;
  return mean_square > 0.0f && math::is_finite(mean_square) ? mean_square : adf_noise;
}

bool refit(const pbp_learn_check& check, float* epistemic_scale, float* noise_variance) {
  if (check.rows < kRecalibrationRows) return false;
  uint32_t best = PBP_LEARN_CHECK_CANDIDATES;
  float best_score = 0.0f;
  for (uint32_t k = 0; k < PBP_LEARN_CHECK_CANDIDATES; ++k) {
    // -2 / rows x the window's log-likelihood, less constants: the smallest fits best.
    const float score =
        check.log_spread_sum[k] / check.window + math::log(check.residual_sum[k] / check.window);
    if (math::is_finite(score) && (best == PBP_LEARN_CHECK_CANDIDATES || score < best_score)) {
      best = k;
      best_score = score;
    }
  }
  if (best == PBP_LEARN_CHECK_CANDIDATES) return false;
  const float noise = check.residual_sum[best] / check.window;
  float scale = candidate_ratio(best) * noise;
  if (scale < format::model_section::kMinEpistemicScale) {
    scale = format::model_section::kMinEpistemicScale;
  }
  if (scale > format::model_section::kMaxEpistemicScale) {
    scale = format::model_section::kMaxEpistemicScale;
  }
  if (!(noise > 0.0f) || !math::is_finite(noise)) return false;
  *epistemic_scale = scale;
  *noise_variance = noise;
  return true;
}

}  // namespace pbp::detail
