/* SPDX-License-Identifier: Apache-2.0 */
/* Measures, on a bare-metal board, the stack pbp_open and pbp_predict use with the Boston model:
 * paints the free stack below the caller, makes the call, and finds the lowest word written
 * (the porting layer's stack painting, targets/boards/board.h). Prints "pbp_open stack N bytes"
 * and "pbp_predict stack N bytes" (CTest example_boston_on_device_stack;
 * targets/tools/size-report.sh --os collects them). */
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include <boston_13_50.h> /* from PBP_MODEL_DIR, never this folder's copy by mistake */
#include "pbp/pbp.h"

static pbp_model model;
static float workspace[BOSTON_13_50_WORKSPACE_BYTES / sizeof(float)];
/* Row 1 of the data, each value placed by its input's name (the macros of boston_13_50.h). */
static const float row1[BOSTON_13_50_INPUT_COUNT] = {
    [BOSTON_13_50_INPUT_CRIM] = 0.00632f, [BOSTON_13_50_INPUT_ZN] = 18.0f,
    [BOSTON_13_50_INPUT_INDUS] = 2.31f,   [BOSTON_13_50_INPUT_CHAS] = 0.0f,
    [BOSTON_13_50_INPUT_NOX] = 0.538f,    [BOSTON_13_50_INPUT_RM] = 6.575f,
    [BOSTON_13_50_INPUT_AGE] = 65.2f,     [BOSTON_13_50_INPUT_DIS] = 4.09f,
    [BOSTON_13_50_INPUT_RAD] = 1.0f,      [BOSTON_13_50_INPUT_TAX] = 296.0f,
    [BOSTON_13_50_INPUT_PTRATIO] = 15.3f, [BOSTON_13_50_INPUT_B] = 396.9f,
    [BOSTON_13_50_INPUT_LSTAT] = 4.98f};

int main(void) {
  uintptr_t mark = pbp_board_stack_paint();
  pbp_status status = pbp_open(&model, boston_13_50, BOSTON_13_50_SIZE);
  const uint32_t open_bytes = pbp_board_stack_used(mark);
  pbp_prediction p;
  mark = pbp_board_stack_paint();
  if (status == PBP_OK) {
    status =
        pbp_predict(&model, row1, BOSTON_13_50_INPUT_COUNT, 0.95f, workspace, sizeof workspace, &p);
  }
  const uint32_t predict_bytes = pbp_board_stack_used(mark);
  printf("pbp_open stack %lu bytes\npbp_predict stack %lu bytes\n", (unsigned long)open_bytes,
         (unsigned long)predict_bytes);
  return status == PBP_OK ? 0 : 1;
}
