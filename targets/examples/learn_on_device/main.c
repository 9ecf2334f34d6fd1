/* SPDX-License-Identifier: Apache-2.0 */
/* learn_on_device: a device that goes on learning after deployment
 * (runtime/include/pbp/pbp_learn.h).
 *
 * It starts from a Boston housing network (13 inputs -> 50 ReLU -> 1) trained by PBP on 100 rows
 * only (boston_start.c, in flash), then learns from a stream of 355 more labelled rows, one
 * pbp_learn_update each, in fixed RAM (the learner's state and workspace are static; no heap).
 * Every 71 rows it reports, on 51 test rows it never learns from, the RMSE of its predictions and
 * their mean epistemic std: both end well below where they started (on the way the epistemic
 * std first rises, as the weights leave the 100-row fit for the rest of the city). At the end it
 * writes the learnt model back as a blob and prints its CRC-32: `pbp learn --model boston_start.pbp
 * --data stream.csv` on a workstation writes the same bytes (CTest example_learn_on_device_host).
 *
 * What it learns survives a reset (pbp_store.h, targets/DEPLOYING.md section 8): every 71 rows it
 * saves the learner into one of two flash slots (ram_flash.c: RAM that behaves as NOR flash,
 * standing in for the board's flash driver), and after row 213 it restarts itself: everything in
 * RAM but the flash is dropped and the boot path runs again (open the newest slot, rebuild the
 * learner from it), which must predict the 51 test rows bit for bit as before the restart, and
 * learn on to the same final blob.
 *
 * It is also a test: its output must equal expected_output.txt exactly on the host and on every
 * target that has the RAM (not the micro:bit's 16 KiB). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "boston_rows.h"
#include "boston_start.h"
#include "pbp/pbp.h"
#include "pbp/pbp_learn.h"
#include "pbp/pbp_store.h"
#include "ram_flash.h"

#define WEIGHTS 751u /* 13-50-1: 50 x 14 + 51 */
#define UNITS 51u    /* 50 + 1 */
#define SAVE_EVERY 71u
#define RESTART_AFTER 213u /* rows: after the third save */
/* What the learner writes: the float32 source and its running check (the learn_check section). */
#define LEARNT_BYTES PBP_LEARN_WRITTEN_BYTES(BOSTON_START_SIZE)
#define SLOT_BYTES PBP_STORE_SLOT_BYTES(LEARNT_BYTES, RAM_FLASH_PAGE)

static pbp_model start;
static pbp_learner learner;
static float state[PBP_LEARN_STATE_BYTES(WEIGHTS) / sizeof(float)];
static float update_workspace[PBP_LEARN_WORKSPACE_FLOATS(BOSTON_START_INPUT_COUNT, UNITS)];
static float predict_workspace[BOSTON_START_WORKSPACE_BYTES / sizeof(float)];
static uint32_t learnt_blob[LEARNT_BYTES / 4];
static uint32_t flash_memory[2u * SLOT_BYTES / 4u]; /* the two slots */
static pbp_flash flash;
static pbp_store store;
static uint32_t boot_blob[LEARNT_BYTES / 4]; /* the slot booted from: the learner's source */
static float test_means[BOSTON_TEST_ROWS], test_variances[BOSTON_TEST_ROWS]; /* last report's */

/* A data row (the CSV's columns, boston_rows.h) as the model's inputs, each value placed by its
 * column's name (the macros of boston_start.h): the CSV need not list them in the model's order. */
#if BOSTON_START_INPUT_COUNT != 13
#error "boston_start is expected to have the Boston data's 13 inputs"
#endif
#define PLACE(column) x[BOSTON_START_INPUT_##column] = row[BOSTON_ROW_##column]
static const float* model_inputs(const float* row) {
  static float x[BOSTON_START_INPUT_COUNT];
  PLACE(CRIM), PLACE(ZN), PLACE(INDUS), PLACE(CHAS), PLACE(NOX), PLACE(RM), PLACE(AGE);
  PLACE(DIS), PLACE(RAD), PLACE(TAX), PLACE(PTRATIO), PLACE(B), PLACE(LSTAT);
  return x;
}

/* Test RMSE and mean epistemic std of the learnt model, in MEDV units (float, source order). */
static int report(unsigned rows_learnt) {
  float squared = 0.0f, epistemic = 0.0f;
  for (unsigned i = 0; i < BOSTON_TEST_ROWS; ++i) {
    pbp_prediction p;
    const pbp_status status =
        pbp_predict(&learner.model, model_inputs(boston_test[i]), BOSTON_START_INPUT_COUNT, 0.95f,
                    predict_workspace, sizeof predict_workspace, &p);
    if (status != PBP_OK) {
      printf("pbp_predict: %s\n", pbp_status_string(status));
      return 1;
    }
    test_means[i] = p.mean;
    test_variances[i] = p.epistemic_variance;
    const float error = p.mean - boston_test[i][BOSTON_ROW_MEDV];
    squared += error * error;
    epistemic += sqrtf(p.epistemic_variance); /* correctly rounded on every IEEE-754 target */
  }
  printf("after %3u rows: test RMSE %7.4f   mean epistemic std %6.4f\n", rows_learnt,
         (double)sqrtf(squared / (float)BOSTON_TEST_ROWS),
         (double)(epistemic / (float)BOSTON_TEST_ROWS));
  return 0;
}

/* The boot path: the model the store holds (its newest slot that opens, else the older one, else
 * the factory blob) and a learner started from it. */
static int boot(void) {
  static const char* const from[] = {"the factory blob", "the newest slot", "the older slot"};
  pbp_store_source source = PBP_STORE_FACTORY;
  pbp_status status =
      pbp_store_init(&store, &flash, 0, SLOT_BYTES, SLOT_BYTES, boston_start, BOSTON_START_SIZE);
  if (status == PBP_OK)
    status = pbp_store_boot(&store, boot_blob, sizeof boot_blob, &start, &source);
  if (status == PBP_OK) status = pbp_learn_init(&learner, &start, state, sizeof state);
  if (status != PBP_OK) {
    printf("boot: %s\n", pbp_status_string(status));
    return 1;
  }
  if (source == PBP_STORE_FACTORY)
    printf("boot: %s\n", from[source]);
  else
    printf("boot: %s (slot %u, sequence %u)\n", from[source], (unsigned)store.current,
           (unsigned)store.sequence);
  return 0;
}

static int save(void) {
  const uint32_t erased = ram_flash_erased, programmed = ram_flash_programmed;
  const pbp_status status = pbp_store_save(&store, &learner, learnt_blob, sizeof learnt_blob);
  if (status != PBP_OK) {
    printf("pbp_store_save: %s\n", pbp_status_string(status));
    return 1;
  }
  printf("  saved to slot %u (sequence %u): %u bytes erased, %u programmed\n",
         (unsigned)store.current, (unsigned)store.sequence, (unsigned)(ram_flash_erased - erased),
         (unsigned)(ram_flash_programmed - programmed));
  return 0;
}

/* A reset: all RAM but the flash is lost; the boot path runs again and must predict as before. */
static int restart(unsigned rows_learnt) {
  float means[BOSTON_TEST_ROWS], variances[BOSTON_TEST_ROWS];
  memcpy(means, test_means, sizeof means);
  memcpy(variances, test_variances, sizeof variances);
  memset(&learner, 0, sizeof learner);
  memset(&start, 0, sizeof start);
  memset(&store, 0, sizeof store);
  memset(state, 0, sizeof state);
  memset(boot_blob, 0, sizeof boot_blob);
  printf("restart\n");
  if (boot() != 0 || report(rows_learnt) != 0) return 1;
  unsigned same = 0;
  for (unsigned i = 0; i < BOSTON_TEST_ROWS; ++i)
    same += memcmp(&means[i], &test_means[i], sizeof(float)) == 0 &&
            memcmp(&variances[i], &test_variances[i], sizeof(float)) == 0;
  printf("  %u of %u test predictions bit for bit as before the restart\n", same,
         (unsigned)BOSTON_TEST_ROWS);
  return same == BOSTON_TEST_ROWS ? 0 : 1;
}

int main(void) {
  flash = ram_flash(flash_memory, sizeof flash_memory);
  if (boot() != 0) return 1;
  printf("learning on the device: state %u bytes, workspace %u bytes, blob %u bytes\n",
         (unsigned)sizeof state, (unsigned)learner.workspace_bytes, (unsigned)start.blob_size);
  if (report(0) != 0) return 1;
  unsigned skipped = 0, learnt = 0;
  for (unsigned r = 0; r < BOSTON_STREAM_ROWS; ++r) {
    pbp_learn_outcome outcome;
    pbp_status status = pbp_learn_update(
        &learner, model_inputs(boston_stream[r]), BOSTON_START_INPUT_COUNT,
        boston_stream[r][BOSTON_ROW_MEDV], update_workspace, sizeof update_workspace, &outcome);
    if (status != PBP_OK) {
      printf("row %u: %s\n", r, pbp_status_string(status));
      return 1;
    }
    ++learnt;
    skipped += outcome.skipped_weights;
    if ((r + 1) % SAVE_EVERY == 0 && (report(r + 1) != 0 || save() != 0)) return 1;
    if (r + 1 == RESTART_AFTER && restart(r + 1) != 0) return 1;
  }
  size_t size = 0;
  pbp_status status = pbp_learn_write_blob(&learner, learnt_blob, sizeof learnt_blob, &size);
  if (status != PBP_OK) {
    printf("pbp_learn_write_blob: %s\n", pbp_status_string(status));
    return 1;
  }
  /* The CRC-32 trailer: the blob's last 4 bytes (little-endian on every supported target). */
  printf("learnt %u rows (%u weight updates skipped); blob %u bytes, CRC-32 0x%08lx\n", learnt,
         skipped, (unsigned)size, (unsigned long)learnt_blob[size / 4 - 1]);
  return 0;
}
