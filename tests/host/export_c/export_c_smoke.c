/* SPDX-License-Identifier: Apache-2.0 */
/* Firmware-style use of `pbp export-c` output, compiled as C99: the generated array opens and
 * predicts with a workspace sized by the generated macros, the input row filled through the
 * inputs' macros, whose names, training ranges (exact float literals) and target name must be the
 * blob's own. */
#include <stdio.h>
#include <string.h>

#include "pbp/pbp.h"
#include "tiny_export.h"

static pbp_model model;
static float workspace[TINY_EXPORT_WORKSPACE_BYTES / sizeof(float)];

static int same_text(pbp_string text, const char* expected) {
  return text.length == strlen(expected) && memcmp(text.data, expected, text.length) == 0;
}

/* The header's facts about input `index` against the opened blob's. */
static int header_matches(uint32_t index, const char* name, float min, float max) {
  pbp_string blob_name = {"", 0};
  return pbp_feature_name(&model, index, &blob_name) == PBP_OK && same_text(blob_name, name) &&
         model.input_min[index] == min && model.input_max[index] == max;
}

int main(void) {
  const float x[TINY_EXPORT_INPUT_COUNT] = {
      [TINY_EXPORT_INPUT_A] = 0.5f, [TINY_EXPORT_INPUT_BC] = -1.0f};
  pbp_prediction p;
  pbp_status status = pbp_open(&model, tiny_export, TINY_EXPORT_SIZE);
  if (status == PBP_OK && (!header_matches(TINY_EXPORT_INPUT_A, TINY_EXPORT_INPUT_A_NAME,
                                           TINY_EXPORT_INPUT_A_MIN, TINY_EXPORT_INPUT_A_MAX) ||
                           !header_matches(TINY_EXPORT_INPUT_BC, TINY_EXPORT_INPUT_BC_NAME,
                                           TINY_EXPORT_INPUT_BC_MIN, TINY_EXPORT_INPUT_BC_MAX) ||
                           !same_text(model.target_name, TINY_EXPORT_TARGET_NAME))) {
    printf("export-c smoke: the header's inputs are not the blob's\n");
    return 1;
  }
  if (status == PBP_OK) {
    status = pbp_predict(&model, x, TINY_EXPORT_INPUT_COUNT, 0.9f, workspace, sizeof workspace, &p);
  }
  if (status == PBP_OK && ((uintptr_t)tiny_export % 8u) != 0) status = PBP_ERR_MISALIGNED_POINTER;
  printf("export-c smoke: %s", pbp_status_name(status));
  if (status == PBP_OK) printf(", mean %g, 90%% [%g, %g]", p.mean, p.lower, p.upper);
  printf("\n");
  return status == PBP_OK ? 0 : 1;
}
