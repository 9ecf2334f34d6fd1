// The int8 kernel's pieces (runtime/src/linear_moments_s8_s16.hpp): activation codes rounded
// exactly as specified, and the paired row sums (the ACLE DSP intrinsics on Cortex-M4/M7, their
// portable emulation elsewhere) equal to the portable loop's and to a plain int64 reference.
#include <stdint.h>

#include "harness.hpp"
#include "linear_moments_s8_s16.hpp"
#include "relu_moments_fixed.hpp"

namespace {
using namespace pbp::detail::s8_s16;

uint32_t g_state = 12345u;
uint32_t next_random() {  // xorshift32: the same sequence on every target
  g_state ^= g_state << 13;
  g_state ^= g_state >> 17;
  g_state ^= g_state << 5;
  return g_state;
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

// Codes in order, and in the order the paired loop reads them.
struct CodeVectors {
  uint8_t natural[2 * 96];
  uint8_t paired[2 * 96];
  void set(uint32_t k, uint32_t count, int32_t code) {
    store_code(natural, k, code);
    store_code(paired, paired_position(k, count), code);
  }
};

PBP_TEST(paired_positions_permute_each_group_of_four) {
  PBP_CHECK_EQ(paired_position(0, 6), 0u);
  PBP_CHECK_EQ(paired_position(1, 6), 2u);
  PBP_CHECK_EQ(paired_position(2, 6), 1u);
  PBP_CHECK_EQ(paired_position(3, 6), 3u);
  PBP_CHECK_EQ(paired_position(4, 6), 4u);  // the rest stays in order
  PBP_CHECK_EQ(paired_position(5, 6), 5u);
  PBP_CHECK_EQ(paired_position(2, 3), 2u);
}

template <bool kHasC>
void check_row_sums(const int8_t* q, const uint8_t* u, uint32_t count, const CodeVectors& a,
                    const CodeVectors& b, const CodeVectors& c) {
  int64_t mean = 0;
  uint64_t spread = 0, square = 0;
  for (uint32_t k = 0; k < count; ++k) {
    mean += int64_t{q[k]} * load_code(a.natural, k);
    spread += uint64_t{u[k]} * u[k] * static_cast<uint64_t>(load_code(b.natural, k));
    if (kHasC) {
      square += static_cast<uint64_t>(int64_t{q[k]} * q[k]) *
                static_cast<uint64_t>(load_code(c.natural, k));
    }
  }
  const RowSums portable = row_sums_portable<kHasC>(q, u, count, a.natural, b.natural, c.natural);
  const RowSums paired = row_sums_paired<kHasC>(q, u, count, a.paired, b.paired, c.paired,
                                                paired_code_total(b.paired, count));
  PBP_CHECK(portable.mean == mean && portable.spread == spread && portable.square == square);
  PBP_CHECK(paired.mean == mean && paired.spread == spread && paired.square == square);
}

PBP_TEST(paired_row_sums_equal_the_portable_ones) {
  static int8_t q[96];
  static uint8_t u[96];
  static CodeVectors a, b, c;
  for (uint32_t trial = 0; trial < 60; ++trial) {
    const uint32_t count = trial < 40 ? trial : 40u + next_random() % 57u;
    const bool extreme = trial % 3 == 0;  // the largest codes: every product at its bound
    for (uint32_t k = 0; k < count; ++k) {
      const uint32_t r = next_random();
      q[k] = extreme ? static_cast<int8_t>((r & 1u) ? -128 : 127) : static_cast<int8_t>(r & 0xFFu);
      u[k] = extreme ? uint8_t{255} : static_cast<uint8_t>(1u + (r >> 8) % 255u);
      a.set(k, count,
            extreme ? ((r & 2u) ? -kCodeMax : kCodeMax)
                    : static_cast<int32_t>((r >> 16) % 65535u) - kCodeMax);
      b.set(k, count, extreme ? kCodeMax : static_cast<int32_t>(next_random() % 32768u));
      c.set(k, count, extreme ? kCodeMax : static_cast<int32_t>(next_random() % 32768u));
    }
    check_row_sums<true>(q, u, count, a, b, c);
    check_row_sums<false>(q, u, count, a, b, c);
  }
}

// 600 inputs at the largest codes (2.5e9 in all, beyond int32; small enough for Cortex-M0's 16 KB
// of RAM): the portable loop's 32-bit blocks of 512 terms cannot overflow, and the sums are exact
// in 64 bits (as for any count up to 65535). The codes are all equal: their order does not matter.
PBP_TEST(row_sums_are_exact_beyond_31_bits) {
  constexpr uint32_t kCount = 600;
  static int8_t q[kCount];
  static uint8_t u[kCount];
  static uint8_t a[2 * kCount], b[2 * kCount];
  for (uint32_t k = 0; k < kCount; ++k) {
    q[k] = -128;
    u[k] = 255;
    store_code(a, k, -kCodeMax);
    store_code(b, k, kCodeMax);
  }
  const int64_t mean = int64_t{kCount} * 128 * kCodeMax;
  const uint64_t spread = uint64_t{kCount} * 255 * 255 * kCodeMax;
  const uint64_t square = uint64_t{kCount} * 128 * 128 * kCodeMax;
  const RowSums portable = row_sums_portable<true>(q, u, kCount, a, b, b);
  const RowSums paired = row_sums_paired<true>(q, u, kCount, a, b, b, paired_code_total(b, kCount));
  PBP_CHECK(portable.mean == mean && portable.spread == spread && portable.square == square);
  PBP_CHECK(paired.mean == mean && paired.spread == spread && paired.square == square);
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
  PBP_CHECK_EQ(hash, 0x93bafe08u);
}
