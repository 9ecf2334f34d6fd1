/* SPDX-License-Identifier: Apache-2.0 */
/* Firmware-style use of `pbp export-c` output, compiled as C99: the generated array opens and
 * predicts with a workspace sized by the generated macros. */
#include <stdio.h>

#include "pbp/pbp.h"
#include "tiny_export.h"

static pbp_model model;
static float workspace[TINY_EXPORT_WORKSPACE_BYTES / sizeof(float)];

int main(void) {
  const float x[TINY_EXPORT_INPUT_COUNT] = {0.5f, -1.0f};
  pbp_prediction p;
  pbp_status status = pbp_open(&model, tiny_export, TINY_EXPORT_SIZE);
  if (status == PBP_OK) {
    status = pbp_predict(&model, x, TINY_EXPORT_INPUT_COUNT, 0.9f, workspace, sizeof workspace, &p);
  }
  if (status == PBP_OK && ((uintptr_t)tiny_export % 8u) != 0) status = PBP_ERR_MISALIGNED_POINTER;
  printf("export-c smoke: %s", pbp_status_name(status));
  if (status == PBP_OK) printf(", mean %g, 90%% [%g, %g]", p.mean, p.lower, p.upper);
  printf("\n");
  return status == PBP_OK ? 0 : 1;
}
