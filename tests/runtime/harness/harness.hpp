// SPDX-License-Identifier: Apache-2.0
// A test harness small enough for bare metal: no heap, no exceptions, printf only.
// Each test folder builds one executable; tests register themselves with PBP_TEST.
#pragma once
#include <stdint.h>

namespace pbp_test {

using TestFunction = void (*)();

struct TestCase {
  const char* name;
  TestFunction function;
  TestCase* next;
};

// Registers a test at static-initialisation time (an intrusive list, so nothing allocates).
struct Registrar {
  Registrar(TestCase* test_case);
};

// Records a failed check; the test keeps running so that every failure is reported.
void report_failure(const char* file, int line, const char* expression);
// Prints a note attached to the current test (for figures such as measured ulp errors).
void note(const char* format, ...) __attribute__((format(printf, 1, 2)));
uint32_t float_bits(float value);
uint64_t double_bits(double value);

// xorshift32: the same pseudo-random sequence on every target (state != 0).
inline uint32_t next_random(uint32_t& state) {
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  return state;
}

}  // namespace pbp_test

#define PBP_TEST_CONCAT_(a, b) a##b
#define PBP_TEST_CONCAT(a, b) PBP_TEST_CONCAT_(a, b)

#define PBP_TEST(name)                                                                      \
  static void PBP_TEST_CONCAT(pbp_test_fn_, name)();                                        \
  static pbp_test::TestCase PBP_TEST_CONCAT(pbp_test_case_, name) = {                       \
      #name, &PBP_TEST_CONCAT(pbp_test_fn_, name), nullptr};                                \
  static pbp_test::Registrar PBP_TEST_CONCAT(pbp_test_registrar_,                           \
                                             name)(&PBP_TEST_CONCAT(pbp_test_case_, name)); \
  static void PBP_TEST_CONCAT(pbp_test_fn_, name)()

#define PBP_CHECK(condition)                                                    \
  do {                                                                          \
    if (!(condition)) pbp_test::report_failure(__FILE__, __LINE__, #condition); \
  } while (0)

#define PBP_CHECK_EQ(a, b) PBP_CHECK((a) == (b))
