/* SPDX-License-Identifier: Apache-2.0 */
/* target_cost: what one prediction costs on this target, per model blob, for the cost table that
 * `pbp inspect --target` reads (`tools/bench/target_cost.py fit` fits it, `... check` checks it).
 * Under QEMU with the instruction-count plugin marking cost_mark (count-instructions.sh,
 * PBP_COUNT_MARK), each prediction runs between two marks.
 *
 * It reads blob0.pbp, blob1.pbp, ... from the current directory (semihosting on bare metal, the
 * file system on Linux) into RAM until one is missing, or, built with COST_FLASH_BLOB (a path:
 * target_cost_flash, with flash_blob.c, for a board whose RAM cannot hold the blob), runs that
 * one from flash, and for each prints
 *   blob <i>: rows <R> stack <bytes>      (or "blob <i>: <status>" if it does not open)
 * after R predictions on rows drawn around the model's input standardisation (the same rows for
 * every blob of that standardisation). Before the first blob, two marks in a row: what a mark
 * costs by itself. The stack is the high-water mark of one
 * prediction, painted and scanned at the same depth. */
#include <stdint.h>
#include <stdio.h>

#include "pbp/pbp.h"

#ifndef COST_MAX_BLOB_BYTES
#define COST_MAX_BLOB_BYTES 3900000u
#endif
#ifndef COST_MAX_INPUTS
#define COST_MAX_INPUTS 1024u
#endif
#ifndef COST_MAX_WIDTH
#define COST_MAX_WIDTH 512u
#endif
#ifndef COST_STACK_PAINT_WORDS
#define COST_STACK_PAINT_WORDS 512u
#endif
#ifndef COST_MAX_CLASSES
#define COST_MAX_CLASSES PBP_MAX_CLASSES
#endif
#define COST_ROWS 4u
#define COST_PAINT 0x5AA5C33Cu

#ifdef COST_FLASH_BLOB
extern const uint8_t cost_flash_blob[], cost_flash_blob_end[]; /* flash_blob.c */
#else
static uint32_t blob[COST_MAX_BLOB_BYTES / 4u];
#endif
static float workspace[PBP_WORKSPACE_FLOATS(COST_MAX_INPUTS, COST_MAX_WIDTH)];
static float row[COST_MAX_INPUTS];
static float probabilities[COST_MAX_CLASSES];
static pbp_model model;
#define COST_SEED 12345u
static uint32_t lcg;
volatile float cost_sink;

/* The plugin's marker: only its address matters. */
__attribute__((noinline)) void cost_mark(void) {
  __asm__ volatile("" ::: "memory");
}

/* Paint, then scan, the same stack words below the caller's frame: the caller calls both at one
 * depth, with the prediction between. */
static uintptr_t painted; /* the lowest painted word */
__attribute__((noinline)) static void paint_stack(void) {
  volatile uint32_t words[COST_STACK_PAINT_WORDS];
  for (uint32_t i = 0; i < COST_STACK_PAINT_WORDS; ++i) words[i] = COST_PAINT;
  painted = (uintptr_t)words;
}
__attribute__((noinline)) static uint32_t stack_used(void) {
  uint32_t i = 0;
  while (i < COST_STACK_PAINT_WORDS && ((const volatile uint32_t*)painted)[i] == COST_PAINT) ++i;
  return 4u * (COST_STACK_PAINT_WORDS - i);
}

static uint32_t next_random(void) {
  lcg = lcg * 1664525u + 1013904223u;
  return lcg >> 8;
}

static void make_row(void) {
  for (uint32_t k = 0; k < model.input_count; ++k) {
    const float u = (float)next_random() * (4.0f / 16777216.0f) - 2.0f; /* [-2, 2) */
    row[k] = model.input_mean[k] + model.input_std[k] * u;
  }
}

__attribute__((noinline)) static pbp_status predict(void) {
  switch (model.task) {
    case PBP_TASK_REGRESSION: {
      pbp_prediction p;
      const pbp_status s =
          pbp_predict(&model, row, model.input_count, 0.95f, workspace, sizeof workspace, &p);
      cost_sink = p.std;
      return s;
    }
    case PBP_TASK_COUNT_DATA: {
      pbp_count_result c;
      const pbp_status s =
          pbp_predict_count(&model, row, model.input_count, 0.95f, workspace, sizeof workspace, &c);
      cost_sink = c.mean;
      return s;
    }
    default: {
      pbp_class_result r;
      const pbp_status s =
          pbp_predict_classes(&model, row, model.input_count, workspace, sizeof workspace,
                              probabilities, COST_MAX_CLASSES, &r);
      cost_sink = r.confidence;
      return s;
    }
  }
}

#ifndef COST_FLASH_BLOB
static size_t read_blob(const char* name) {
  FILE* f = fopen(name, "rb");
  if (f == NULL) return 0;
  const size_t n = fread(blob, 1, sizeof blob, f);
  const int more = fgetc(f) != EOF;
  fclose(f);
  return more ? sizeof blob + 1u : n;
}
#endif

static int measure(uint32_t index, const void* data, size_t size) {
  const pbp_status opened = pbp_open(&model, data, size);
  if (opened != PBP_OK || model.input_count > COST_MAX_INPUTS ||
      model.workspace_bytes > sizeof workspace) {
    printf("blob %u: %s\n", (unsigned)index,
           opened != PBP_OK ? pbp_status_name(opened) : "wider than this build's workspace");
    return 0;
  }
  uint32_t stack = 0;
  /* The same rows for a blob wherever it runs (in RAM after others, or alone from flash), and for
   * blobs of one input standardisation: a blob and its twin without sections 7 to 9 differ only
   * by what those cost. */
  lcg = COST_SEED;
  for (uint32_t r = 0; r < COST_ROWS; ++r) {
    make_row();
    paint_stack();
    cost_mark();
    const pbp_status s = predict();
    cost_mark();
    const uint32_t used = stack_used();
    stack = used > stack ? used : stack;
    if (s != PBP_OK) {
      printf("blob %u: prediction failed: %s\n", (unsigned)index, pbp_status_name(s));
      return 1;
    }
  }
  printf("blob %u: rows %u stack %u\n", (unsigned)index, (unsigned)COST_ROWS, (unsigned)stack);
  return 0;
}

int main(void) {
  cost_mark();
  cost_mark();
#ifdef COST_FLASH_BLOB
  return measure(0, cost_flash_blob, (size_t)(cost_flash_blob_end - cost_flash_blob));
#else
  int failed = 0;
  for (uint32_t i = 0;; ++i) {
    char name[32];
    snprintf(name, sizeof name, "blob%u.pbp", (unsigned)i);
    const size_t size = read_blob(name);
    if (size == 0) break;
    if (size > sizeof blob) {
      printf("blob %u: larger than the %u bytes of this build's buffer\n", (unsigned)i,
             (unsigned)sizeof blob);
      continue;
    }
    failed |= measure(i, blob, size);
  }
  return failed;
#endif
}
