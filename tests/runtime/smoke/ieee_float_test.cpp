// SPDX-License-Identifier: Apache-2.0
// IEEE-754 binary32 behaviour the runtime's bit-identical results depend on. Inputs go through
// volatile variables so that the compiler cannot fold the arithmetic at compile time: the checks
// exercise the target's FPU or soft-float library, built with the runtime's flags.
#include <float.h>
#include <stdint.h>
#include <string.h>

#include "harness.hpp"

namespace {

float from_bits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

// One expression a * b + c: with -ffp-contract=fast, GCC fuses it into an FMA on AArch64,
// Cortex-M4F/M7 and x86-64 with FMA; -ffp-contract=off must keep two roundings.
float multiply_add(float a, float b, float c) {
  return a * b + c;
}

}  // namespace

PBP_TEST(float_is_ieee_binary32) {
  static_assert(sizeof(float) == 4, "float must be 32-bit");
  static_assert(FLT_MANT_DIG == 24 && FLT_MAX_EXP == 128, "float must be IEEE binary32");
  volatile float one = 1.0f;
  PBP_CHECK_EQ(pbp_test::float_bits(one), 0x3f800000u);
  volatile float three = 3.0f;
  PBP_CHECK_EQ(pbp_test::float_bits(one / three), 0x3eaaaaabu);  // correctly rounded division
  volatile float minus_zero = -0.0f;
  PBP_CHECK_EQ(pbp_test::float_bits(minus_zero), 0x80000000u);
}

PBP_TEST(float_evaluation_is_not_wider) {
  PBP_CHECK(FLT_EVAL_METHOD == 0);
  // 1 + 2^-24 is exactly halfway between 1 and the next float: rounds to even (1) only when the
  // sum is rounded to binary32 at once.
  volatile float one = 1.0f;
  volatile float half_ulp = from_bits(0x33800000u);  // 2^-24
  float sum = one + half_ulp;
  PBP_CHECK_EQ(pbp_test::float_bits(sum), 0x3f800000u);
}

PBP_TEST(round_to_nearest_even) {
  volatile float a = from_bits(0x3f800001u);                      // 1 + 2^-23 (odd last bit)
  volatile float half_ulp = from_bits(0x33800000u);               // 2^-24
  PBP_CHECK_EQ(pbp_test::float_bits(a + half_ulp), 0x3f800002u);  // tie goes up to even
  volatile float b = from_bits(0x3f800000u);
  PBP_CHECK_EQ(pbp_test::float_bits(b - half_ulp), 0x3f7fffffu);  // exact: below 1 ulp is 2^-24
  volatile float big = 16777217.0f;  // 2^24 + 1 is not representable: ties to even 2^24
  PBP_CHECK_EQ(pbp_test::float_bits(big), 0x4b800000u);
  volatile int32_t i = 16777217;
  PBP_CHECK_EQ(pbp_test::float_bits(static_cast<float>(i)), 0x4b800000u);
  volatile float negative = -2.75f;
  PBP_CHECK_EQ(static_cast<int32_t>(negative), -2);  // conversion to integer truncates
}

PBP_TEST(subnormals_are_not_flushed) {
  volatile float smallest_normal = FLT_MIN;  // 2^-126
  volatile float two = 2.0f;
  float half = smallest_normal / two;
  PBP_CHECK_EQ(pbp_test::float_bits(half), 0x00400000u);
  volatile float tiny = from_bits(0x00000001u);  // 2^-149, the smallest subnormal
  PBP_CHECK_EQ(pbp_test::float_bits(tiny * two), 0x00000002u);
  PBP_CHECK_EQ(pbp_test::float_bits(tiny + tiny), 0x00000002u);
  PBP_CHECK(tiny > 0.0f);
  PBP_CHECK_EQ(pbp_test::float_bits(tiny / two), 0x00000000u);  // 2^-150 ties to even: +0
  volatile float sub_a = from_bits(0x00400000u);
  volatile float sub_b = from_bits(0x00300000u);
  PBP_CHECK_EQ(pbp_test::float_bits(sub_a - sub_b), 0x00100000u);
  PBP_CHECK(sub_a != sub_b);  // a - b == 0 only when a == b (gradual underflow)
}

PBP_TEST(no_fused_multiply_add) {
  // a = b = 1 + 2^-12: a * b = 1 + 2^-11 + 2^-24 exactly, which rounds (tie to even) to 1 + 2^-11.
  // Unfused, a * b + c with c = -(1 + 2^-11) gives 0; a fused multiply-add gives 2^-24.
  volatile float a = from_bits(0x3f800800u);
  volatile float c = from_bits(0xbf801000u);
  float fa = a, fc = c;
  PBP_CHECK_EQ(pbp_test::float_bits(fa * fa + fc), 0x00000000u);
  PBP_CHECK_EQ(pbp_test::float_bits(multiply_add(a, a, c)), 0x00000000u);
  float sum = 0.0f;
  for (int k = 0; k < 4; ++k) sum = sum + fa * fa + fc;  // the shape of a dot-product loop
  PBP_CHECK_EQ(pbp_test::float_bits(sum), 0x00000000u);
}

PBP_TEST(infinities_and_nans) {
  volatile float zero = 0.0f;
  volatile float one = 1.0f;
  float inf = one / zero;
  PBP_CHECK_EQ(pbp_test::float_bits(inf), 0x7f800000u);
  PBP_CHECK_EQ(pbp_test::float_bits(-one / zero), 0xff800000u);
  float nan = inf * zero;
  PBP_CHECK(nan != nan);
  PBP_CHECK(!(nan < one) && !(nan > one) && !(nan == one));
  volatile float max = FLT_MAX;
  PBP_CHECK_EQ(pbp_test::float_bits(max * 2.0f), 0x7f800000u);  // overflow to +inf
}

PBP_TEST(double_is_ieee_binary64) {
  static_assert(sizeof(double) == 8 && DBL_MANT_DIG == 53, "double must be IEEE binary64");
  volatile double a = 0.1, b = 0.2;
  PBP_CHECK_EQ(pbp_test::double_bits(a + b), 0x3fd3333333333334ull);
  volatile float f = 0.1f;
  PBP_CHECK_EQ(pbp_test::double_bits(static_cast<double>(f)), 0x3fb99999a0000000ull);
  volatile double d = 0.1;
  PBP_CHECK_EQ(pbp_test::float_bits(static_cast<float>(d)), 0x3dcccccdu);
}
