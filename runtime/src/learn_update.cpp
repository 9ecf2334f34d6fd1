// SPDX-License-Identifier: Apache-2.0
// pbp_learn_update: one PBP update in float over the learner's state (network_update.hpp and the
// rest of runtime/core/pbp/learn/: the trainer's equations), all or nothing.
#include "learn_calibration.hpp"
#include "learn_state.hpp"
#include "pbp/learn/gamma_update.hpp"
#include "pbp/learn/likelihood_gradients.hpp"
#include "pbp/learn/network_update.hpp"
#include "pbp/outputs.hpp"

namespace pbp::detail {
namespace {

pbp_status check_update_arguments(const pbp_learner* learner, const float* input,
                                  uint32_t input_count, float target, const void* workspace,
                                  size_t workspace_bytes) {
  if (learner == nullptr || input == nullptr || workspace == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (learner->learn_marker != kLearnMarker) return PBP_ERR_MODEL_NOT_OPEN;
  if (input_count != learner->model.input_count) return PBP_ERR_INPUT_WIDTH;
  for (uint32_t i = 0; i < input_count; ++i) {
    if (!math::is_finite(input[i])) return PBP_ERR_NONFINITE_INPUT;
  }
  if (!math::is_finite(target)) return PBP_ERR_BAD_TARGET;
  if (learner->model.task == PBP_TASK_BINARY && target != 0.0f && target != 1.0f) {
    return PBP_ERR_BAD_TARGET;
  }
  if (reinterpret_cast<uintptr_t>(workspace) % alignof(float) != 0) {
    return PBP_ERR_MISALIGNED_POINTER;
  }
  if (workspace_bytes < learner->workspace_bytes) return PBP_ERR_WORKSPACE_TOO_SMALL;
  return PBP_OK;
}

}  // namespace
}  // namespace pbp::detail

extern "C" pbp_status pbp_learn_update(pbp_learner* learner, const float* input,
                                       uint32_t input_count, float target, void* workspace,
                                       size_t workspace_bytes, pbp_learn_outcome* outcome) {
  using namespace pbp;
  const pbp_status status = detail::check_update_arguments(learner, input, input_count, target,
                                                           workspace, workspace_bytes);
  if (status != PBP_OK) return status;
  pbp_model& model = learner->model;
  // The layers as the update changes them: the learner's own state (the model's views of it are
  // const for pbp_predict's sake).
  learn::MutableLayer<float> layers[PBP_MAX_LAYERS];
  for (uint32_t l = 0; l < model.layer_count; ++l) {
    const pbp_layer& layer = model.layers[l];
    layers[l] = {const_cast<float*>(layer.mean), const_cast<float*>(layer.variance), layer.inputs,
                 layer.outputs, layer.activation};
  }
  float* work = static_cast<float*>(workspace);
  for (uint32_t i = 0; i < model.input_count; ++i) {
    work[i] = (input[i] - model.input_mean[i]) / model.input_std[i];
  }
  const learn::UnitArrays<float> out =
      learn::forward_with_intermediates(layers, model.layer_count, work);
  const float m = out.a_mean[0], v = out.a_var[0];
  // log Z and its gradients at the output (regression: the target standardised as in training,
  // the noise variance b/(a-1) as the trainer's Student-t approximation; with the re-fit on,
  // the window's prequential misfit once it has enough rows: learn_calibration.hpp).
  const bool regression = model.task == PBP_TASK_REGRESSION;
  const float y = regression ? (target - model.target_mean) / model.target_std : target;
  float likelihood_noise = 0.0f;
  if (regression) {
    likelihood_noise = outputs::gamma_variance(learner->update_noise_a, learner->update_noise_b);
    if (learner->recalibrate != 0u) {
      likelihood_noise = detail::update_noise_variance(learner->check, likelihood_noise);
    }
  }
  const learn::LogZ<float> lz = regression ? learn::gaussian_log_z(y, m, v + likelihood_noise)
                                           : learn::probit_log_z(target == 1.0f, m, v);
  out.grad_mean[0] = lz.d_mean;
  out.grad_var[0] = lz.d_variance;
  // Every gradient before anything changes: an overflow anywhere leaves the learner as it was.
  if (!math::is_finite(m) || !math::is_finite(v) || !math::is_finite(lz.d_mean) ||
      !math::is_finite(lz.d_variance) ||
      !learn::backward_gradients(layers, model.layer_count, work)) {
    return PBP_ERR_NONFINITE_OUTPUT;
  }
  pbp_learn_outcome result{lz.value, learn::update_weights(layers, model.layer_count, work), 0u,
                           0u};
  if (regression) {  // eqs. 9-10 with the output moments the update used, as the trainer
    const learn::EvidenceRatios<float> z =
        learn::gaussian_evidence_ratios(y, m, v, learner->update_noise_a, learner->update_noise_b);
    learn::GammaParameters<float> next{};
    // Only a Gamma with a > 1, which a blob requires (b/(a-1) is the noise variance).
    if (learn::gamma_update<float>({learner->update_noise_a, learner->update_noise_b}, z.z1_over_z,
                                   z.rho_minus_one, &next) &&
        next.a > 1.0f) {
      learner->update_noise_a = next.a;
      learner->update_noise_b = next.b;
      result.noise_updated = 1u;
    }
    // The check scores the prediction the row met: the model before this update.
    detail::score_row(learner->check, model, y - m, v);
    float scale = 0.0f, noise = 0.0f;
    if (learner->recalibrate != 0u && detail::refit(learner->check, &scale, &noise) &&
        noise * 0.5f * learner->check.window > 0.0f) {
      // The window's fit is the predictive: a Gamma whose b / (a - 1) is the fitted variance,
      // as sure as the window's rows (as the recipe's calibrated Gamma).
      model.epistemic_scale = scale;
      model.noise_a = 1.0f + 0.5f * learner->check.window;
      model.noise_b = noise * 0.5f * learner->check.window;
      result.recalibrated = 1u;
    } else {
      model.noise_a = learner->update_noise_a;
      model.noise_b = learner->update_noise_b;
    }
  }
  ++learner->updates;
  if (outcome != nullptr) *outcome = result;
  return PBP_OK;
}

extern "C" pbp_status pbp_learn_set_recalibration(pbp_learner* learner, uint32_t enabled) {
  if (learner == nullptr) return PBP_ERR_NULL_ARGUMENT;
  if (learner->learn_marker != pbp::detail::kLearnMarker) return PBP_ERR_MODEL_NOT_OPEN;
  if (enabled != 0u && learner->model.likelihood != PBP_LIKELIHOOD_GAUSSIAN_EPISTEMIC_SCALED) {
    return PBP_ERR_WRONG_TASK;
  }
  learner->recalibrate = enabled != 0u ? 1u : 0u;
  return PBP_OK;
}
