// SPDX-License-Identifier: Apache-2.0
// format::half_to_float and float_to_half (pbp/float16.hpp) against IEEE-754 binary16, checked
// exhaustively where that is cheap (all 65536 halves, every rounding boundary between two
// neighbouring halves) and against a double-precision nearest-half search elsewhere.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "pbp/float16.hpp"

namespace {

namespace fmt = pbp::format;

float float_of(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The value of a finite half from its fields, in double: (-1)^s 2^(e-15) (1 + m/1024), or
// 2^-14 m/1024 for e = 0.
double half_value(uint16_t h) {
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  const double magnitude =
      exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

// The nearest half to x by search over the 31744 finite non-negative halves, ties to the even
// one; infinity from 65520 (where the next half would be 65536).
uint16_t nearest_half(double x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double magnitude = std::fabs(x);
  if (magnitude >= 65520.0) return sign | 0x7C00;
  uint16_t low = 0, high = 0x7BFF;  // the largest half <= magnitude, by bisection
  while (low < high) {
    const uint16_t mid = static_cast<uint16_t>((low + high + 1) / 2);
    if (half_value(mid) <= magnitude)
      low = mid;
    else
      high = static_cast<uint16_t>(mid - 1);
  }
  if (low == 0x7BFF) return sign | low;
  const double below = magnitude - half_value(low);
  const double above = half_value(static_cast<uint16_t>(low + 1)) - magnitude;
  const bool up = above < below || (above == below && (low & 1) != 0);
  return static_cast<uint16_t>(sign | (up ? low + 1 : low));
}

TEST(Float16Conversion, EveryHalfConvertsExactlyAndBack) {
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    const uint16_t half = static_cast<uint16_t>(h);
    const float value = fmt::half_to_float(half);
    const bool nan = (h & 0x7C00u) == 0x7C00u && (h & 0x3FFu) != 0u;
    if (nan) {
      EXPECT_TRUE(std::isnan(value)) << std::hex << h;
      EXPECT_TRUE(std::isnan(fmt::half_to_float(fmt::float_to_half(value)))) << std::hex << h;
      continue;
    }
    if ((h & 0x7C00u) == 0x7C00u) {
      EXPECT_TRUE(std::isinf(value)) << std::hex << h;
    } else {
      ASSERT_EQ(static_cast<double>(value), half_value(half)) << std::hex << h;
    }
    ASSERT_EQ(fmt::float_to_half(value), half) << std::hex << h;
  }
}

// Between two neighbouring finite halves, the midpoint (a float: halves have 11 significant bits)
// goes to the even one, and the floats just inside it to the nearer.
TEST(Float16Conversion, RoundsToNearestWithTiesToEven) {
  uint32_t ties = 0;
  for (uint16_t h = 0; h < 0x7BFF; ++h) {
    for (const float sign : {1.0f, -1.0f}) {
      const double low = half_value(h), high = half_value(static_cast<uint16_t>(h + 1));
      const float mid = static_cast<float>((low + high) / 2.0);
      ASSERT_EQ(static_cast<double>(mid), (low + high) / 2.0);  // exact
      const uint16_t sign_bit = sign < 0.0f ? 0x8000 : 0;
      const uint16_t even = (h & 1) ? static_cast<uint16_t>(h + 1) : h;
      ASSERT_EQ(fmt::float_to_half(sign * mid), sign_bit | even) << std::hex << h;
      ASSERT_EQ(fmt::float_to_half(sign * std::nextafter(mid, 0.0f)), sign_bit | h);
      ASSERT_EQ(fmt::float_to_half(sign * std::nextafter(mid, 1e9f)), sign_bit | (h + 1));
      ++ties;
    }
  }
  EXPECT_EQ(ties, 2u * 0x7BFFu);
}

TEST(Float16Conversion, RangeEnds) {
  EXPECT_EQ(fmt::float_to_half(65504.0f), 0x7BFF);
  EXPECT_EQ(fmt::float_to_half(std::nextafter(65520.0f, 0.0f)), 0x7BFF);
  EXPECT_EQ(fmt::float_to_half(65520.0f), 0x7C00);  // the tie above the largest half is odd: up
  EXPECT_EQ(fmt::float_to_half(-1e30f), 0xFC00);
  EXPECT_EQ(fmt::float_to_half(INFINITY), 0x7C00);
  EXPECT_EQ(fmt::float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // tie between 0 and 2^-24: even
  EXPECT_EQ(fmt::float_to_half(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(fmt::float_to_half(-std::ldexp(1.0f, -26)), 0x8000);
  EXPECT_EQ(fmt::float_to_half(float_of(0x00000001u)), 0x0000);     // float subnormals: zero
  EXPECT_EQ(fmt::float_to_half(std::ldexp(1023.5f, -24)), 0x0400);  // carry into the exponent
  EXPECT_TRUE(std::isnan(fmt::half_to_float(fmt::float_to_half(NAN))));
}

// Floats spread over every exponent (a fixed linear congruential sequence of bit patterns).
TEST(Float16Conversion, MatchesNearestHalfSearch) {
  uint32_t state = 12345u;
  for (int i = 0; i < 300000; ++i) {
    state = state * 1664525u + 1013904223u;
    // Exponents from 2^-30 to 2^17: past both ends of the half range.
    const uint32_t exponent = 97u + (state >> 24) % 48u;
    const uint32_t bits = (state & 0x80000000u) | (exponent << 23) | ((state * 2654435761u) >> 9);
    const float value = float_of(bits);
    ASSERT_EQ(fmt::float_to_half(value), nearest_half(value)) << std::hex << bits;
  }
}

}  // namespace
