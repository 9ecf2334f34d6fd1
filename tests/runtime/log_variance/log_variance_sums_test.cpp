// SPDX-License-Identifier: Apache-2.0
// Storage type 4's pieces (format.hpp's int8_log_variance, linear_moments_s8_s16.hpp): the
// decoded values follow the table, and the int8 kernel's spread sums over logarithmic codes are
// the exact integers a three-word reference adds up, beyond 64 bits too, and convert to the
// nearest float.
#include <stdint.h>

#include "harness.hpp"
#include "kernels/linear_moments_s8_s16.hpp"

namespace {
using namespace pbp::detail::s8_s16;
namespace lv = pbp::format::int8_log_variance;

uint32_t g_state = 987654321u;
uint32_t next_random() {
  return pbp_test::next_random(g_state);
}

// A 96-bit sum in three words, added to word by word: the reference.
struct Words {
  uint32_t w[3] = {0u, 0u, 0u};
  void add_shifted(uint32_t x, uint32_t shift) {  // x 2^shift, shift < 64
    uint32_t parts[3] = {0u, 0u, 0u};
    const uint32_t word = shift / 32u, bit = shift % 32u;
    parts[word] = x << bit;
    if (bit != 0u) parts[word + 1u] = x >> (32u - bit);
    uint32_t carry = 0u;
    for (uint32_t i = 0; i < 3u; ++i) {
      const uint32_t sum = w[i] + parts[i];
      const uint32_t carry_out = sum < w[i] ? 1u : 0u;
      w[i] = sum + carry;
      carry = carry_out + (w[i] < carry ? 1u : 0u);
    }
  }
  bool equals(const WideSum& s) const {
    return w[0] == static_cast<uint32_t>(s.low) && w[1] == static_cast<uint32_t>(s.low >> 32) &&
           w[2] == s.high;
  }
};

uint32_t expected_term_shift(uint8_t code) {
  return code / 8u;
}

}  // namespace

PBP_TEST(decoded_variances_follow_the_table) {
  PBP_CHECK_EQ(lv::variance<float>(1.0f, 0), 1.0f);                    // code 0 is t itself
  PBP_CHECK_EQ(lv::variance<float>(1.0f, 8), 2.0f);                    // an octave is 8 codes
  PBP_CHECK_EQ(lv::variance<float>(1.0f, 255), 235.0f * 16777216.0f);  // M[7] 2^(31 - 7)
  float previous = 0.0f;
  for (uint32_t u = 0; u < 256u; ++u) {
    const float v = lv::variance<float>(1.0f, static_cast<uint8_t>(u));
    PBP_CHECK(v > previous);
    // every step between 8.5 % and 9.4 %: round(128 2^(f / 8)) of 2^(1/8) = 9.05 %
    if (u > 0u) PBP_CHECK(v >= 1.085f * previous && v <= 1.094f * previous);
    previous = v;
  }
}

PBP_TEST(wide_sums_carry_and_convert_to_the_nearest_float) {
  WideSum s{0xFFFFFFFFFFFFFFFFull, 0u};
  add_to(s, 1u);
  PBP_CHECK(s.low == 0u && s.high == 1u);
  const float two_64 = 18446744073709551616.0f;
  PBP_CHECK_EQ(to_float(s), two_64);
  // above 2^64 a float's last place is 2^41: half of it is a tie (to even), more rounds up
  PBP_CHECK_EQ(to_float(WideSum{uint64_t{1} << 40, 1u}), two_64);
  PBP_CHECK_EQ(to_float(WideSum{(uint64_t{1} << 40) + 1u, 1u}), two_64 + 2199023255552.0f);
  PBP_CHECK_EQ(to_float(WideSum{uint64_t{3} << 40, 1u}), two_64 + 2.0f * 2199023255552.0f);
  PBP_CHECK_EQ(to_float(WideSum{0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFu}),
               79228162514264337593543950336.0f);
  PBP_CHECK_EQ(to_float(WideSum{12345u, 0u}), 12345.0f);  // below 2^64: the 64-bit conversion
}

PBP_TEST(log_spread_sums_are_exact) {
  static uint8_t u[97];
  static int32_t b[97];
  static uint8_t ab[4 * 128];  // (more than 96 units: GCC 12 sees a vector store past 96)
  for (uint32_t trial = 0; trial < 80; ++trial) {
    const uint32_t count = trial < 40 ? trial : 40u + next_random() % 57u;
    const bool extreme = trial % 4 == 0;
    if (count > 96u) break;  // (never: the bound lets GCC see the stores stay inside)
    for (uint32_t k = 0; k <= count; ++k) {  // k = count: the bias
      u[k] = extreme ? uint8_t{255} : static_cast<uint8_t>(next_random());
      b[k] = extreme ? kCodeMax : static_cast<int32_t>(next_random() % 32768u);
    }
    for (uint32_t k = 0; k < grouped_count(count); k += 4u) {
      const int32_t a[4] = {0, 0, 0, 0};
      store_ab_group(ab, k, a, b + k);
    }
    for (uint32_t k = grouped_count(count); k < count; ++k) store_ab_single(ab, k, 0, b[k]);
    Words reference;
    for (uint32_t k = 0; k <= count; ++k) {
      reference.add_shifted(lv::mantissa(u[k]) * static_cast<uint32_t>(b[k]),
                            expected_term_shift(u[k]));
    }
    PBP_CHECK(reference.equals(log_spread_sum(u, count, ab, b[count])));
    PBP_CHECK(reference.equals(log_spread_sum<8>(u, count, ab, b[count])));  // blocks of 8
    WideSum compact{0u, 0u};  // the compact build's row loop sums it beside the others
    row_sums_compact(reinterpret_cast<const int8_t*>(u), u, count, ab, nullptr, 0, b[count],
                     &compact);
    PBP_CHECK(reference.equals(compact));
  }
}

// 1 151 weights and the bias at the largest codes: 1 152 terms of 235 x 32767 x 2^31, beyond
// 2^64 (a full block of 1 024, then 124 and the rest), exact. Not on Cortex-M0: its 6 KB do not
// fit beside the harness in 16 KB of RAM (the carry and the blocks are checked above).
#if !(defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB == 1)
PBP_TEST(log_spread_sums_are_exact_beyond_64_bits) {
  constexpr uint32_t kCount = 1151;
  static uint8_t u[kCount + 1];
  static uint8_t ab[4 * kCount];
  for (uint32_t k = 0; k <= kCount; ++k) u[k] = 255u;
  const int32_t a[4] = {0, 0, 0, 0}, b[4] = {kCodeMax, kCodeMax, kCodeMax, kCodeMax};
  for (uint32_t k = 0; k < grouped_count(kCount); k += 4u) store_ab_group(ab, k, a, b);
  for (uint32_t k = grouped_count(kCount); k < kCount; ++k) store_ab_single(ab, k, 0, kCodeMax);
  Words reference;
  for (uint32_t k = 0; k <= kCount; ++k) reference.add_shifted(235u * uint32_t{kCodeMax}, 31u);
  const WideSum sum = log_spread_sum(u, kCount, ab, kCodeMax);
  PBP_CHECK(sum.high != 0u);
  PBP_CHECK(reference.equals(sum));
}
#endif
