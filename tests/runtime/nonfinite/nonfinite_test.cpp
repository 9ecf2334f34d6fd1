// SPDX-License-Identifier: Apache-2.0
// A NaN or infinity anywhere in the forward pass must reach the outputs, so that every predict
// call reports PBP_ERR_NONFINITE_OUTPUT instead of a finite answer: huge inputs and a crafted
// blob through two hidden layers (where a NaN unit used to come out of the ReLU as exactly
// (0, 0)), the ReLU moments themselves on non-finite arguments, and the multiclass output on an
// overflowed exponent. Finite cases keep their bits (tests/runtime/golden checks the rest).
#include <string.h>

#include "golden_vectors.h"
#include "harness.hpp"
#include "pbp/format.hpp"
#include "pbp/math.hpp"
#include "pbp/moments.hpp"
#include "pbp/outputs.hpp"
#include "pbp/pbp.h"

namespace {

namespace fmt = pbp::format;

// The golden 4-16-16-1 regression model: two hidden layers, trained.
constexpr uint32_t kDeep = 2;
constexpr uint32_t kInputs = 4;

// A static, aligned copy of it to edit (no heap; .bss, not the stack).
alignas(8) uint8_t g_blob[3456];  // the golden blob (3364 bytes with input ranges)
pbp_model g_model;
float g_workspace[PBP_WORKSPACE_FLOATS(kInputs, 16)];

const float kInf = pbp::math::infinity<float>();
const float kNan = pbp::math::quiet_nan<float>();
const float kFloatMax = 3.40282347e38f;

uint32_t copy_deep_blob() {
  const pbp_golden_model& g = pbp_golden_models[kDeep];
  PBP_CHECK(g.size <= sizeof g_blob);
  memcpy(g_blob, g.blob, g.size);
  return g.size;
}

uint8_t* section(fmt::SectionType type) {
  const uint32_t count = fmt::load_u32(g_blob + fmt::header::kSectionCount);
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* entry = g_blob + fmt::header::kSize + i * fmt::section_entry::kSize;
    if (fmt::load_u32(entry + fmt::section_entry::kType) == static_cast<uint32_t>(type)) {
      return g_blob + fmt::load_u32(entry + fmt::section_entry::kOffset);
    }
  }
  return nullptr;
}

// Element `index` of layer `layer`'s mean (or variance) tensor.
uint8_t* weight(uint32_t layer, bool variance, uint32_t index) {
  const uint8_t* record = section(fmt::SectionType::layers) + layer * fmt::layer_record::kSize;
  const uint8_t* descriptor =
      record + (variance ? fmt::layer_record::kVariance : fmt::layer_record::kMean);
  return section(fmt::SectionType::tensor_data) + fmt::load_u32(descriptor + fmt::tensor::kOffset) +
         4u * index;
}

uint32_t reseal(uint32_t size) {
  const uint32_t covered = size - fmt::kCrcSize;
  fmt::store_u32(g_blob + covered, fmt::crc32(g_blob, covered));
  return size;
}

// Every predict call the model's task allows, at input x.
pbp_status predict(const float* x) {
  if (g_model.task == PBP_TASK_REGRESSION) {
    pbp_prediction p;
    return pbp_predict(&g_model, x, kInputs, 0.9f, g_workspace, sizeof g_workspace, &p);
  }
  if (g_model.task == PBP_TASK_COUNT_DATA) {
    pbp_count_result r;
    return pbp_predict_count(&g_model, x, kInputs, 0.9f, g_workspace, sizeof g_workspace, &r);
  }
  float p[2];
  pbp_class_result r;
  return pbp_predict_classes(&g_model, x, kInputs, g_workspace, sizeof g_workspace, p, 2, &r);
}

// A golden case's input for the deep model: an ordinary input that predicts PBP_OK.
const float* ordinary_input() {
  static float x[kInputs];
  for (uint32_t c = 0; c < PBP_GOLDEN_CASE_COUNT; ++c) {
    if (pbp_golden_cases[c].model != kDeep) continue;
    memcpy(x, pbp_golden_cases[c].input, sizeof x);
    break;
  }
  return x;
}

bool finite(const pbp::ReluMoments<float>& r) {
  return pbp::math::is_finite(r.mean) && pbp::math::is_finite(r.variance);
}

}  // namespace

PBP_TEST(huge_inputs_through_two_hidden_layers_are_nonfinite_for_every_task) {
  const uint32_t likelihoods[3] = {PBP_LIKELIHOOD_GAUSSIAN, PBP_LIKELIHOOD_PROBIT,
                                   PBP_LIKELIHOOD_POISSON};
  const float huge[6] = {1e20f, -1e20f, 1e25f, 1e30f, kFloatMax, -kFloatMax};
  for (uint32_t likelihood : likelihoods) {
    const uint32_t size = copy_deep_blob();
    fmt::store_u32(section(fmt::SectionType::model) + fmt::model_section::kLikelihood, likelihood);
    PBP_CHECK_EQ(pbp_open(&g_model, g_blob, reseal(size)), PBP_OK);
    PBP_CHECK_EQ(predict(ordinary_input()), PBP_OK);
    for (float value : huge) {
      for (uint32_t k = 0; k < kInputs; ++k) {
        float x[kInputs];
        memcpy(x, ordinary_input(), sizeof x);
        x[k] = value;
        const pbp_status status = predict(x);
        if (status != PBP_ERR_NONFINITE_OUTPUT) {
          pbp_test::note("likelihood %u, input %u = %g: %s", static_cast<unsigned>(likelihood),
                         static_cast<unsigned>(k), static_cast<double>(value),
                         pbp_status_name(status));
        }
        PBP_CHECK_EQ(status, PBP_ERR_NONFINITE_OUTPUT);
      }
    }
  }
}

PBP_TEST(a_crafted_blob_with_ordinary_inputs_is_nonfinite) {
  // Hidden unit 0 of layer 0: bias mean -1e18 and every weight variance 1.4e-44 (a subnormal),
  // so alpha = m / sqrt(v) overflows to -inf for ordinary inputs.
  const uint32_t size = copy_deep_blob();
  for (uint32_t k = 0; k <= kInputs; ++k) fmt::store_f32(weight(0, true, k), 1.4e-44f);
  fmt::store_f32(weight(0, false, kInputs), -1e18f);
  PBP_CHECK_EQ(pbp_open(&g_model, g_blob, reseal(size)), PBP_OK);
  PBP_CHECK_EQ(predict(ordinary_input()), PBP_ERR_NONFINITE_OUTPUT);
  const float zero[kInputs] = {0.0f, 0.0f, 0.0f, 0.0f};
  PBP_CHECK_EQ(predict(zero), PBP_ERR_NONFINITE_OUTPUT);
}

PBP_TEST(relu_moments_pass_nonfinite_arguments_on) {
  const float big_negative_alpha_v = 1.4e-44f;  // with m = -1e18: alpha overflows to -inf
  const float cases[][2] = {{kNan, 1.0f},    {1.0f, kNan},    {-1.0f, kNan},
                            {kNan, 0.0f},    {kNan, kNan},    {kInf, 1.0f},
                            {-kInf, 1.0f},   {kInf, 0.0f},    {-kInf, 0.0f},
                            {1.0f, kInf},    {-1.0f, kInf},   {0.0f, kInf},
                            {kInf, kInf},    {-kInf, kInf},   {-1e18f, big_negative_alpha_v},
                            {1e18f, 1e-44f}, {-1e30f, 1e-30f}};
  for (const auto& c : cases) {
    const pbp::ReluMoments<float> r = pbp::relu_moments(c[0], c[1]);
    if (finite(r)) {
      pbp_test::note("relu_moments(%g, %g) = (%g, %g)", static_cast<double>(c[0]),
                     static_cast<double>(c[1]), static_cast<double>(r.mean),
                     static_cast<double>(r.variance));
    }
    PBP_CHECK(!finite(r));
    float mean = c[0], var = c[1];
    pbp::relu_moments_inplace(1, &mean, &var);  // the runtime's loop
    PBP_CHECK(!pbp::math::is_finite(mean) || !pbp::math::is_finite(var));
  }
}

PBP_TEST(erf_and_sign_moments_pass_nonfinite_arguments_on) {
  const float cases[][2] = {{kNan, 1.0f},  {1.0f, kNan},  {kNan, 0.0f}, {kInf, 1.0f},
                            {-kInf, 1.0f}, {kInf, 0.0f},  {1.0f, kInf}, {0.0f, kInf},
                            {kInf, kInf},  {-kInf, kInf}, {kNan, kNan}};
  for (const auto& c : cases) {
    float mean = c[0], var = c[1];
    pbp::erf_moments_inplace(1, &mean, &var);  // the runtime's loops
    PBP_CHECK(!pbp::math::is_finite(mean) && !pbp::math::is_finite(var));
    mean = c[0], var = c[1];
    pbp::sign_moments_inplace(1, &mean, &var);
    PBP_CHECK(!pbp::math::is_finite(mean) && !pbp::math::is_finite(var));
  }
  // Finite extremes stay finite: saturated units, their variance exactly 0.
  const pbp::ErfMoments<float> e = pbp::erf_moments(1e30f, 1.0f);
  PBP_CHECK(e.mean == 1.0f && e.variance == 0.0f);
  const pbp::SignMoments<float> s = pbp::sign_moments(-1e18f, 1.4e-44f);
  PBP_CHECK(s.mean == -1.0f && s.variance == 0.0f);
}

PBP_TEST(relu_moments_of_finite_units_are_unchanged) {
  // The deterministic unit that is off is +0 exactly (m - m), for either sign of m.
  const float off[4] = {-3.0f, -0.0f, 0.0f, -kFloatMax};
  for (float m : off) {
    const pbp::ReluMoments<float> r = pbp::relu_moments(m, 0.0f);
    PBP_CHECK_EQ(pbp_test::float_bits(r.mean), 0u);
    PBP_CHECK_EQ(pbp_test::float_bits(r.variance), 0u);
  }
  PBP_CHECK_EQ(pbp::relu_moments(2.5f, 0.0f).mean, 2.5f);
  // A unit almost surely off whose closed-form variance rounds below zero is clamped to +0.
  const float ms[5] = {-1.0f, -8.0f, -20.0f, -29.0f, -40.0f};
  for (float m : ms) {
    const pbp::ReluMoments<float> r = pbp::relu_moments(m, 1.0f);
    PBP_CHECK(finite(r) && r.mean >= 0.0f && r.variance >= 0.0f);
  }
}

PBP_TEST(an_infinite_input_to_a_layer_reaches_its_outputs) {
  // One hidden unit's mean is +inf: every unit of the next layer must be non-finite.
  const float mean[2] = {kInf, 1.0f};
  const float var[2] = {0.0f, 1.0f};
  const float wm[3] = {0.0f, 1.0f, 0.5f};  // a zero weight on the infinite unit: 0 x inf = NaN
  const float wv[3] = {0.0f, 0.1f, 0.1f};
  const pbp::LayerWeights<float> w{wm, wv, 2, 1};
  float am = 0.0f, av = 0.0f;
  pbp::linear_moments<float, false>(w, mean, var, &am, &av);
  PBP_CHECK(!pbp::math::is_finite(am));
}

PBP_TEST(softmax_with_an_overflowed_exponent_is_nan) {
  // nu_1 - nu_0 and psi_0 + psi_1 both overflow: inf / inf, once read as 0 (p = 1/2 each).
  const float nu[2] = {-kFloatMax, kFloatMax};
  const float psi[2] = {kFloatMax, kFloatMax};
  float p[2];
  pbp::outputs::softmax_probabilities(nu, psi, 2, p);
  PBP_CHECK(!pbp::math::is_finite(p[0]) || !pbp::math::is_finite(p[1]));
  // A finite overflowed difference still clamps: class 1 wins.
  const float psi_small[2] = {1.0f, 1.0f};
  pbp::outputs::softmax_probabilities(nu, psi_small, 2, p);
  PBP_CHECK(p[1] > 0.999f && p[0] < 1e-30f);
}
