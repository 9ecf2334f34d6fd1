// SPDX-License-Identifier: Apache-2.0
// Golden vectors: pbp_open and every predict call on this target must reproduce, bit for bit, what
// the host float runtime gave for a few trained networks (3-8-1, 5-64-1, 4-16-16-1, 2-32-32-32-1;
// erf and sign hidden units)
// on typical, zero, large-|x| inputs and inputs that drive hidden units deep into alpha < -30.
//
// The expected bits live in golden_vectors.h, generated on the host by
// tests/host/golden/golden_test.cpp. After a deliberate change of the runtime's float math (or
// the shared moment code, or the trainer), regenerate it from a configured host build with
//
//   PBP_REGENERATE_FIXTURES=1 ctest --test-dir build/host -R GoldenVectors
//
// and run this test on every target (targets/tools/test-all-targets.sh). A mismatch here means
// the target computes something different from the host: find out why (contraction into FMA,
// excess precision, a libm call, denormal flushing, ...) and fix the cause; never regenerate on a
// target to make it pass.
#include <string.h>

#include "golden_vectors.h"
#include "harness.hpp"
#include "pbp/pbp.h"

namespace {

// In .bss, not on the stack (the micro:bit has 4 KiB of stack).
pbp_model model;
float workspace[PBP_WORKSPACE_FLOATS(PBP_GOLDEN_MAX_INPUTS, PBP_GOLDEN_MAX_WIDTH)];

float from_bits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

const char* const kFields[6] = {"mean", "epistemic_variance", "aleatoric_variance", "std", "lower",
                                "upper"};

}  // namespace

PBP_TEST(every_golden_model_opens) {
  for (uint32_t m = 0; m < PBP_GOLDEN_MODEL_COUNT; ++m) {
    const pbp_golden_model& g = pbp_golden_models[m];
    PBP_CHECK_EQ(pbp_open(&model, g.blob, g.size), PBP_OK);
    PBP_CHECK_EQ(model.input_count, g.input_count);
    PBP_CHECK(model.workspace_bytes <= sizeof workspace);
  }
}

PBP_TEST(predictions_are_bit_identical_to_the_host) {
  uint32_t mismatches = 0;
  uint32_t open_model = PBP_GOLDEN_MODEL_COUNT;
  for (uint32_t c = 0; c < PBP_GOLDEN_CASE_COUNT; ++c) {
    const pbp_golden_case& g = pbp_golden_cases[c];
    if (g.model != open_model) {
      const pbp_golden_model& m = pbp_golden_models[g.model];
      PBP_CHECK_EQ(pbp_open(&model, m.blob, m.size), PBP_OK);
      open_model = g.model;
    }
    float input[PBP_GOLDEN_MAX_INPUTS];
    for (uint32_t k = 0; k < PBP_GOLDEN_MAX_INPUTS; ++k) input[k] = from_bits(g.input[k]);
    pbp_prediction p;
    memset(&p, 0, sizeof p);
    const pbp_status status =
        pbp_predict(&model, input, model.input_count, from_bits(g.probability), workspace,
                    sizeof workspace, &p);
    if (status != static_cast<pbp_status>(g.status)) {
      pbp_test::note("case %u (%s): status %s, expected %s", static_cast<unsigned>(c),
                     pbp_golden_models[g.model].shape, pbp_status_name(status),
                     pbp_status_name(static_cast<pbp_status>(g.status)));
      ++mismatches;
      continue;
    }
    if (status != PBP_OK) continue;
    const float actual[6] = {p.mean, p.epistemic_variance, p.aleatoric_variance, p.std, p.lower,
                             p.upper};
    for (uint32_t f = 0; f < 6; ++f) {
      const uint32_t bits = pbp_test::float_bits(actual[f]);
      if (bits != g.output[f]) {
        pbp_test::note("case %u (%s) %s: 0x%08lx (%.9g), expected 0x%08lx (%.9g)",
                       static_cast<unsigned>(c), pbp_golden_models[g.model].shape, kFields[f],
                       static_cast<unsigned long>(bits), static_cast<double>(actual[f]),
                       static_cast<unsigned long>(g.output[f]),
                       static_cast<double>(from_bits(g.output[f])));
        ++mismatches;
      }
    }
  }
  pbp_test::note("%u cases, %u mismatching values", static_cast<unsigned>(PBP_GOLDEN_CASE_COUNT),
                 static_cast<unsigned>(mismatches));
  PBP_CHECK_EQ(mismatches, 0u);
}

PBP_TEST(class_and_count_predictions_are_bit_identical_to_the_host) {
  uint32_t mismatches = 0;
  for (uint32_t c = 0; c < PBP_GOLDEN_TASK_CASE_COUNT; ++c) {
    const pbp_golden_task_case& g = pbp_golden_task_cases[c];
    const pbp_golden_model& m = pbp_golden_task_models[g.model];
    PBP_CHECK_EQ(pbp_open(&model, m.blob, m.size), PBP_OK);
    const float input[3] = {from_bits(g.input[0]), from_bits(g.input[1]), from_bits(g.input[2])};
    uint32_t actual[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    pbp_status status;
    if (model.task == PBP_TASK_COUNT_DATA) {
      pbp_count_result r;
      memset(&r, 0, sizeof r);
      status = pbp_predict_count(&model, input, 3, 0.9f, workspace, sizeof workspace, &r);
      const float values[5] = {r.mean, r.variance, r.mode, r.lower, r.upper};
      for (uint32_t f = 0; f < 5; ++f) actual[f] = pbp_test::float_bits(values[f]);
    } else {
      float p[4] = {0, 0, 0, 0};
      pbp_class_result r;
      memset(&r, 0, sizeof r);
      status = pbp_predict_classes(&model, input, 3, workspace, sizeof workspace, p, 4, &r);
      actual[0] = r.class_count;
      actual[1] = r.predicted_class;
      actual[2] = pbp_test::float_bits(r.confidence);
      actual[3] = pbp_test::float_bits(r.entropy);
      for (uint32_t k = 0; k < 4; ++k) actual[4 + k] = pbp_test::float_bits(p[k]);
    }
    if (status != static_cast<pbp_status>(g.status)) {
      pbp_test::note("task case %u (%s): status %s", static_cast<unsigned>(c), m.shape,
                     pbp_status_name(status));
      ++mismatches;
      continue;
    }
    for (uint32_t f = 0; f < 8; ++f) {
      if (actual[f] != g.output[f]) {
        pbp_test::note("task case %u (%s) value %u: 0x%08lx, expected 0x%08lx",
                       static_cast<unsigned>(c), m.shape, static_cast<unsigned>(f),
                       static_cast<unsigned long>(actual[f]),
                       static_cast<unsigned long>(g.output[f]));
        ++mismatches;
      }
    }
  }
  pbp_test::note("%u task cases, %u mismatching values",
                 static_cast<unsigned>(PBP_GOLDEN_TASK_CASE_COUNT),
                 static_cast<unsigned>(mismatches));
  PBP_CHECK_EQ(mismatches, 0u);
}
