// SPDX-License-Identifier: Apache-2.0
#include "harness.hpp"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

namespace pbp_test {
namespace {
TestCase* g_first = nullptr;
TestCase* g_last = nullptr;
int g_failures_in_test = 0;
const char* g_current = "";
}  // namespace

Registrar::Registrar(TestCase* test_case) {
  // Append, so tests run in the order they are written.
  if (g_last)
    g_last->next = test_case;
  else
    g_first = test_case;
  g_last = test_case;
}

void report_failure(const char* file, int line, const char* expression) {
  ++g_failures_in_test;
  if (g_failures_in_test <= 10) printf("  FAIL %s:%d: %s\n", file, line, expression);
}

void note(const char* format, ...) {
  va_list args;
  va_start(args, format);
  printf("  note [%s]: ", g_current);
  vprintf(format, args);
  printf("\n");
  va_end(args);
}

uint32_t float_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

uint64_t double_bits(double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

}  // namespace pbp_test

int main() {
  int passed = 0, failed = 0;
  for (pbp_test::TestCase* t = pbp_test::g_first; t; t = t->next) {
    pbp_test::g_failures_in_test = 0;
    pbp_test::g_current = t->name;
    t->function();
    if (pbp_test::g_failures_in_test == 0) {
      ++passed;
      printf("[ ok ] %s\n", t->name);
    } else {
      ++failed;
      printf("[FAIL] %s (%d failed checks)\n", t->name, pbp_test::g_failures_in_test);
    }
  }
  printf("%d passed, %d failed\n", passed, failed);
  // No test at all means static constructors did not run: a broken start-up, not a pass.
  if (passed + failed == 0) printf("error: no test ran\n");
  return failed == 0 && passed > 0 ? 0 : 1;
}
