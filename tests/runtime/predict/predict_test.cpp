// SPDX-License-Identifier: Apache-2.0
// Predictions of the tiny blob: agreement with the trainer's double-precision predict (values
// committed in tiny_blob.h), the interval, the workspace bound, and the C++ API.
#include <string.h>

#include "harness.hpp"
#include "pbp/math.hpp"
#include "pbp/pbp.hpp"
#include "tiny_blob.h"

namespace {

bool close_relative(double actual, double expected, double tolerance) {
  const double difference = actual > expected ? actual - expected : expected - actual;
  const double scale = expected < 0 ? -expected : expected;
  return difference <= tolerance * scale;
}

pbp::Model open_tiny() {
  pbp::Model model;
  PBP_CHECK_EQ(model.open(pbp_tiny_blob, PBP_TINY_BLOB_SIZE), PBP_OK);
  return model;
}

}  // namespace

PBP_TEST(agrees_with_trainer_predict) {
  const pbp::Model model = open_tiny();
  pbp::Workspace<2, 3> workspace;
  for (uint32_t row = 0; row < PBP_TINY_ROW_COUNT; ++row) {
    pbp::Prediction p;
    PBP_CHECK_EQ(model.predict(pbp_tiny_rows[row], 2, 0.9f, workspace, &p), PBP_OK);
    const double* expected = pbp_tiny_expected[row];
    const double variance = expected[1] + expected[2];
    PBP_CHECK(close_relative(p.mean, expected[0], 1e-5));
    PBP_CHECK(close_relative(p.epistemic_variance, expected[1], 1e-5));
    PBP_CHECK(close_relative(p.aleatoric_variance, expected[2], 1e-5));
    PBP_CHECK(close_relative(static_cast<double>(p.std) * p.std, variance, 1e-5));
  }
}

PBP_TEST(aleatoric_variance_is_noise_gamma_times_target_variance) {
  const pbp::Model model = open_tiny();
  const pbp_model& m = model.view();
  pbp::Workspace<2, 3> workspace;
  pbp::Prediction p;
  PBP_CHECK_EQ(model.predict(pbp_tiny_rows[0], 2, 0.5f, workspace, &p), PBP_OK);
  // tiny_model(): noise Gamma (6.5, 3.25), target std 4: 3.25 / 5.5 * 16.
  PBP_CHECK(close_relative(p.aleatoric_variance, 3.25 / 5.5 * 16.0, 1e-6));
  PBP_CHECK_EQ(p.aleatoric_variance,
               m.noise_b / (m.noise_a - 1.0f) * (m.target_std * m.target_std));
}

PBP_TEST(central_interval) {
  const pbp::Model model = open_tiny();
  pbp::Workspace<2, 3> workspace;
  struct Case {
    float probability;
    double z;  // Phi^-1((1 + p) / 2)
  };
  const Case cases[] = {{0.5f, 0.67448975019608171},
                        {0.9f, 1.6448536269514722},
                        {0.95f, 1.959963984540054},
                        {0.999f, 3.2905267314919255},
                        {0.001f, 0.0012533143720775483}};
  for (const Case& c : cases) {
    pbp::Prediction p;
    PBP_CHECK_EQ(model.predict(pbp_tiny_rows[2], 2, c.probability, workspace, &p), PBP_OK);
    // upper - mean loses the bits of mean that upper rounds away: allow 1e-6 of |mean| too.
    const double half_width = c.z * p.std;
    const double slack = 1e-5 * half_width + 1e-6 * (p.mean < 0 ? -p.mean : p.mean);
    const double upper_error = (p.upper - p.mean) - half_width;
    const double lower_error = (p.mean - p.lower) - half_width;
    PBP_CHECK(upper_error <= slack && upper_error >= -slack);
    PBP_CHECK(lower_error <= slack && lower_error >= -slack);
  }
  // The largest float below 1 still gives a finite, wide interval.
  pbp::Prediction p;
  PBP_CHECK_EQ(model.predict(pbp_tiny_rows[2], 2, 0.99999994f, workspace, &p), PBP_OK);
  PBP_CHECK(pbp::math::is_finite(p.upper) && p.upper - p.mean > 5.0f * p.std);
  const float bad[] = {0.0f, 1.0f, -0.5f, 1.5f, pbp::math::quiet_nan<float>()};
  for (float probability : bad) {
    PBP_CHECK_EQ(model.predict(pbp_tiny_rows[2], 2, probability, workspace, &p),
                 PBP_ERR_BAD_PROBABILITY);
  }
}

PBP_TEST(errors_leave_the_result_untouched) {
  const pbp::Model model = open_tiny();
  pbp::Workspace<2, 3> workspace;
  pbp::Prediction p;
  memset(&p, 0x5A, sizeof p);
  pbp::Prediction before;
  memcpy(&before, &p, sizeof p);
  const float nan_row[2] = {1.0f, pbp::math::quiet_nan<float>()};
  const float inf_row[2] = {pbp::math::infinity<float>(), 1.0f};
  const float huge_row[2] = {3.0e38f, 0.0f};
  PBP_CHECK_EQ(model.predict(nan_row, 2, 0.9f, workspace, &p), PBP_ERR_NONFINITE_INPUT);
  PBP_CHECK_EQ(model.predict(inf_row, 2, 0.9f, workspace, &p), PBP_ERR_NONFINITE_INPUT);
  PBP_CHECK_EQ(model.predict(huge_row, 2, 0.9f, workspace, &p), PBP_ERR_NONFINITE_OUTPUT);
  PBP_CHECK_EQ(model.predict(pbp_tiny_rows[0], 3, 0.9f, workspace, &p), PBP_ERR_INPUT_WIDTH);
  PBP_CHECK_EQ(memcmp(&p, &before, sizeof p), 0);
}

PBP_TEST(workspace_formula_is_exact_and_sufficient) {
  const pbp::Model model = open_tiny();
  PBP_CHECK_EQ(model.workspace_bytes(), 4u * (2u + 4u * 3u));
  PBP_CHECK_EQ(model.workspace_bytes(), static_cast<size_t>(PBP_WORKSPACE_BYTES(2, 3)));
  PBP_CHECK_EQ(sizeof(pbp::Workspace<2, 3>), static_cast<size_t>(PBP_WORKSPACE_BYTES(2, 3)));
  // Guard floats after the documented size stay untouched.
  static float buffer[PBP_WORKSPACE_FLOATS(2, 3) + 4];
  for (float& f : buffer) f = 12345.0f;
  pbp::Prediction p;
  PBP_CHECK_EQ(model.predict(pbp_tiny_rows[3], 2, 0.9f, buffer, model.workspace_bytes(), &p),
               PBP_OK);
  for (uint32_t i = PBP_WORKSPACE_FLOATS(2, 3); i < PBP_WORKSPACE_FLOATS(2, 3) + 4; ++i) {
    PBP_CHECK_EQ(buffer[i], 12345.0f);
  }
  PBP_CHECK_EQ(model.predict(pbp_tiny_rows[3], 2, 0.9f, buffer, model.workspace_bytes() - 4, &p),
               PBP_ERR_WORKSPACE_TOO_SMALL);
  pbp::Workspace<4, 8> larger;  // any workspace at least as large works
  pbp::Prediction q;
  PBP_CHECK_EQ(model.predict(pbp_tiny_rows[3], 2, 0.9f, larger, &q), PBP_OK);
  PBP_CHECK_EQ(memcmp(&p, &q, sizeof p), 0);
}

PBP_TEST(weights_are_read_in_place) {
  const pbp::Model model = open_tiny();
  const pbp_model& m = model.view();
  const uint8_t* begin = pbp_tiny_blob;
  const uint8_t* end = pbp_tiny_blob + PBP_TINY_BLOB_SIZE;
  for (uint32_t l = 0; l < m.layer_count; ++l) {
    const uint8_t* mean = reinterpret_cast<const uint8_t*>(m.layers[l].mean);
    PBP_CHECK(mean >= begin && mean < end);
  }
  PBP_CHECK(m.blob == begin);
  PBP_CHECK_EQ(m.weight_count, 3u * 3u + 1u * 4u);
}

PBP_TEST(metadata_is_exposed) {
  const pbp::Model model = open_tiny();
  const pbp_model& m = model.view();
  PBP_CHECK(m.name.length == 4 && memcmp(m.name.data, "tiny", 4) == 0);
  PBP_CHECK(m.target_name.length == 1 && m.target_name.data[0] == 'y');
  PBP_CHECK(m.notes.length == 1 && m.notes.data[0] == 'n');
  PBP_CHECK_EQ(m.training_rows, 10u);
  PBP_CHECK_EQ(m.feature_name_count, 2u);
  pbp_string name;
  PBP_CHECK_EQ(model.feature_name(1, &name), PBP_OK);
  PBP_CHECK(name.length == 2 && memcmp(name.data, "bc", 2) == 0);
  PBP_CHECK_EQ(pbp_peek_total_size(pbp_tiny_blob, 12), PBP_TINY_BLOB_SIZE);
  PBP_CHECK_EQ(pbp_peek_total_size(pbp_tiny_blob, 11), 0u);
}

PBP_TEST(status_names_are_distinct) {
  for (int a = 0; a < PBP_NUM_STATUSES; ++a) {
    const char* name = pbp::status_name(static_cast<pbp_status>(a));
    PBP_CHECK(strncmp(name, "PBP_", 4) == 0 && strcmp(name, "PBP_UNKNOWN_STATUS") != 0);
    PBP_CHECK(strlen(pbp::status_string(static_cast<pbp_status>(a))) > 0);
    for (int b = 0; b < a; ++b) {
      PBP_CHECK(strcmp(name, pbp::status_name(static_cast<pbp_status>(b))) != 0);
    }
  }
  PBP_CHECK(strcmp(pbp::status_name(static_cast<pbp_status>(PBP_NUM_STATUSES)),
                   "PBP_UNKNOWN_STATUS") == 0);
}
