// SPDX-License-Identifier: Apache-2.0
// The int8 kernel's pieces (runtime/src/kernels/linear_moments_s8_s16.hpp): activation codes
// rounded exactly as specified, and the paired row sums (the ACLE DSP intrinsics on Cortex-M4/M7,
// their portable emulation elsewhere) equal to the portable loop's and to a plain int64 reference.
#include <stdint.h>

#include "harness.hpp"
#include "kernels/linear_moments_s8_s16.hpp"
#include "kernels/relu_moments_fixed.hpp"

namespace {
using namespace pbp::detail::s8_s16;

uint32_t g_state = 12345u;
uint32_t next_random() {
  return pbp_test::next_random(g_state);
}

}  // namespace

PBP_TEST(codes_round_halves_away_from_zero) {
  PBP_CHECK_EQ(round_scaled(2.5f, 0), 3);
  PBP_CHECK_EQ(round_scaled(-2.5f, 0), -3);
  PBP_CHECK_EQ(round_scaled(2.4999998f, 0), 2);
  PBP_CHECK_EQ(round_scaled(0.49999997f, 0), 0);  // where x + 0.5 in float would give 1
  PBP_CHECK_EQ(round_scaled(0.5f, 0), 1);
  PBP_CHECK_EQ(round_scaled(3.0f, -2), 12);
  PBP_CHECK_EQ(round_scaled(-0.0f, 0), 0);
  PBP_CHECK_EQ(round_scaled(1e-30f, 0), 0);
  // the smallest subnormal, 2^-149, is one code at exponent -149 and half a code at -148
  PBP_CHECK_EQ(round_scaled(float_from_bits(1u), -149), 1);
  PBP_CHECK_EQ(round_scaled(float_from_bits(1u), -148), 1);
  PBP_CHECK_EQ(round_scaled(float_from_bits(1u), -147), 0);
}

PBP_TEST(code_exponent_puts_the_largest_code_in_2_14_to_32767) {
  const float values[] = {1.0f,
                          1.5f,
                          32767.0f,
                          32767.4f,
                          32767.6f,
                          3.0e38f,
                          1e-3f,
                          float_from_bits(1u),
                          float_from_bits(0x7FFFFFu),
                          16383.5f};
  for (float v : values) {
    const uint32_t m = magnitude_bits(v);
    const int32_t e = code_exponent(m);
    const int32_t code = round_magnitude(m, e);
    PBP_CHECK(code <= kCodeMax);
    PBP_CHECK(code >= 16384 || round_magnitude(m, e - 1) > kCodeMax);
    PBP_CHECK(round_magnitude(m, e - 1) > kCodeMax);  // e is the least that fits
  }
  PBP_CHECK_EQ(code_exponent(magnitude_bits(32767.6f)), 1);  // 32768 would not fit: one more
  PBP_CHECK_EQ(code_exponent(magnitude_bits(1.0f)), -14);
}

PBP_TEST(powers_of_two_are_exact) {
  PBP_CHECK_EQ(power_of_two(0), 1.0f);
  PBP_CHECK_EQ(power_of_two(-1), 0.5f);
  PBP_CHECK_EQ(float_bits(power_of_two(-149)), 1u);
  PBP_CHECK_EQ(float_bits(power_of_two(127)), 0x7F000000u);
  PBP_CHECK_EQ(scale_by_power_of_two(3.0f, -150), float_from_bits(2u));  // 1.5 * 2^-149, even
  PBP_CHECK_EQ(scale_by_power_of_two(1.0f, 200), float_from_bits(0x7F800000u));
  PBP_CHECK_EQ(scale_by_power_of_two(0.75f, 128), 0.75f * 2.0f * float_from_bits(0x7F000000u));
}

// int64 sums convert as one rounding, whether they fit 32 bits or not.
PBP_TEST(sums_convert_to_the_nearest_float) {
  PBP_CHECK_EQ(to_float(int64_t{16777217}), 16777216.0f);  // 2^24 + 1, a tie: to even
  PBP_CHECK_EQ(to_float(int64_t{16777219}), 16777220.0f);
  PBP_CHECK_EQ(to_float(int64_t{-2147483648LL}), -2147483648.0f);
  PBP_CHECK_EQ(to_float(uint64_t{0xFFFFFFFFull}), 4294967296.0f);
  PBP_CHECK_EQ(to_float(uint64_t{0x100000081ull}), 4294967296.0f);  // below the halfway point
  PBP_CHECK_EQ(to_float(uint64_t{0x100000181ull}), 4294967808.0f);  // above it
}

// The conversion by integer operations against the compiler's (IEEE, ties to even) on values
// above 2^32, ties and carries into the next power of two among them.
PBP_TEST(large_sums_convert_as_the_compiler_does) {
  const uint64_t fixed[] = {0x100000000ull,        0x100000080ull,        0x100000180ull,
                            0x1FFFFFF80ull,        0xFFFFFF8000000000ull, 0xFFFFFFFFFFFFFFFFull,
                            0x8000008000000000ull, 0x8000018000000001ull, 0x123456789ABCDEFull};
  for (uint64_t x : fixed) {
    PBP_CHECK_EQ(float_bits(to_float(x)), float_bits(static_cast<float>(x)));
    const int64_t signed_x = static_cast<int64_t>(x >> 1);
    PBP_CHECK_EQ(float_bits(to_float(-signed_x)), float_bits(static_cast<float>(-signed_x)));
  }
  for (uint32_t i = 0; i < 2000; ++i) {
    const uint64_t x = (uint64_t{next_random()} << (i % 33)) ^ next_random();
    // a tie: a 24-bit significand, then exactly half of the last place
    const uint32_t shift = 9u + i % 32u;
    const uint64_t tie = (uint64_t{(next_random() & 0xFFFFFFu) | 0x800000u} << shift) |
                         (uint64_t{1} << (shift - 1u));
    PBP_CHECK_EQ(float_bits(to_float(x)), float_bits(static_cast<float>(x)));
    PBP_CHECK_EQ(float_bits(to_float(tie)), float_bits(static_cast<float>(tie)));
  }
}

// A layer's codes in unit order (the reference) and in the kernel's layout (ab and c regions).
struct LayerCodes {
  static constexpr uint32_t kCapacity = 96;
  int16_t a[kCapacity], b[kCapacity], c[kCapacity];
  uint8_t ab[4 * kCapacity];
  uint8_t c_region[2 * kCapacity];
  void lay_out(uint32_t count) {
    if (count > kCapacity) return;  // (never: the bound lets GCC see the stores stay inside)
    const uint32_t grouped = grouped_count(count);
    for (uint32_t k = 0; k < grouped; k += 4u) {
      const int32_t a4[4] = {a[k], a[k + 1], a[k + 2], a[k + 3]};
      const int32_t b4[4] = {b[k], b[k + 1], b[k + 2], b[k + 3]};
      const int32_t c4[4] = {c[k], c[k + 1], c[k + 2], c[k + 3]};
      store_ab_group(ab, k, a4, b4);
      store_c_group(c_region, k, c4);
    }
    for (uint32_t k = grouped; k < count; ++k) {
      store_ab_single(ab, k, a[k], b[k]);
      store_code(c_region, k, c[k]);
    }
  }
};

PBP_TEST(codes_are_laid_out_in_groups_of_four) {
  static LayerCodes codes;
  constexpr uint32_t kCount = 6;
  for (uint32_t k = 0; k < kCount; ++k) {
    codes.a[k] = static_cast<int16_t>(k + 1);
    codes.b[k] = static_cast<int16_t>(k + 11);
    codes.c[k] = static_cast<int16_t>(k + 21);
  }
  codes.lay_out(kCount);
  // group 0: A 0 2 1 3, B 0 2 1 3; units 4 and 5: (A, B) each
  const int32_t ab[12] = {1, 3, 2, 4, 11, 13, 12, 14, 5, 15, 6, 16};
  const int32_t c[6] = {21, 23, 22, 24, 25, 26};
  for (uint32_t i = 0; i < 12u; ++i) PBP_CHECK_EQ(load_code(codes.ab, i), ab[i]);
  for (uint32_t i = 0; i < 6u; ++i) PBP_CHECK_EQ(load_code(codes.c_region, i), c[i]);
  for (uint32_t k = 0; k < kCount; ++k) {
    PBP_CHECK_EQ(load_a(codes.ab, k, kCount), codes.a[k]);
    PBP_CHECK_EQ(load_b(codes.ab, k, kCount), codes.b[k]);
    PBP_CHECK_EQ(load_c(codes.c_region, k, kCount), codes.c[k]);
  }
}

// A row's bytes at an offset of 4 in its buffers: the tail group of a row shorter than three
// weights reads bytes before it, as the kernel does in the blob.
constexpr uint32_t kRowOffset = 4;

// The reference sums over count weights and the bias (position count, codes bias_a, bias_b).
template <bool kHasC>
void check_row_sums(const int8_t* q, const uint8_t* u, uint32_t count, int32_t bias_a,
                    int32_t bias_b, LayerCodes& codes) {
  codes.lay_out(count);
  int64_t mean = int64_t{q[count]} * bias_a;
  uint64_t spread = uint64_t{u[count]} * u[count] * static_cast<uint64_t>(bias_b);
  uint64_t square = 0;
  for (uint32_t k = 0; k < count; ++k) {
    mean += int64_t{q[k]} * codes.a[k];
    spread += uint64_t{u[k]} * u[k] * static_cast<uint64_t>(codes.b[k]);
    if (kHasC)
      square += static_cast<uint64_t>(int64_t{q[k]} * q[k]) * static_cast<uint64_t>(codes.c[k]);
  }
  TailGroup tail;
  make_tail_group(codes.ab, kHasC ? codes.c_region : nullptr, count, bias_a, bias_b, tail);
  const RowSums portable = row_sums_portable<kHasC>(q, u, count, codes.ab, codes.c_region, tail);
  // every shape of the portable loop, whichever this core runs
  const RowSums shapes[] = {row_sums_portable<kHasC, PortableLoop::two_passes>(
                                q, u, count, codes.ab, codes.c_region, tail),
                            row_sums_portable<kHasC, PortableLoop::one_group>(q, u, count, codes.ab,
                                                                              codes.c_region, tail),
                            row_sums_portable<kHasC, PortableLoop::two_groups>(
                                q, u, count, codes.ab, codes.c_region, tail)};
  for (const RowSums& shape : shapes) {
    PBP_CHECK(shape.mean == mean && shape.spread == spread && shape.square == square);
  }
  const RowSums paired = row_sums_paired<kHasC>(q, u, count, codes.ab, codes.c_region, tail,
                                                paired_code_total(codes.ab, count, tail));
  const RowSums compact = row_sums_compact(q, u, count, codes.ab, kHasC ? codes.c_region : nullptr,
                                           bias_a, bias_b, nullptr);
  PBP_CHECK(portable.mean == mean && portable.spread == spread && portable.square == square);
  PBP_CHECK(paired.mean == mean && paired.spread == spread && paired.square == square);
  PBP_CHECK(compact.mean == mean && compact.spread == spread && compact.square == square);
}

PBP_TEST(paired_and_compact_row_sums_equal_the_portable_ones) {
  static int8_t q_bytes[kRowOffset + 97];
  static uint8_t u_bytes[kRowOffset + 97];
  static LayerCodes codes;
  int8_t* q = q_bytes + kRowOffset;
  uint8_t* u = u_bytes + kRowOffset;
  for (uint32_t trial = 0; trial < 60; ++trial) {
    const uint32_t count = trial < 40 ? trial : 40u + next_random() % 57u;
    const bool extreme = trial % 3 == 0;  // the largest codes: every product at its bound
    // the bytes before the row too: the tail group must take them times 0
    for (uint32_t k = 0; k < kRowOffset + count + 1u; ++k) {
      const uint32_t r = next_random();
      q_bytes[k] =
          extreme ? static_cast<int8_t>((r & 1u) ? -128 : 127) : static_cast<int8_t>(r & 0xFFu);
      u_bytes[k] = extreme ? uint8_t{255} : static_cast<uint8_t>(1u + (r >> 8) % 255u);
    }
    for (uint32_t k = 0; k < count; ++k) {
      const uint32_t r = next_random();
      codes.a[k] =
          static_cast<int16_t>(extreme ? ((r & 2u) ? -kCodeMax : kCodeMax)
                                       : static_cast<int32_t>((r >> 16) % 65535u) - kCodeMax);
      codes.b[k] = static_cast<int16_t>(extreme ? kCodeMax : next_random() % 32768u);
      codes.c[k] = static_cast<int16_t>(extreme ? kCodeMax : next_random() % 32768u);
    }
    const int32_t bias_a = extreme ? kCodeMax : static_cast<int32_t>(next_random() % 32768u);
    const int32_t bias_b = extreme ? kCodeMax : static_cast<int32_t>(next_random() % 32768u);
    check_row_sums<true>(q, u, count, bias_a, bias_b, codes);
    check_row_sums<false>(q, u, count, bias_a, bias_b, codes);
  }
}

// 518 inputs and the bias at the largest codes (2.2e9 in all, beyond int32; small enough for
// Cortex-M0's 16 KB of RAM): the 32-bit blocks of 512 mean terms cannot overflow (a second block
// of one group, then the tail), and the sums are exact in 64 bits (as for any count up to 65535).
PBP_TEST(row_sums_are_exact_beyond_31_bits) {
  constexpr uint32_t kCount = 518;
  static int8_t q[kCount + 1];
  static uint8_t u[kCount + 1];
  static uint8_t ab[4 * kCount], c[2 * kCount];
  for (uint32_t k = 0; k <= kCount; ++k) {
    q[k] = -128;
    u[k] = 255;
  }
  for (uint32_t k = 0; k < kCount; ++k) {
    store_ab_single(ab, k, -kCodeMax, kCodeMax);  // every group's A then B halves alike
    store_code(c, k, kCodeMax);
  }
  for (uint32_t k = 0; k < grouped_count(kCount); k += 4u) {
    const int32_t a[4] = {-kCodeMax, -kCodeMax, -kCodeMax, -kCodeMax};
    const int32_t b[4] = {kCodeMax, kCodeMax, kCodeMax, kCodeMax};
    store_ab_group(ab, k, a, b);
  }
  TailGroup tail;
  make_tail_group(ab, c, kCount, -kCodeMax, kCodeMax, tail);
  const int64_t mean = int64_t{kCount + 1} * 128 * kCodeMax;
  const uint64_t spread = uint64_t{kCount + 1} * 255 * 255 * kCodeMax;
  const uint64_t square = uint64_t{kCount} * 128 * 128 * kCodeMax;
  const RowSums portable = row_sums_portable<true>(q, u, kCount, ab, c, tail);
  const RowSums shapes[] = {
      row_sums_portable<true, PortableLoop::two_passes>(q, u, kCount, ab, c, tail),
      row_sums_portable<true, PortableLoop::one_group>(q, u, kCount, ab, c, tail),
      row_sums_portable<true, PortableLoop::two_groups>(q, u, kCount, ab, c, tail)};
  for (const RowSums& shape : shapes) {
    PBP_CHECK(shape.mean == mean && shape.spread == spread && shape.square == square);
  }
  const RowSums paired =
      row_sums_paired<true>(q, u, kCount, ab, c, tail, paired_code_total(ab, kCount, tail));
  const RowSums compact = row_sums_compact(q, u, kCount, ab, c, -kCodeMax, kCodeMax, nullptr);
  PBP_CHECK(portable.mean == mean && portable.spread == spread && portable.square == square);
  PBP_CHECK(paired.mean == mean && paired.spread == spread && paired.square == square);
  PBP_CHECK(compact.mean == mean && compact.spread == spread && compact.square == square);
}

// multiply_high (the fixed-point ReLU's product; four 16 x 16 products on Thumb-1 cores) is the
// exact high word of the 64-bit product, signed and unsigned, corners included.
PBP_TEST(multiply_high_is_the_exact_high_word) {
  const uint32_t corners[] = {0u, 1u, 0xFFFFu, 0x10000u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
  for (uint32_t a : corners) {
    for (uint32_t b : corners) {
      PBP_CHECK_EQ(multiply_high(a, b), static_cast<uint32_t>((uint64_t{a} * b) >> 32));
      const int32_t sa = static_cast<int32_t>(a), sb = static_cast<int32_t>(b);
      PBP_CHECK_EQ(multiply_high(sa, sb), static_cast<int32_t>((int64_t{sa} * sb) >> 32));
    }
  }
  uint32_t wrong = 0;
  for (uint32_t i = 0; i < 20000u; ++i) {
    const uint32_t a = next_random(), b = next_random();
    const int32_t sa = static_cast<int32_t>(a), sb = static_cast<int32_t>(b);
    wrong += multiply_high(a, b) != static_cast<uint32_t>((uint64_t{a} * b) >> 32) ? 1u : 0u;
    wrong += multiply_high(sa, sb) != static_cast<int32_t>((int64_t{sa} * sb) >> 32) ? 1u : 0u;
  }
  PBP_CHECK_EQ(wrong, 0u);
}

// The fixed-point ReLU moments (relu_moments_fixed.hpp) give the host's bits on every target:
// an FNV-1a hash of A, B, C over 4 000 (m, v) pairs, m / sqrt(v) over the table and both limits,
// v over 2^-40 .. 2^40, against the value the host printed. A mismatch on a target is a
// portability bug (an integer width or shift), not a stale constant.
PBP_TEST(fixed_point_relu_is_bit_identical_to_the_host) {
  g_state = 2463534242u;
  uint32_t hash = 2166136261u;
  for (uint32_t i = 0; i < 4000u; ++i) {
    const uint32_t r = next_random();
    // v about 2^(e / 8), e in -320 .. 320; m = sd * alpha, sd within a factor 1.5 of sqrt(v)
    const int32_t e = static_cast<int32_t>(r % 641u) - 320;
    const float v = scale_by_power_of_two(1.0f + static_cast<float>(e & 7) / 8.0f, e >> 3);
    const float sd = scale_by_power_of_two(1.0f + static_cast<float>(e & 7) / 16.0f, e >> 4);
    const float alpha =
        static_cast<float>(static_cast<int32_t>(next_random() % 4097u) - 2048) / 256.0f;
    const pbp::detail::relu_fixed::Moments z =
        pbp::detail::relu_fixed::relu_moments_fixed(alpha * sd, v);
    const uint32_t words[6] = {z.mean.m,     static_cast<uint32_t>(z.mean.e),
                               z.square.m,   static_cast<uint32_t>(z.square.e),
                               z.variance.m, static_cast<uint32_t>(z.variance.e)};
    for (uint32_t w : words) {
      for (uint32_t byte = 0; byte < 4; ++byte)
        hash = (hash ^ ((w >> (8 * byte)) & 0xFFu)) * 16777619u;
    }
  }
  pbp_test::note("hash 0x%08lx", static_cast<unsigned long>(hash));
  PBP_CHECK_EQ(hash, 0x78eb2d51u);
}

// relu_units_fixed's words are each unit's moments (relu_moments_fixed's, normalised) truncated to
// the layer's fixed point, in layers of any mix of finite values: zero, subnormal and huge means
// and variances, all variances 0, one unit setting the scales. Every nonzero moment's shift into
// the fixed point is <= 0 (the bounds hold), and a zero moment's shift is never taken as a 32-bit
// shift of 32 or more (the sanitizer preset checks that as undefined behaviour).
PBP_TEST(fixed_point_relu_words_are_the_moments_truncated_to_the_layer_scale) {
  namespace rf = pbp::detail::relu_fixed;
  g_state = 977u;
  const auto any_finite = []() {  // 1 in 4 zero, 1 in 8 subnormal, else any binade and sign
    const uint32_t r = next_random(), sign = next_random() & 0x80000000u;
    if (r % 4u == 0u) return 0.0f;
    if (r % 8u == 1u)
      return pbp::math::detail::from_bits<float>(sign | (next_random() & 0x7FFFFFu));
    const uint32_t biased = next_random() % 254u + 1u;
    return pbp::math::detail::from_bits<float>(sign | biased << 23 | (next_random() & 0x7FFFFFu));
  };
  uint32_t wrong = 0, beyond = 0;
  for (uint32_t layer = 0; layer < 600u; ++layer) {
    const uint32_t n = next_random() % 12u + 1u;
    float z_mean[12], z_var[12], c_words[12];
    rf::Moments expected[12];
    for (uint32_t k = 0; k < n; ++k) {
      z_mean[k] = any_finite();
      const float v = layer % 3u == 0u ? 0.0f : any_finite();
      z_var[k] = v < 0.0f ? -v : v;
      expected[k] = rf::relu_moments_fixed(z_mean[k], z_var[k]);
    }
    rf::Scales scales;
    PBP_CHECK(rf::relu_units_fixed(n, z_mean, z_var, c_words, scales));
    const auto truncated = [&beyond](const rf::Wide& x, int32_t scale) -> uint32_t {
      if (x.m == 0u) return 0u;
      const int32_t shift = x.e - scale;
      beyond += shift > 0 ? 1u : 0u;
      return shift > 0 || shift <= -32 ? 0u : x.m >> -shift;
    };
    for (uint32_t k = 0; k < n; ++k) {
      wrong += rf::load_word(z_mean, k) != truncated(expected[k].mean, scales.a) ? 1u : 0u;
      wrong += rf::load_word(z_var, k) != truncated(expected[k].square, scales.b) ? 1u : 0u;
      wrong += rf::load_word(c_words, k) != truncated(expected[k].variance, scales.c) ? 1u : 0u;
    }
  }
  PBP_CHECK_EQ(beyond, 0u);
  PBP_CHECK_EQ(wrong, 0u);
}
