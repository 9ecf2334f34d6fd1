/* Measures, on a Cortex-M board, the stack pbp_open and pbp_predict use with the Boston model:
 * paints the free stack below the caller, makes the call, and finds the lowest word written.
 * Prints "pbp_open stack N bytes" and "pbp_predict stack N bytes" (CTest
 * example_boston_on_device_stack; targets/tools/size-report.sh --os collects them). Bare metal
 * only: it reads the linker script's __stack_base (targets/boards/cortex-m/cortex-m.ld). */
#include <stdint.h>
#include <stdio.h>

#include "boston_13_50.h"
#include "pbp/pbp.h"

extern uint32_t __stack_base[];

static pbp_model model;
static float workspace[BOSTON_13_50_WORKSPACE_BYTES / sizeof(float)];
static const float row1[BOSTON_13_50_INPUT_COUNT] = {
    0.00632f, 18.0f, 2.31f, 0.0f, 0.538f, 6.575f, 65.2f, 4.09f, 1.0f, 296.0f, 15.3f, 396.9f, 4.98f};
static const uint32_t kPaint = 0x5AA5C33Cu; /* the board's own paint (startup.c) */
/* Above the ARMv7-M MPU guard region (256 bytes) at the bottom of the stack. */
static uint32_t* const kLow = __stack_base + 512 / sizeof(uint32_t);

static uint32_t* paint(void) {
  uint32_t* sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  for (volatile uint32_t* p = kLow; p < sp - 16;) *p++ = kPaint;
  return sp;
}

static uint32_t used_below(const uint32_t* sp) {
  const uint32_t* p = kLow;
  while (p < sp && *p == kPaint) ++p;
  return (uint32_t)((const char*)sp - (const char*)p);
}

int main(void) {
  uint32_t* sp = paint();
  pbp_status status = pbp_open(&model, boston_13_50, BOSTON_13_50_SIZE);
  const uint32_t open_bytes = used_below(sp);
  pbp_prediction p;
  sp = paint();
  if (status == PBP_OK) {
    status =
        pbp_predict(&model, row1, BOSTON_13_50_INPUT_COUNT, 0.95f, workspace, sizeof workspace, &p);
  }
  const uint32_t predict_bytes = used_below(sp);
  printf("pbp_open stack %lu bytes\npbp_predict stack %lu bytes\n", (unsigned long)open_bytes,
         (unsigned long)predict_bytes);
  return status == PBP_OK ? 0 : 1;
}
