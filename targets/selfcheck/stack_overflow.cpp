// SPDX-License-Identifier: Apache-2.0
// Unbounded recursion must fault (the stack sits at the bottom of RAM), not corrupt data or hang.
#include <stdint.h>

#include "harness.hpp"

namespace {
volatile int g_limit = 1 << 30;  // never reached: keeps -Winfinite-recursion quiet

int recurse(volatile uint8_t* previous, int depth) {
  volatile uint8_t frame[256];
  if (depth > g_limit) return 0;
  frame[0] = static_cast<uint8_t>(depth);
  frame[255] = previous ? previous[0] : 0;
  return recurse(frame, depth + 1) + frame[255];
}
}  // namespace

PBP_TEST(stack_overflow) {
  int result = recurse(nullptr, 0);
  PBP_CHECK(result == 0);
}
