/* SPDX-License-Identifier: Apache-2.0 */
/* The C API from C99: open the tiny blob, predict every row, check the trainer's values. Its own
 * main (the harness is C++); exit code 0 on success. */
#include <stdio.h>
#include <string.h>

#include "pbp/pbp.h"
#include "tiny_blob.h"

static int failures = 0;

#define CHECK(condition)                                            \
  do {                                                              \
    if (!(condition)) {                                             \
      ++failures;                                                   \
      printf("  FAIL %s:%d: %s\n", __FILE__, __LINE__, #condition); \
    }                                                               \
  } while (0)

static double absolute(double x) {
  return x < 0 ? -x : x;
}

/* Firmware-style static buffers: the model view and a workspace sized by the macro. */
static pbp_model model;
static float workspace[PBP_WORKSPACE_FLOATS(2, 3)];

int main(void) {
  pbp_status status = pbp_open(&model, pbp_tiny_blob, PBP_TINY_BLOB_SIZE);
  uint32_t row;
  pbp_prediction p;
  pbp_string name;
  pbp_range_report range;
  CHECK(status == PBP_OK);
  CHECK(model.input_count == 2 && model.layer_count == 2 && model.max_width == 3);
  CHECK(model.workspace_bytes == sizeof workspace);
  for (row = 0; row < PBP_TINY_ROW_COUNT; ++row) {
    status = pbp_predict(&model, pbp_tiny_rows[row], 2, 0.95f, workspace, sizeof workspace, &p);
    CHECK(status == PBP_OK);
    CHECK(absolute(p.mean - pbp_tiny_expected[row][0]) <=
          1e-5 * absolute(pbp_tiny_expected[row][0]));
    CHECK(p.lower < p.mean && p.mean < p.upper);
    printf("row %u: mean %.6g std %.6g 95%% [%.6g, %.6g]\n", (unsigned)row, p.mean, p.std, p.lower,
           p.upper);
  }
  CHECK(pbp_feature_name(&model, 0, &name) == PBP_OK && name.length == 1 && name.data[0] == 'a');
  /* Row 3 is {-3, 4}: both inputs outside the training ranges, input 1 by 4 training stds. */
  CHECK(pbp_check_input_range(&model, pbp_tiny_rows[3], 2, &range) == PBP_OK);
  CHECK(range.status == PBP_RANGE_OUTSIDE && range.outside_count == 2u &&
        range.farthest_input == 1u && range.distance == 4.0f);
  CHECK(pbp_check_input_range(&model, pbp_tiny_rows[1], 2, &range) == PBP_OK);
  CHECK(range.status == PBP_RANGE_INSIDE && range.distance == 0.0f);
  status = pbp_predict(&model, pbp_tiny_rows[0], 1, 0.95f, workspace, sizeof workspace, &p);
  CHECK(status == PBP_ERR_INPUT_WIDTH);
  CHECK(strcmp(pbp_status_name(status), "PBP_ERR_INPUT_WIDTH") == 0);
  printf("%s: %s\n", pbp_status_name(status), pbp_status_string(status));
  printf("%s\n", failures == 0 ? "c_api: ok" : "c_api: FAILED");
  return failures == 0 ? 0 : 1;
}
