/* SPDX-License-Identifier: Apache-2.0 */
/* boston_on_device: what firmware does with a model exported by `pbp export-c`.
 *
 * The Boston housing network (13 inputs -> 50 ReLU -> 1, trained by PBP on all 506 rows) is
 * compiled in as a const byte array (boston_13_50.c, stays in flash). The program opens it once,
 * then predicts a few houses and prints each prediction with its 95 % interval and the two parts
 * of its uncertainty: epistemic (the weights' uncertainty: grows away from the training data)
 * and aleatoric (the noise the model learnt: the same everywhere), then where the house lies
 * against the training data's ranges (pbp_range_report: the firmware's cue that a sensor failed or
 * the device is somewhere its model has never seen; targets/DEPLOYING.md). No heap: the model
 * view and the workspace are static.
 *
 * It is also a test: tests/examples (CTest `example_boston_on_device`) runs it on every target
 * (under QEMU) and on the host and compares its output with expected_output.txt, exactly. */
#include <math.h>
#include <stdio.h>

#include <boston_13_50.h> /* from PBP_MODEL_DIR, never this folder's copy by mistake */
#include "pbp/pbp.h"

static pbp_model model;
/* Sized by the macro `pbp export-c` wrote: PBP_WORKSPACE_BYTES(13, 50) = 852 bytes. */
static float workspace[BOSTON_13_50_WORKSPACE_BYTES / sizeof(float)];

/* A house's inputs, placed by the names `pbp export-c` wrote (BOSTON_13_50_INPUT_RM is RM's index
 * in the model's input order): the arguments follow the data set's documentation, whatever order
 * the model was trained in. A model with another input count fails to compile. */
#if BOSTON_13_50_INPUT_COUNT != 13
#error "boston_13_50 is expected to have the Boston data's 13 inputs"
#endif
#define BOSTON_HOUSE(crim, zn, indus, chas, nox, rm, age, dis, rad, tax, ptratio, b, lstat) \
  {                                                                                         \
    [BOSTON_13_50_INPUT_CRIM] = (crim), [BOSTON_13_50_INPUT_ZN] = (zn),                     \
    [BOSTON_13_50_INPUT_INDUS] = (indus), [BOSTON_13_50_INPUT_CHAS] = (chas),               \
    [BOSTON_13_50_INPUT_NOX] = (nox), [BOSTON_13_50_INPUT_RM] = (rm),                       \
    [BOSTON_13_50_INPUT_AGE] = (age), [BOSTON_13_50_INPUT_DIS] = (dis),                     \
    [BOSTON_13_50_INPUT_RAD] = (rad), [BOSTON_13_50_INPUT_TAX] = (tax),                     \
    [BOSTON_13_50_INPUT_PTRATIO] = (ptratio), [BOSTON_13_50_INPUT_B] = (b),                 \
    [BOSTON_13_50_INPUT_LSTAT] = (lstat)                                                    \
  }

typedef struct house {
  const char* what;
  float features[BOSTON_13_50_INPUT_COUNT];
} house;

static const house houses[] = {
    {"row 1 (sold for 24.0)", BOSTON_HOUSE(0.00632f, 18.0f, 2.31f, 0.0f, 0.538f, 6.575f, 65.2f,
                                           4.09f, 1.0f, 296.0f, 15.3f, 396.9f, 4.98f)},
    {"row 3 (sold for 34.7)", BOSTON_HOUSE(0.02729f, 0.0f, 7.07f, 0.0f, 0.469f, 7.185f, 61.1f,
                                           4.9671f, 2.0f, 242.0f, 17.8f, 392.83f, 4.03f)},
    {"row 374 (sold for 13.8)", BOSTON_HOUSE(11.1081f, 0.0f, 18.1f, 0.0f, 0.668f, 4.906f, 100.0f,
                                             1.1742f, 24.0f, 666.0f, 20.2f, 396.9f, 34.77f)},
    /* Row 1 with 12 rooms and a crime rate of 80: far outside the training data. */
    {"row 1, 12 rooms, crime 80", BOSTON_HOUSE(80.0f, 18.0f, 2.31f, 0.0f, 0.538f, 12.0f, 65.2f,
                                               4.09f, 1.0f, 296.0f, 15.3f, 396.9f, 4.98f)},
};

/* What a device would log: the input farthest outside the training data, and by how much. */
static void print_range(const pbp_range_report* range) {
  pbp_string name = {"?", 1};
  if (range->status == PBP_RANGE_UNKNOWN) {
    printf("%-26s the model has no training ranges\n", "");
    return;
  }
  if (range->status == PBP_RANGE_INSIDE) {
    printf("%-26s every input inside its training range\n", "");
    return;
  }
  (void)pbp_feature_name(&model, range->farthest_input, &name);
  printf("%-26s %u input(s) outside the training range, farthest %.*s: %.2f training stds\n", "",
         (unsigned)range->outside_count, (int)name.length, name.data, (double)range->distance);
}

int main(void) {
  pbp_status status = pbp_open(&model, boston_13_50, BOSTON_13_50_SIZE);
  if (status != PBP_OK) {
    printf("pbp_open: %s\n", pbp_status_string(status));
    return 1;
  }
  printf("model: %.*s, %u inputs, %u layers, %u bytes of flash, %u bytes of workspace\n",
         (int)model.target_name.length, model.target_name.data, (unsigned)model.input_count,
         (unsigned)model.layer_count, (unsigned)model.blob_size, (unsigned)model.workspace_bytes);
  for (unsigned i = 0; i < sizeof houses / sizeof houses[0]; ++i) {
    pbp_prediction p;
    status = pbp_predict(&model, houses[i].features, BOSTON_13_50_INPUT_COUNT, 0.95f, workspace,
                         sizeof workspace, &p);
    if (status != PBP_OK) {
      printf("pbp_predict: %s\n", pbp_status_string(status));
      return 1;
    }
    /* sqrtf is correctly rounded on every IEEE-754 target, so these digits are too. */
    printf("%-26s %s %7.3f  95%% [%7.3f, %7.3f]  epistemic std %6.3f  aleatoric std %6.3f\n",
           houses[i].what, BOSTON_13_50_TARGET_NAME, (double)p.mean, (double)p.lower,
           (double)p.upper, (double)sqrtf(p.epistemic_variance),
           (double)sqrtf(p.aleatoric_variance));
    print_range(&p.range);
  }
  return 0;
}
