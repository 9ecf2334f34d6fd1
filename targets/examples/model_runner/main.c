/* SPDX-License-Identifier: Apache-2.0 */
/* model_runner: runs any model blob on the device and prints every output bit-exactly, so that a
 * host can check that the device computes the same bits (`pbp demo` does, through
 * targets/tools/run-on-device.sh).
 *
 * It reads two files from the current directory, over semihosting on the bare-metal boards (QEMU
 * maps them to the host's files) and from the file system on Linux targets:
 *   model.pbp   the blob, at most PBP_RUNNER_MAX_BLOB_BYTES bytes
 *   inputs.f32  input rows, little-endian float32, input_count values per row
 * and prints, per row, "row <i>" then name=<hex bits of the float> for every output of the
 * model's task (regression: the 95 % interval too), then the row's pbp_range_report
 * (range_status, range_outside, range_input as hex integers, range_distance as float bits). The
 * firmware a product ships keeps its blob in flash (see boston_on_device); loading it into RAM here
 * only lets one binary run any model.
 *
 * It is also a test (CTest `example_model_runner`): on every target and the host its output for
 * the committed model and inputs must equal expected_output.txt exactly. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pbp/pbp.h"

#ifndef PBP_RUNNER_MAX_BLOB_BYTES
#define PBP_RUNNER_MAX_BLOB_BYTES 65536u
#endif
#ifndef PBP_RUNNER_MAX_INPUTS
#define PBP_RUNNER_MAX_INPUTS 1024u
#endif
#ifndef PBP_RUNNER_MAX_WIDTH
#define PBP_RUNNER_MAX_WIDTH 512u /* widest layer */
#endif

static uint32_t blob[PBP_RUNNER_MAX_BLOB_BYTES / 4u]; /* pbp_open needs 4-byte alignment */
static float
    workspace[PBP_WORKSPACE_BYTES(PBP_RUNNER_MAX_INPUTS, PBP_RUNNER_MAX_WIDTH) / sizeof(float)];
static float row[PBP_RUNNER_MAX_INPUTS];
static float probabilities[PBP_MAX_CLASSES];
static pbp_model model;

static uint32_t float_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

static void print_output(const char* name, float value) {
  printf(" %s=%08lx", name, (unsigned long)float_bits(value));
}

static pbp_status run_row(uint32_t index) {
  pbp_status status;
  pbp_range_report range;
  printf("row %lu", (unsigned long)index);
  if (model.task == PBP_TASK_REGRESSION) {
    pbp_prediction p;
    status = pbp_predict(&model, row, model.input_count, 0.95f, workspace, sizeof workspace, &p);
    if (status != PBP_OK) return status;
    print_output("mean", p.mean);
    print_output("std", p.std);
    print_output("epistemic_variance", p.epistemic_variance);
    print_output("aleatoric_variance", p.aleatoric_variance);
    print_output("lower95", p.lower);
    print_output("upper95", p.upper);
    range = p.range;
  } else if (model.task == PBP_TASK_COUNT_DATA) {
    pbp_count_result c;
    status =
        pbp_predict_count(&model, row, model.input_count, 0.95f, workspace, sizeof workspace, &c);
    if (status != PBP_OK) return status;
    print_output("mean", c.mean);
    print_output("variance", c.variance);
    print_output("mode", c.mode);
    print_output("lower95", c.lower);
    print_output("upper95", c.upper);
    range = c.range;
  } else {
    pbp_class_result r;
    uint32_t c;
    char name[16];
    status = pbp_predict_classes(&model, row, model.input_count, workspace, sizeof workspace,
                                 probabilities, PBP_MAX_CLASSES, &r);
    if (status != PBP_OK) return status;
    for (c = 0; c < r.class_count; ++c) {
      snprintf(name, sizeof name, "p%lu", (unsigned long)c);
      print_output(name, probabilities[c]);
    }
    print_output("entropy", r.entropy);
    range = r.range;
  }
  printf(" range_status=%08lx range_outside=%08lx range_input=%08lx", (unsigned long)range.status,
         (unsigned long)range.outside_count, (unsigned long)range.farthest_input);
  print_output("range_distance", range.distance);
  printf("\n");
  return PBP_OK;
}

int main(void) {
  FILE* file = fopen("model.pbp", "rb");
  size_t size, row_bytes, got;
  uint32_t rows = 0;
  pbp_status status;
  if (file == NULL) {
    printf("model_runner: cannot open model.pbp\n");
    return 1;
  }
  size = fread(blob, 1, sizeof blob, file);
  if (size == sizeof blob && fgetc(file) != EOF) {
    printf("model_runner: model.pbp is larger than this device's %u-byte buffer\n",
           (unsigned)sizeof blob);
    fclose(file);
    return 1;
  }
  fclose(file);
  status = pbp_open(&model, blob, size);
  if (status != PBP_OK) {
    printf("model_runner: pbp_open: %s\n", pbp_status_string(status));
    return 1;
  }
  if (model.input_count > PBP_RUNNER_MAX_INPUTS || model.workspace_bytes > sizeof workspace) {
    printf(
        "model_runner: the model (%lu inputs, %lu bytes of workspace) exceeds this build's "
        "%u inputs and %u bytes\n",
        (unsigned long)model.input_count, (unsigned long)model.workspace_bytes,
        (unsigned)PBP_RUNNER_MAX_INPUTS, (unsigned)sizeof workspace);
    return 1;
  }
  printf("model %lu bytes, task %lu, %lu inputs\n", (unsigned long)size, (unsigned long)model.task,
         (unsigned long)model.input_count);

  file = fopen("inputs.f32", "rb");
  if (file == NULL) {
    printf("model_runner: cannot open inputs.f32\n");
    return 1;
  }
  /* Float32 little-endian on every supported target, so the file's bytes are the floats. Read
   * as bytes: a file that ends inside a row is an error, not a silently shorter input. */
  row_bytes = model.input_count * sizeof(float);
  while ((got = fread(row, 1, row_bytes, file)) == row_bytes) {
    status = run_row(rows++);
    if (status != PBP_OK) {
      printf("\nmodel_runner: row %lu: %s\n", (unsigned long)(rows - 1u),
             pbp_status_string(status));
      fclose(file);
      return 1;
    }
  }
  fclose(file);
  if (got != 0) {
    printf(
        "model_runner: inputs.f32 ends inside a row: %lu bytes after %lu complete rows, but each "
        "row is %lu floats (%lu bytes)\n",
        (unsigned long)got, (unsigned long)rows, (unsigned long)model.input_count,
        (unsigned long)row_bytes);
    return 1;
  }
  printf("%lu rows\n", (unsigned long)rows);
  return 0;
}
