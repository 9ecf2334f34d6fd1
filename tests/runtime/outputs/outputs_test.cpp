// SPDX-License-Identifier: Apache-2.0
// pbp_predict_classes and pbp_predict_count on crafted blobs whose output moments are chosen
// (output_blob.hpp), including the edges: huge |nu|, tiny and huge psi, the interval's cap.
// Reference values: closed forms, and NB CDFs summed in double precision offline (Python).
#include "pbp/outputs.hpp"
#include "harness.hpp"
#include "output_blob.hpp"
#include "pbp/math.hpp"
#include "tiny_blob.h"

namespace {

static float g_workspace[PBP_WORKSPACE_FLOATS(2, PBP_MAX_CLASSES)];

bool near(float a, float b, float tolerance) {
  const float d = a > b ? a - b : b - a;
  return d <= tolerance;
}

pbp_status classify(uint32_t likelihood, const float* nu, const float* psi, uint32_t outputs,
                    float* probabilities, pbp_class_result* result) {
  pbp_test::OutputBlob& blob = pbp_test::output_blob(likelihood, nu, psi, outputs);
  pbp_model model;
  const pbp_status status = pbp_open(&model, blob.bytes, blob.size);
  if (status != PBP_OK) return status;
  const float x = 0.25f;
  return pbp_predict_classes(&model, &x, 1, g_workspace, sizeof g_workspace, probabilities,
                             PBP_MAX_CLASSES, result);
}

pbp_status count(float nu, float psi, float probability, pbp_count_result* result) {
  pbp_test::OutputBlob& blob = pbp_test::output_blob(PBP_LIKELIHOOD_POISSON, &nu, &psi, 1);
  pbp_model model;
  const pbp_status status = pbp_open(&model, blob.bytes, blob.size);
  if (status != PBP_OK) return status;
  const float x = -3.0f;
  return pbp_predict_count(&model, &x, 1, probability, g_workspace, sizeof g_workspace, result);
}

float sum(const float* p, uint32_t n) {
  float s = 0.0f;
  for (uint32_t i = 0; i < n; ++i) s += p[i];
  return s;
}

}  // namespace

PBP_TEST(binary_probit) {
  float p[PBP_MAX_CLASSES];
  pbp_class_result r;
  const float nu0 = 0.0f, psi0 = 0.0f;
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_PROBIT, &nu0, &psi0, 1, p, &r), PBP_OK);
  PBP_CHECK_EQ(r.class_count, 2u);
  PBP_CHECK_EQ(r.predicted_class, 0u);  // a tie goes to the lower index
  PBP_CHECK(p[0] == 0.5f && p[1] == 0.5f && r.confidence == 0.5f);
  PBP_CHECK(near(r.entropy, 0.693147181f, 1e-6f));
  // Phi(1 / sqrt(1 + 3)) = Phi(0.5)
  const float nu1 = 1.0f, psi1 = 3.0f;
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_PROBIT, &nu1, &psi1, 1, p, &r), PBP_OK);
  PBP_CHECK_EQ(r.predicted_class, 1u);
  PBP_CHECK(near(p[1], 0.691462461f, 2e-6f) && near(p[0], 0.308537539f, 2e-6f));
  // Huge |nu|: certain, entropy 0, no NaN.
  const float big = 1.0e30f, zero = 0.0f;
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_PROBIT, &big, &zero, 1, p, &r), PBP_OK);
  PBP_CHECK(p[1] == 1.0f && p[0] == 0.0f && r.entropy == 0.0f && r.predicted_class == 1u);
  const float minus_big = -40.0f;
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_PROBIT, &minus_big, &zero, 1, p, &r), PBP_OK);
  PBP_CHECK(p[0] == 1.0f && p[1] >= 0.0f && p[1] < 1e-30f && r.predicted_class == 0u);
  // Huge psi: knows nothing. Tiny psi: the deterministic probit.
  const float huge_psi = 1.0e30f;
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_PROBIT, &nu1, &huge_psi, 1, p, &r), PBP_OK);
  PBP_CHECK(near(p[1], 0.5f, 1e-6f) && near(r.entropy, 0.693147181f, 1e-6f));
  const float tiny_psi = 1.0e-30f;
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_PROBIT, &nu1, &tiny_psi, 1, p, &r), PBP_OK);
  PBP_CHECK(near(p[1], 0.841344746f, 2e-6f));
}

PBP_TEST(multiclass_softmax) {
  float p[PBP_MAX_CLASSES];
  pbp_class_result r;
  // psi = 0: the exact softmax; nu = log(1, 2, 3) gives 1/6, 2/6, 3/6.
  const float nu[3] = {0.0f, 0.693147181f, 1.098612289f};
  const float zero[3] = {0.0f, 0.0f, 0.0f};
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_SOFTMAX, nu, zero, 3, p, &r), PBP_OK);
  PBP_CHECK_EQ(r.class_count, 3u);
  PBP_CHECK_EQ(r.predicted_class, 2u);
  PBP_CHECK(near(p[0], 1.0f / 6, 1e-6f) && near(p[1], 2.0f / 6, 1e-6f) &&
            near(p[2], 3.0f / 6, 1e-6f));
  PBP_CHECK(near(r.confidence, 0.5f, 1e-6f));
  PBP_CHECK(near(r.entropy, 1.011404265f, 2e-6f));  // -sum p log p
  // Uncertainty pulls towards uniform but keeps the order.
  const float psi[3] = {4.0f, 4.0f, 4.0f};
  float q[PBP_MAX_CLASSES];
  pbp_class_result s;
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_SOFTMAX, nu, psi, 3, q, &s), PBP_OK);
  PBP_CHECK(q[0] > p[0] && q[2] < p[2] && q[0] < q[1] && q[1] < q[2] && s.entropy > r.entropy);
  PBP_CHECK(near(sum(q, 3), 1.0f, 1e-6f));
  // Shifting every nu changes nothing.
  const float shifted[3] = {nu[0] + 50.0f, nu[1] + 50.0f, nu[2] + 50.0f};
  float t[PBP_MAX_CLASSES];
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_SOFTMAX, shifted, psi, 3, t, &s), PBP_OK);
  for (int c = 0; c < 3; ++c) PBP_CHECK(near(t[c], q[c], 2e-5f));
  // Huge |nu| and huge psi: finite, a certain class, and uniform.
  const float extreme[3] = {1.0e30f, -1.0e30f, 0.0f};
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_SOFTMAX, extreme, zero, 3, p, &r), PBP_OK);
  PBP_CHECK(p[0] == 1.0f && p[1] < 1e-30f && p[2] < 1e-30f && r.predicted_class == 0u);
  PBP_CHECK(r.entropy >= 0.0f && r.entropy < 1e-6f);
  const float vague[3] = {1.0e30f, 1.0e30f, 1.0e30f};
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_SOFTMAX, nu, vague, 3, p, &r), PBP_OK);
  for (int c = 0; c < 3; ++c) PBP_CHECK(near(p[c], 1.0f / 3, 1e-6f));
}

PBP_TEST(multiclass_most_classes) {
  static float nu[PBP_MAX_CLASSES];
  static float psi[PBP_MAX_CLASSES];
  for (uint32_t c = 0; c < PBP_MAX_CLASSES; ++c) {
    nu[c] = 0.1f * static_cast<float>(c % 7) - 0.3f;
    psi[c] = 0.05f * static_cast<float>(c % 5);
  }
  nu[37] = 9.0f;
  float p[PBP_MAX_CLASSES];
  pbp_class_result r;
  PBP_CHECK_EQ(classify(PBP_LIKELIHOOD_SOFTMAX, nu, psi, PBP_MAX_CLASSES, p, &r), PBP_OK);
  PBP_CHECK_EQ(r.class_count, PBP_MAX_CLASSES);
  PBP_CHECK_EQ(r.predicted_class, 37u);
  PBP_CHECK(near(sum(p, PBP_MAX_CLASSES), 1.0f, 1e-5f));
  PBP_CHECK(r.entropy > 0.0f && r.entropy < 4.16f);  // log 64 = 4.159
}

PBP_TEST(count_poisson_and_negative_binomial) {
  pbp_count_result r;
  // psi = 0: Poisson(2.5). 90 % interval [0, 5] (CDF(5) = 0.958).
  PBP_CHECK_EQ(count(0.916290732f, 0.0f, 0.9f, &r), PBP_OK);
  PBP_CHECK(near(r.mean, 2.5f, 1e-5f) && near(r.variance, 2.5f, 1e-5f) && r.mode == 2.0f);
  PBP_CHECK(r.lower == 0.0f && r.upper == 5.0f);
  // NB(mean 4, scale 0.5): r = 2, p = 2/3; variance 4 (1 + 2) = 12, mode floor(2) = 2 (within
  // rounding of e^log 4), 90 % interval [0, 11] (CDF(10) = 0.946, CDF(11) = 0.961).
  PBP_CHECK_EQ(count(1.386294361f, 0.5f, 0.9f, &r), PBP_OK);
  PBP_CHECK(near(r.mean, 4.0f, 2e-5f) && near(r.variance, 12.0f, 1e-4f));
  PBP_CHECK(r.mode == 1.0f || r.mode == 2.0f);
  PBP_CHECK(r.lower == 0.0f && r.upper == 11.0f);
  // NB(200, 0.01), 95 %: [154, 250].
  PBP_CHECK_EQ(count(5.298317367f, 0.01f, 0.95f, &r), PBP_OK);
  PBP_CHECK(r.lower == 154.0f && r.upper == 250.0f && r.mode == 198.0f);
  // Tiny psi is the Poisson limit, no 1/psi blow-up.
  pbp_count_result poisson;
  PBP_CHECK_EQ(count(0.916290732f, 0.0f, 0.5f, &poisson), PBP_OK);
  PBP_CHECK_EQ(count(0.916290732f, 1.0e-30f, 0.5f, &r), PBP_OK);
  PBP_CHECK(r.lower == poisson.lower && r.upper == poisson.upper && r.mean == poisson.mean);
  // Huge psi: almost all mass at 0 (pmf(0) = (1 + 1e6)^-1e-6 = 0.999986).
  PBP_CHECK_EQ(count(0.0f, 1.0e6f, 0.9f, &r), PBP_OK);
  PBP_CHECK(r.lower == 0.0f && r.upper == 0.0f && r.mode == 0.0f);
  PBP_CHECK(near(r.variance, 1.0e6f, 2.0f));
  // Very negative nu: e^nu ~ 0.
  PBP_CHECK_EQ(count(-80.0f, 0.1f, 0.99f, &r), PBP_OK);
  PBP_CHECK(r.lower == 0.0f && r.upper == 0.0f && r.mean < 1e-34f);
}

PBP_TEST(count_large_means) {
  pbp_count_result r;
  // Poisson(5000): pmf(0) = e^-5000 underflows float, the scaled walk does not. 90 %:
  // [4884, 5117] (CDF(5117) = 0.9513).
  PBP_CHECK_EQ(count(8.517193191f, 0.0f, 0.9f, &r), PBP_OK);
  PBP_CHECK(near(r.mean, 5000.0f, 0.01f) && (r.mode == 4999.0f || r.mode == 5000.0f));
  PBP_CHECK(near(r.lower, 4884.0f, 1.0f) && near(r.upper, 5117.0f, 1.0f));
  // The interval's cap: the upper bound beyond PBP_COUNT_MAX_STEPS.
  PBP_CHECK_EQ(count(9.8f, 0.0f, 0.9f, &r), PBP_ERR_COUNT_STEPS);   // e^9.8 = 18034
  PBP_CHECK_EQ(count(9.21f, 1.0f, 0.9f, &r), PBP_ERR_COUNT_STEPS);  // geometric, mean 1e4: 3e4
  // A heavy tail still inside the cap: NB(e^3, 1000), 99.9 %: [0, 11118].
  PBP_CHECK_EQ(count(3.0f, 1000.0f, 0.999f, &r), PBP_OK);
  PBP_CHECK(r.lower == 0.0f && near(r.upper, 11118.0f, 2.0f));
  // e^nu or the variance overflow float.
  PBP_CHECK_EQ(count(89.0f, 0.0f, 0.9f, &r), PBP_ERR_NONFINITE_OUTPUT);
  PBP_CHECK_EQ(count(50.0f, 1.0f, 0.9f, &r), PBP_ERR_NONFINITE_OUTPUT);
}

// The task functions on the 2-3-1 tiny blob give what its regression moments say they should.
PBP_TEST(multi_layer_blob_agrees_with_pbp_predict) {
  alignas(8) static uint8_t bytes[PBP_TINY_BLOB_SIZE];
  memcpy(bytes, pbp_tiny_blob, PBP_TINY_BLOB_SIZE);
  pbp_model model;
  PBP_CHECK_EQ(pbp_open(&model, bytes, PBP_TINY_BLOB_SIZE), PBP_OK);
  const float x[2] = {0.7f, -1.2f};
  pbp_prediction reg;
  PBP_CHECK_EQ(pbp_predict(&model, x, 2, 0.9f, g_workspace, sizeof g_workspace, &reg), PBP_OK);
  const float nu = (reg.mean - model.target_mean) / model.target_std;
  const float psi = reg.epistemic_variance / (model.target_std * model.target_std);

  namespace fmt = pbp::format;
  const uint32_t model_offset =
      fmt::load_u32(bytes + fmt::header::kSize + fmt::section_entry::kOffset);
  PBP_CHECK_EQ(fmt::load_u32(bytes + fmt::header::kSize), 1u);  // the first section is "model"
  const uint32_t covered = PBP_TINY_BLOB_SIZE - fmt::kCrcSize;
  fmt::store_u32(bytes + model_offset + fmt::model_section::kLikelihood, PBP_LIKELIHOOD_PROBIT);
  fmt::store_u32(bytes + covered, fmt::crc32(bytes, covered));
  PBP_CHECK_EQ(pbp_open(&model, bytes, PBP_TINY_BLOB_SIZE), PBP_OK);
  float p[2];
  pbp_class_result c;
  PBP_CHECK_EQ(pbp_predict_classes(&model, x, 2, g_workspace, sizeof g_workspace, p, 2, &c),
               PBP_OK);
  const pbp::outputs::BinaryProbabilities<float> expected =
      pbp::outputs::binary_probabilities(nu, psi);
  PBP_CHECK(near(p[1], expected.positive, 1e-5f) && near(p[0], expected.negative, 1e-5f));

  fmt::store_u32(bytes + model_offset + fmt::model_section::kLikelihood, PBP_LIKELIHOOD_POISSON);
  fmt::store_u32(bytes + covered, fmt::crc32(bytes, covered));
  PBP_CHECK_EQ(pbp_open(&model, bytes, PBP_TINY_BLOB_SIZE), PBP_OK);
  pbp_count_result n;
  PBP_CHECK_EQ(pbp_predict_count(&model, x, 2, 0.9f, g_workspace, sizeof g_workspace, &n), PBP_OK);
  const pbp::outputs::CountMoments<float> m = pbp::outputs::count_moments(nu, psi);
  PBP_CHECK(near(n.mean, m.mean, 1e-4f * m.mean) &&
            near(n.variance, m.variance, 1e-4f * m.variance));
  PBP_CHECK(n.lower <= n.mode && n.mode <= n.upper);
}
