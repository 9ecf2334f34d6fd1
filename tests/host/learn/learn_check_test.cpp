// SPDX-License-Identifier: Apache-2.0
// The learner's running check (pbp_learn_check) and its re-fit of the epistemic scale and noise,
// against the same window recomputed independently in double from each row's prediction before
// it was learnt (pbp_predict on the learner's model, as a device would run it).
//
// Tolerances: the float window is ~100 decayed sums of terms each rounded to 6e-8 relative, and
// the predictions come from pbp_predict (float, ~1.2e-6 relative to the update's own forward
// pass): the window's sums and means agree to 1e-4 relative.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "learn_fixture.hpp"

namespace pbp_learn_test {
namespace {

constexpr double kTolerance = 1e-4;
constexpr double kDecay = 127.0 / 128.0;
constexpr uint32_t kRecalibrationRows = 32;  // learn_calibration.hpp
constexpr uint32_t kCandidates = PBP_LEARN_CHECK_CANDIDATES;

double ratio(uint32_t k) {
  return k == 0 ? 0.0 : std::ldexp(1.0, static_cast<int>(k) - 3);
}

struct Window {
  double weight = 0, z2 = 0, inside = 0, loglik = 0;
  std::vector<double> residual = std::vector<double>(kCandidates, 0.0);
  std::vector<double> log_spread = std::vector<double>(kCandidates, 0.0);
  void add(double r, double psi, double scale, double noise, double target_std) {
    const double v = scale * psi + noise, z = r * r / v;
    weight = kDecay * weight + 1;
    z2 += (z - z2) / weight;
    inside += ((z <= 1.959963984540054 * 1.959963984540054 ? 1.0 : 0.0) - inside) / weight;
    loglik += (-0.5 * (std::log(2 * M_PI * v) + z) - std::log(target_std) - loglik) / weight;
    for (uint32_t k = 0; k < kCandidates; ++k) {
      residual[k] = kDecay * residual[k] + r * r / (ratio(k) * psi + 1);
      log_spread[k] = kDecay * log_spread[k] + std::log(ratio(k) * psi + 1);
    }
  }
};

Model scaled_model(double epistemic_scale) {
  Model model = small_model(Task::regression);
  model.epistemic_scale = epistemic_scale;
  return model;
}

// Row r's inputs into x and the learner's prediction of it, before it is learnt.
bool predict_row(Learner& l, const Dataset& data, uint32_t r, float* x, pbp_prediction* p) {
  for (int k = 0; k < 3; ++k) x[k] = static_cast<float>(data.row(r)[k]);
  return pbp_predict(&l.learner.model, x, 3, 0.95f, l.predict_workspace.data(),
                     l.predict_workspace.size() * 4, p) == PBP_OK;
}

// Learns `rows` rows, mirroring the window in double; checks the check and the re-fit each row.
void learn_and_mirror(Learner& l, const Dataset& data, bool scaled) {
  Window window;
  for (uint32_t r = 0; r < data.rows; ++r) {
    float x[3];
    pbp_prediction p{};
    ASSERT_TRUE(predict_row(l, data, r, x, &p));
    const pbp_model& m = l.learner.model;
    const double ts = m.target_std, scale = m.epistemic_scale;
    const double noise = static_cast<double>(m.noise_b) / (m.noise_a - 1.0);
    const double y = static_cast<float>(data.y[r]);
    window.add((y - p.mean) / ts, p.epistemic_variance / (ts * ts * scale), scale, noise, ts);
    pbp_learn_outcome outcome{};
    ASSERT_EQ(l.update(x, static_cast<float>(y), &outcome), PBP_OK);
    const pbp_learn_check& c = l.learner.check;
    ASSERT_EQ(c.rows, r + 1);
    EXPECT_NEAR(c.window, window.weight, kTolerance * window.weight);
    EXPECT_NEAR(c.mean_z2, window.z2, kTolerance * window.z2);
    EXPECT_NEAR(c.mean_loglik, window.loglik, kTolerance * std::abs(window.loglik));
    EXPECT_NEAR(c.inside_95, window.inside, 1.0 / window.weight);  // one row on the boundary
    for (uint32_t k = 0; k < kCandidates; ++k) {
      EXPECT_NEAR(c.residual_sum[k], window.residual[k], kTolerance * window.residual[k]);
      EXPECT_NEAR(c.log_spread_sum[k], window.log_spread[k],
                  kTolerance * std::abs(window.log_spread[k]) + 1e-6);
    }
    const bool refits = scaled && r + 1 >= kRecalibrationRows;
    ASSERT_EQ(outcome.recalibrated, refits ? 1u : 0u) << "row " << r;
    if (!refits) {
      EXPECT_EQ(m.noise_a, l.learner.update_noise_a);
      EXPECT_EQ(m.noise_b, l.learner.update_noise_b);
      continue;
    }
    // The best candidate by the double window; the device's may differ only in a near-tie.
    std::vector<double> score(kCandidates);
    uint32_t best = 0;
    for (uint32_t k = 0; k < kCandidates; ++k) {
      score[k] =
          window.log_spread[k] / window.weight + std::log(window.residual[k] / window.weight);
      if (score[k] < score[best]) best = k;
    }
    const double fitted = static_cast<double>(m.noise_b) / (m.noise_a - 1.0);
    uint32_t chosen = kCandidates;
    for (uint32_t k = 0; k < kCandidates; ++k) {
      if (std::abs(fitted - window.residual[k] / window.weight) <= kTolerance * fitted + 1e-12) {
        chosen = k;
      }
    }
    ASSERT_LT(chosen, kCandidates) << "row " << r << ": the noise is no candidate's fit";
    EXPECT_LE(score[chosen] - score[best], kTolerance) << "row " << r;
    const double s = std::min(1024.0, std::max(1.0 / 1024, ratio(chosen) * fitted));
    EXPECT_NEAR(m.epistemic_scale, s, kTolerance * s);
    EXPECT_NEAR(m.noise_a, 1.0 + 0.5 * window.weight, kTolerance * m.noise_a);
  }
}

TEST(LearnCheck, ScaledModelRefitsFromItsOwnPredictions) {
  Learner l(write_blob(scaled_model(3.0)));
  ASSERT_EQ(l.learner.recalibrate, 1u);  // the default
  learn_and_mirror(l, synthetic(Task::regression, 300, 11), true);
  // The written blob keeps the re-fitted scale and noise: it predicts as the learner does.
  std::vector<uint32_t> out(l.learner.blob_bytes / 4);
  size_t written = 0;
  ASSERT_EQ(pbp_learn_write_blob(&l.learner, out.data(), out.size() * 4, &written), PBP_OK);
  pbp_model reopened{};
  ASSERT_EQ(pbp_open(&reopened, out.data(), written), PBP_OK);
  EXPECT_EQ(reopened.epistemic_scale, l.learner.model.epistemic_scale);
  EXPECT_EQ(reopened.noise_a, l.learner.model.noise_a);
  EXPECT_EQ(reopened.noise_b, l.learner.model.noise_b);
}

// With the re-fit on, the update's likelihood noise is ADF's Gamma for the first 32 rows, then
// the window's prequential mean squared residual (learn_calibration.hpp): each row's log Z
// (outcome.log_z, standardised) is log N(y | m, psi + that noise), recomputed here in double from
// the prediction before the row and the check before it. With the re-fit off, always ADF's.
void expect_update_noise(Learner& l, const Dataset& data, bool prequential) {
  for (uint32_t r = 0; r < data.rows; ++r) {
    float x[3];
    pbp_prediction p{};
    ASSERT_TRUE(predict_row(l, data, r, x, &p));
    const pbp_model& m = l.learner.model;
    const double ts = m.target_std;
    const double y = (static_cast<float>(data.y[r]) - m.target_mean) / ts;
    const double psi = p.epistemic_variance / (ts * ts * m.epistemic_scale);
    const pbp_learn_check& c = l.learner.check;
    const double noise =
        prequential && c.rows >= kRecalibrationRows
            ? static_cast<double>(c.residual_sum[0]) / c.window
            : static_cast<double>(l.learner.update_noise_b) / (l.learner.update_noise_a - 1.0);
    const double v = psi + noise, d = y - (p.mean - m.target_mean) / ts;
    const double log_z = -0.5 * (std::log(2 * M_PI * v) + d * d / v);
    pbp_learn_outcome outcome{};
    ASSERT_EQ(l.update(x, static_cast<float>(data.y[r]), &outcome), PBP_OK);
    EXPECT_NEAR(outcome.log_z, log_z, kTolerance * (1 + std::abs(log_z))) << "row " << r;
  }
}

TEST(LearnCheck, ScaledModelLearnsWithItsPrequentialNoise) {
  // The recipe's noise floor (1e-10): ADF alone would take every row as exact.
  Model model = scaled_model(3.0);
  model.noise = {51.0, 50.0 * 1e-10};
  const Dataset data = synthetic(Task::regression, 80, 15);
  Learner on(write_blob(model));
  expect_update_noise(on, data, true);
  Learner off(write_blob(model));
  ASSERT_EQ(pbp_learn_set_recalibration(&off.learner, 0u), PBP_OK);
  expect_update_noise(off, data, false);
}

TEST(LearnCheck, UnscaledModelKeepsAdfNoiseAndStillChecks) {
  Learner l(write_blob(small_model(Task::regression)));
  EXPECT_EQ(l.learner.recalibrate, 0u);
  EXPECT_EQ(pbp_learn_set_recalibration(&l.learner, 1u), PBP_ERR_WRONG_TASK);
  EXPECT_EQ(pbp_learn_set_recalibration(&l.learner, 0u), PBP_OK);
  learn_and_mirror(l, synthetic(Task::regression, 80, 12), false);
  EXPECT_EQ(l.learner.model.epistemic_scale, 1.0f);
}

TEST(LearnCheck, ScaledModelWithTheRefitOffKeepsItsScale) {
  Learner l(write_blob(scaled_model(3.0)));
  ASSERT_EQ(pbp_learn_set_recalibration(&l.learner, 0u), PBP_OK);
  learn_and_mirror(l, synthetic(Task::regression, 80, 14), false);
  EXPECT_EQ(l.learner.model.epistemic_scale, 3.0f);
  ASSERT_EQ(pbp_learn_set_recalibration(&l.learner, 1u), PBP_OK);
  EXPECT_EQ(l.learner.recalibrate, 1u);
}

TEST(LearnCheck, BinaryLearnersLeaveTheCheckEmpty) {
  Learner l(write_blob(small_model(Task::binary)));
  const Dataset data = synthetic(Task::binary, 10, 13);
  for (uint32_t r = 0; r < data.rows; ++r) {
    float x[3];
    for (int k = 0; k < 3; ++k) x[k] = static_cast<float>(data.row(r)[k]);
    ASSERT_EQ(l.update(x, static_cast<float>(data.y[r])), PBP_OK);
  }
  EXPECT_EQ(l.learner.check.rows, 0u);
  EXPECT_EQ(l.learner.check.window, 0.0f);
}

}  // namespace
}  // namespace pbp_learn_test
