// SPDX-License-Identifier: Apache-2.0
// The pieces of the int8 kernel (linear_moments_s8_s16.cpp, s8 weights x s16 activations) that
// its tests call on their own: the power-of-two quantisation of unit moments to int16, the
// integer row sums (a portable loop and a paired loop shaped for the Cortex-M DSP instructions),
// and the conversions back to float. Everything here is integer arithmetic, so every target
// gets the same integers; the only float steps are IEEE-rounded conversions and multiplies by
// powers of two.
#pragma once
#include <stdint.h>
#include <string.h>

#include "pbp/format.hpp"
#include "pbp/math/bits.hpp"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#define PBP_S8_S16_DSP 1
#else
#define PBP_S8_S16_DSP 0
#endif
// The row loops written in Thumb-2 assembly (LDRD of any two registers, post-indexed loads), on
// Cortex-M in optimised builds: at -O0, or on Linux with its frame and PIC registers, GCC finds no
// 12 registers for them ("impossible constraints").
#if PBP_S8_S16_DSP && defined(__thumb2__) && defined(__OPTIMIZE__) && \
    defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#define PBP_S8_S16_THUMB2 1
#else
#define PBP_S8_S16_THUMB2 0
#endif

// -Os (__OPTIMIZE_SIZE__: the documented device install, MinSizeRel) takes the compact row loop
// and one copy of the rows' code (rows with and without C alike): the same bits, in fewer bytes.
#if defined(__OPTIMIZE_SIZE__)
#define PBP_S8_S16_COMPACT 1
#else
#define PBP_S8_S16_COMPACT 0
#endif

// Per-row helpers: inlined for speed, one out-of-line copy each in the compact build.
#if PBP_S8_S16_COMPACT
#define PBP_S8_S16_ROW_HELPER __attribute__((noinline))
#else
#define PBP_S8_S16_ROW_HELPER __attribute__((always_inline))
#endif

namespace pbp::detail::s8_s16 {

inline constexpr bool kPairedLoop = PBP_S8_S16_DSP != 0;
inline constexpr bool kCompact = PBP_S8_S16_COMPACT != 0;

// Activation codes are int16 in -kCodeMax .. kCodeMax (never -32768, so a code's negation fits).
inline constexpr int32_t kCodeMax = 32767;

inline uint32_t float_bits(float x) {
  return math::detail::to_bits(x);
}
inline float float_from_bits(uint32_t bits) {
  return math::detail::from_bits<float>(bits);
}
// |x|'s bits: for non-NaN x they order as the magnitudes do, so maxima need no float compare.
inline uint32_t magnitude_bits(float x) {
  return float_bits(x) & 0x7FFFFFFFu;
}
inline bool is_finite_magnitude(uint32_t magnitude) {
  return magnitude < 0x7F800000u;
}

// A finite nonzero magnitude as significand * 2^exponent, significand < 2^24 (subnormals too).
struct Unpacked {
  uint32_t significand;
  int32_t exponent;
};
inline Unpacked unpack(uint32_t magnitude) {
  const uint32_t biased = magnitude >> 23;
  const uint32_t fraction = magnitude & 0x7FFFFFu;
  if (biased == 0) return {fraction, -149};
  return {fraction | 0x800000u, static_cast<int32_t>(biased) - 150};
}

// Thumb-1 and RISC-V without Zbb have no count-leading-zeros instruction (GCC calls a library
// routine): a binary search there.
inline int32_t leading_zeros(uint32_t x) {  // x != 0
#if (defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB == 1) || \
    (defined(__riscv) && !defined(__riscv_zbb))
  int32_t n = 0;
  if (x < 0x10000u) n += 16, x <<= 16;
  if (x < 0x1000000u) n += 8, x <<= 8;
  if (x < 0x10000000u) n += 4, x <<= 4;
  if (x < 0x40000000u) n += 2, x <<= 2;
  return x < 0x80000000u ? n + 1 : n;
#else
  return __builtin_clz(x);
#endif
}
inline int32_t bit_length(uint32_t x) {  // x != 0
  return 32 - leading_zeros(x);
}

// round(|x| * 2^-e), halves away from zero, of the magnitude bits of a finite x: exact integer
// arithmetic on the bits (no float operation), so identical on every target. The caller's e
// keeps the result at most kCodeMax.
inline int32_t round_magnitude(uint32_t magnitude, int32_t e) {
  if (magnitude == 0) return 0;
  const Unpacked u = unpack(magnitude);
  const int32_t shift = e - u.exponent;  // value * 2^-e = significand * 2^-shift
  if (shift <= 0) return static_cast<int32_t>(u.significand << -shift);
  if (shift > 25) return 0;  // below 2^24 * 2^-26 = 1/4
  return static_cast<int32_t>((u.significand + (1u << (shift - 1))) >> shift);
}
inline int32_t round_scaled(float x, int32_t e) {
  const int32_t q = round_magnitude(magnitude_bits(x), e);
  return (float_bits(x) >> 31) != 0 ? -q : q;
}
// The exponent e of a vector whose largest finite magnitude is `max_magnitude` (> 0): the
// smallest with round(max * 2^-e) <= kCodeMax, so the largest code is in 2^14 .. 32767 and
// each code keeps 15 significant bits of the largest value.
inline int32_t code_exponent(uint32_t max_magnitude) {
  const Unpacked u = unpack(max_magnitude);
  const int32_t top = u.exponent + bit_length(u.significand) - 1;  // floor(log2(max))
  int32_t e = top - 14;
  if (round_magnitude(max_magnitude, e) > kCodeMax) ++e;
  return e;
}

// 2^e as a float, for -149 <= e <= 127 (exact, subnormal below -126).
inline float power_of_two(int32_t e) {
  if (e >= -126) return float_from_bits(static_cast<uint32_t>(e + 127) << 23);
  return float_from_bits(1u << (e + 149));
}
// x * 2^e, in at most two exact-power multiplies (each IEEE-rounded): e from -300 to 250.
inline float scale_by_power_of_two(float x, int32_t e) {
  if (e < -126) return (x * power_of_two(e + 126)) * power_of_two(-126);
  if (e > 127) return (x * power_of_two(e - 127)) * power_of_two(127);
  return x * power_of_two(e);
}

// A float32 scale of an int8 tensor: pbp_open checks that the blob and each of its tensors are
// 4-byte aligned, so on a little-endian core it is one aligned word load (RV32 assembles an
// unaligned one from four bytes); format::load_f32 elsewhere. The same bits either way.
inline float load_scale(const uint8_t* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  float value;
  __builtin_memcpy(&value, __builtin_assume_aligned(p, 4), sizeof value);
  return value;
#else
  return format::load_f32(p);
#endif
}

// An exact integer sum to the nearest float (IEEE, ties to even): below 2^32 by the 32-bit
// conversion (one instruction with an FPU), above by 32-bit integer operations on its top word
// (its 32 leading bits, the rest a sticky bit), so no 64-bit library conversion or shift runs
// (slow without an FPU, and on Cortex-M4F too).
// (__builtin_expect: the sums of short rows as the fall-through, the code GCC lays out first)
PBP_S8_S16_ROW_HELPER inline float to_float(uint64_t x) {
  const uint32_t high = static_cast<uint32_t>(x >> 32), low = static_cast<uint32_t>(x);
  if (__builtin_expect(high == 0, 1)) return static_cast<float>(low);
  const uint32_t zeros = static_cast<uint32_t>(leading_zeros(high));
  const uint32_t top = high << zeros | (low >> 1) >> (31u - zeros);        // bit 31 set
  const uint32_t rest = (top & 0xFFu) | ((low << zeros) != 0u ? 1u : 0u);  // below the 24 bits
  uint32_t significand = top >> 8;  // 2^23 .. 2^24 - 1: x ~ significand 2^(40 - zeros)
  if (rest > 0x80u || (rest == 0x80u && (significand & 1u) != 0u)) ++significand;
  // the biased exponent is (40 - zeros) + 150; significand's 2^23 bit adds 1 to the field below
  // it, and a carry to 2^24 one more
  return float_from_bits(((189u - zeros) << 23) + significand);
}
PBP_S8_S16_ROW_HELPER inline float to_float(int64_t x) {  // (inlined: no frame of its own)
  // within int32 where the high word is the low word's sign (one compare with a shifted operand)
  const int32_t low = static_cast<int32_t>(static_cast<uint64_t>(x));
  if (__builtin_expect(static_cast<int32_t>(static_cast<uint64_t>(x) >> 32) == low >> 31, 1)) {
    return static_cast<float>(low);
  }
  const float magnitude =
      to_float(x < 0 ? 0u - static_cast<uint64_t>(x) : static_cast<uint64_t>(x));
  return x < 0 ? -magnitude : magnitude;
}

// An exact sum wider than 64 bits: low + high 2^64 (storage type 4's spread sums).
struct WideSum {
  uint64_t low;
  uint32_t high;
};
inline void add_to(WideSum& sum, uint64_t x) {
  sum.low += x;
  sum.high += sum.low < x ? 1u : 0u;
}
// Its nearest float (ties to even): above 2^64, the top 64 bits rounded with the rest as sticky.
inline float to_float(const WideSum& x) {
  if (x.high == 0) return to_float(x.low);
#if PBP_S8_S16_COMPACT  // x >> 32 with the 32 bits below as a sticky last bit, rounded, times 2^32
  const uint32_t sticky = static_cast<uint32_t>(x.low) != 0u ? 1u : 0u;
  return to_float(uint64_t{x.high} << 32 | (x.low >> 32 | sticky)) * 4294967296.0f;
#else
  const uint64_t top = uint64_t{x.high} << 32 | x.low >> 32;                  // x = top 2^32 + rest
  const uint32_t shift = 40u - static_cast<uint32_t>(__builtin_clz(x.high));  // bit length - 24
  const uint64_t dropped = top & ((uint64_t{1} << shift) - 1u);
  const uint64_t half = uint64_t{1} << (shift - 1u);
  uint32_t significand = static_cast<uint32_t>(top >> shift);  // 2^23 .. 2^24 - 1
  const bool sticky = (x.low & 0xFFFFFFFFu) != 0;
  if (dropped > half || (dropped == half && (sticky || (significand & 1u) != 0))) ++significand;
  uint32_t exponent = shift + 32u + 150u;
  if (significand == (1u << 24)) {
    significand >>= 1;
    ++exponent;
  }
  return float_from_bits((exponent << 23) | (significand & 0x7FFFFFu));
#endif
}

// The high word of a 32 x 32-bit product, floor(a b / 2^32). Cores without a 64-bit multiply
// (Thumb-1: Cortex-M0) would call a 64 x 64 library routine; four 16 x 16 products give the same
// word exactly: the low word's carry into it is (ll >> 16) + the middle products' low halves.
inline uint32_t multiply_high(uint32_t a, uint32_t b) {
#if defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB == 1
  const uint32_t al = a & 0xFFFFu, ah = a >> 16, bl = b & 0xFFFFu, bh = b >> 16;
  const uint32_t low_high = al * bh, high_low = ah * bl;
  const uint32_t carry = ((al * bl) >> 16) + (low_high & 0xFFFFu) + (high_low & 0xFFFFu);
  return ah * bh + (low_high >> 16) + (high_low >> 16) + (carry >> 16);
#else
  return static_cast<uint32_t>((uint64_t{a} * b) >> 32);
#endif
}
// Signed: the unsigned high word less b where a < 0 and a where b < 0 (two's complement).
inline int32_t multiply_high(int32_t a, int32_t b) {
#if defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB == 1
  const uint32_t ua = static_cast<uint32_t>(a), ub = static_cast<uint32_t>(b);
  const uint32_t high = multiply_high(ua, ub) - (a < 0 ? ub : 0u) - (b < 0 ? ua : 0u);
  return static_cast<int32_t>(high);
#elif PBP_S8_S16_DSP
  int32_t high;  // SMMUL (GCC widens to SMULL and shifts, or worse)
  __asm__("smmul %0, %1, %2" : "=r"(high) : "r"(a), "r"(b));
  return high;
#else
  return static_cast<int32_t>((int64_t{a} * b) >> 32);
#endif
}

// int16 codes in workspace bytes the caller owns (2-byte aligned: over the pass's float
// buffers), read and written through memcpy (no alias rule is broken where the same bytes held
// floats), which compiles to one halfword access (__builtin_: the runtime is built freestanding).
// Native byte order: the paired loop reads them as pairs in little-endian words, as every core with
// the DSP instructions here is.
inline int32_t load_code(const uint8_t* codes, uint32_t k) {
  int16_t code;
  __builtin_memcpy(&code, static_cast<const uint8_t*>(__builtin_assume_aligned(codes, 2)) + 2u * k,
                   sizeof code);
  return code;
}
inline void store_code(uint8_t* codes, uint32_t k, int32_t code) {
  const int16_t value = static_cast<int16_t>(code);
  __builtin_memcpy(static_cast<uint8_t*>(__builtin_assume_aligned(codes, 2)) + 2u * k, &value,
                   sizeof value);
}

// Where a layer's activation codes live (the same on every target): A and B of unit k in the
// four bytes of its own float (the `ab` region), and C two bytes per unit (the `c` region). Units
// go in groups of four, k .. k+3, each group's codes in the order k, k+2, k+1, k+3 (the halfword
// pairs SXTB16 and UXTB16 make of four weight bytes): a group's 16 bytes of ab are the words
// (A_k, A_k+2), (A_k+1, A_k+3), (B_k, B_k+2), (B_k+1, B_k+3), its 8 bytes of c (C_k, C_k+2),
// (C_k+1, C_k+3). A unit past the last full group has (A, B) as its ab word and C in order.
inline constexpr uint32_t kGroupOrder[4] = {0u, 2u, 1u, 3u};  // unit k + i's place in its group
inline uint32_t grouped_count(uint32_t count) {
  return count & ~3u;
}
// Group of four at unit k (k % 4 == 0): codes a[i], b[i] of unit k + i.
inline void store_ab_group(uint8_t* ab, uint32_t k, const int32_t* a, const int32_t* b) {
  for (uint32_t i = 0; i < 4u; ++i) {
    store_code(ab, 2u * k + kGroupOrder[i], a[i]);
    store_code(ab, 2u * k + 4u + kGroupOrder[i], b[i]);
  }
}
inline void store_ab_single(uint8_t* ab, uint32_t k, int32_t a, int32_t b) {
  store_code(ab, 2u * k, a);
  store_code(ab, 2u * k + 1u, b);
}
inline void store_c_group(uint8_t* c, uint32_t k, const int32_t* codes) {
  for (uint32_t i = 0; i < 4u; ++i) store_code(c, k + kGroupOrder[i], codes[i]);
}
// Unit k's codes wherever it is (tests and the portable loop's remainder).
inline int32_t load_a(const uint8_t* ab, uint32_t k, uint32_t count) {
  return k < grouped_count(count) ? load_code(ab, 2u * (k & ~3u) + kGroupOrder[k & 3u])
                                  : load_code(ab, 2u * k);
}
inline int32_t load_b(const uint8_t* ab, uint32_t k, uint32_t count) {
  return k < grouped_count(count) ? load_code(ab, 2u * (k & ~3u) + 4u + kGroupOrder[k & 3u])
                                  : load_code(ab, 2u * k + 1u);
}
inline int32_t load_c(const uint8_t* c, uint32_t k, uint32_t count) {
  return k < grouped_count(count) ? load_code(c, (k & ~3u) + kGroupOrder[k & 3u]) : load_code(c, k);
}

// One row's three sums over its `count` weights and its bias (position count, unit codes of the
// bias unit: the tail group's):
//   mean   = sum q_k A_k          (|term| < 2^22)
//   spread = sum u_k^2 B_k        (B_k >= 0, term < 2^31)
//   square = sum q_k^2 C_k        (C_k >= 0, term < 2^29; skipped without C; the bias's C is 0)
// Exact in 64 bits for any count <= 65535, so every summation order gives the same integers.
struct RowSums {
  int64_t mean;
  uint64_t spread;
  uint64_t square;
};
inline constexpr uint32_t kMeanBlock = 512u;  // terms per 32-bit block of the mean sum

// A row's last four bytes, positions count - 3 .. count (the bias at count), as one more group:
// the codes of the units past the last full group and of the bias unit, 0 where a full group
// already covers the position or the position is before a short row (there the byte read is the
// blob's before the row, the previous row's or the tensor's scales, times 0). Every row then ends
// with one more group step, whatever its length, and no remainder loop.
struct TailGroup {
  alignas(4) uint8_t ab[16];
  alignas(4) uint8_t c[8];
};
inline void make_tail_group(const uint8_t* ab, const uint8_t* c, uint32_t count, int32_t bias_a,
                            int32_t bias_b, TailGroup& tail) {
  const uint32_t grouped = grouped_count(count);
  int32_t a[4], b[4], square[4];
  for (uint32_t i = 0; i < 4u; ++i) {
    const uint32_t k = count + i;  // the position + 3 (unsigned: no position below 0)
    const bool rest = k >= grouped + 3u && k < count + 3u;
    a[i] = k == count + 3u ? bias_a : rest ? load_code(ab, 2u * (k - 3u)) : 0;
    b[i] = k == count + 3u ? bias_b : rest ? load_code(ab, 2u * (k - 3u) + 1u) : 0;
    square[i] = rest && c != nullptr ? load_code(c, k - 3u) : 0;
  }
  store_ab_group(tail.ab, 0, a, b);
  store_c_group(tail.c, 0, square);
}

// A group's four terms of each sum, in the portable loops: q A (each |term| < 2^22), u^2 B (two
// pairs, each pair < 2^32) and q^2 C (< 2^31 together).
__attribute__((always_inline)) inline int32_t group_mean_terms(const int8_t* gq,
                                                               const uint8_t* group) {
  return int32_t{gq[0]} * load_code(group, 0) + int32_t{gq[1]} * load_code(group, 2) +
         int32_t{gq[2]} * load_code(group, 1) + int32_t{gq[3]} * load_code(group, 3);
}
__attribute__((always_inline)) inline void add_group_spread_terms(uint64_t& spread,
                                                                  const uint8_t* gu,
                                                                  const uint8_t* b) {
  const auto term = [gu, b](uint32_t i, uint32_t place) {
    return uint32_t{gu[i]} * gu[i] * static_cast<uint32_t>(load_code(b, place));
  };
  spread += term(0, 0) + term(2, 1);  // < 2^32
  spread += term(1, 2) + term(3, 3);
}
__attribute__((always_inline)) inline uint32_t group_square_terms(const int8_t* gq,
                                                                  const uint8_t* gc) {
  const auto term = [gq, gc](uint32_t i, uint32_t place) {
    return static_cast<uint32_t>(int32_t{gq[i]} * gq[i]) *
           static_cast<uint32_t>(load_code(gc, place));
  };
  return term(0, 0) + term(2, 1) + term(1, 2) + term(3, 3);
}

// The portable loop: a group's four terms at a time, then the tail group (c read only with kHasC).
// (Every row_sums piece is always inlined: at -Os GCC would call them, and their frames would
// stack on the rows' beyond the predict stack budget.)
template <bool kHasC>
__attribute__((always_inline)) inline RowSums row_sums_portable(const int8_t* q, const uint8_t* u,
                                                                uint32_t count, const uint8_t* ab,
                                                                const uint8_t* c,
                                                                const TailGroup& tail) {
  RowSums sums{0, 0, 0};
  const uint32_t grouped = grouped_count(count);
  const int8_t* q_tail = q + count - 3u;  // the tail's bytes (the pointer stays inside the blob)
  const uint8_t* u_tail = u + count - 3u;
  const auto variance_terms = [&sums](const int8_t* gq, const uint8_t* gu, const uint8_t* b,
                                      const uint8_t* gc) __attribute__((always_inline)) {
    add_group_spread_terms(sums.spread, gu, b);
    if constexpr (kHasC) sums.square += group_square_terms(gq, gc);
  };
#if defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB == 1
  // Two passes, each with few live values (Cortex-M0 has eight low registers): the mean in
  // 32-bit blocks, then u^2 B and q^2 C: a pair of u^2 B terms (each < 2^31) and a group's four
  // q^2 C terms (each < 2^29) added in 32 bits before each 64-bit addition.
  constexpr bool kOnePass = false;
#else
  // One pass where registers are many (RISC-V, AArch64, x86).
  constexpr bool kOnePass = true;
#endif
  // The mean in 32-bit blocks of at most kMeanBlock terms (with the variance terms in one pass).
  const auto block_of = [&](uint32_t k0, uint32_t end, int32_t block)
      __attribute__((always_inline)) {
    for (uint32_t k = k0; k < end; k += 4u) {
      block += group_mean_terms(q + k, ab + 4u * k);
      if constexpr (kOnePass) {
        variance_terms(q + k, u + k, ab + 4u * k + 8u, kHasC ? c + 2u * k : nullptr);
      }
    }
    return block;
  };
  if (grouped < kMeanBlock) {  // one block with the tail's terms: most rows, no blocks' loop
    sums.mean = block_of(0u, grouped, group_mean_terms(q_tail, tail.ab));
  } else {
    for (uint32_t k0 = 0; k0 < grouped; k0 += kMeanBlock) {
      sums.mean += block_of(k0, grouped - k0 > kMeanBlock ? k0 + kMeanBlock : grouped, 0);
    }
    sums.mean += group_mean_terms(q_tail, tail.ab);
  }
  if constexpr (!kOnePass) {
    for (uint32_t k = 0; k < grouped; k += 4u) {
      variance_terms(q + k, u + k, ab + 4u * k + 8u, kHasC ? c + 2u * k : nullptr);
    }
  }
  variance_terms(q_tail, u_tail, tail.ab + 8u, tail.c);
  return sums;
}

// The dual 16-bit operations the paired loop uses: the ACLE intrinsics (and PKHBT, which GCC's
// arm_acle.h lacks, as one instruction of inline assembly) where the core has them (Cortex-M4,
// M7), else the same operations in portable C++ (so the host tests the loop's logic).
namespace dsp {
inline int32_t low(uint32_t x) {
  return static_cast<int16_t>(x & 0xFFFFu);
}
inline int32_t high(uint32_t x) {
  return static_cast<int16_t>(x >> 16);
}
inline uint32_t load_word(const uint8_t* p) {
  uint32_t w;
  __builtin_memcpy(&w, p, sizeof w);
  return w;
}
#if PBP_S8_S16_DSP
inline uint32_t sxtb16(uint32_t x) {
  return static_cast<uint32_t>(__sxtb16(x));
}
inline uint32_t uxtb16(uint32_t x) {
  return __uxtb16(x);
}
inline int32_t smlad(uint32_t x, uint32_t y, int32_t acc) {
  return __smlad(static_cast<int16x2_t>(x), static_cast<int16x2_t>(y), acc);
}
inline int64_t smlald(uint32_t x, uint32_t y, int64_t acc) {
  return __smlald(static_cast<int16x2_t>(x), static_cast<int16x2_t>(y), acc);
}
// (lo^2 - 32768, hi^2 - 32768) of a pair of halfwords below 256, each as an int16 half (u <= 255:
// -32768 <= u^2 - 32768 <= 32257): the offset rides in the multiplies' addend (SMLABB, SMLATT,
// exact in 32 bits), then PKHBT keeps each one's low halfword. Times a B code (< 2^15) each
// product is below 2^30 in magnitude: a row's SMLALD sum stays far inside 64 bits.
inline uint32_t offset_square_pair(uint32_t pair) {
  const int32_t low = __smlabb(static_cast<int32_t>(pair), static_cast<int32_t>(pair), -32768);
  const int32_t high = __smlatt(static_cast<int32_t>(pair), static_cast<int32_t>(pair), -32768);
  uint32_t r;
  __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(low), "r"(high));
  return r;
}

// SMLALD on an accumulator held as two words (GCC keeps a 64-bit loop accumulator on the stack).
inline void smlald_words(uint32_t x, uint32_t y, uint32_t& low_word, uint32_t& high_word) {
  __asm__("smlald %0, %1, %2, %3" : "+r"(low_word), "+r"(high_word) : "r"(x), "r"(y));
}
inline uint32_t pack(uint32_t low_half, uint32_t high_half) {  // PKHBT
  uint32_t r;
  __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(r) : "r"(low_half), "r"(high_half));
  return r;
}
// bytes 1 and 3: SXTB16/UXTB16 with their own rotation (GCC emits a separate ROR for the ACLE
// intrinsic of a rotated word)
inline uint32_t sxtb16_ror8(uint32_t x) {
  uint32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
  return r;
}
inline uint32_t uxtb16_ror8(uint32_t x) {
  uint32_t r;
  __asm__("uxtb16 %0, %1, ror #8" : "=r"(r) : "r"(x));
  return r;
}
#else
// bytes 0 and 2 of x, sign- or zero-extended into the two halfwords
inline uint32_t sxtb16(uint32_t x) {
  const int32_t b0 = static_cast<int8_t>(x & 0xFFu);
  const int32_t b2 = static_cast<int8_t>((x >> 16) & 0xFFu);
  return (static_cast<uint32_t>(b0) & 0xFFFFu) | (static_cast<uint32_t>(b2) << 16);
}
inline uint32_t uxtb16(uint32_t x) {
  return x & 0x00FF00FFu;
}
inline int32_t smlad(uint32_t x, uint32_t y, int32_t acc) {  // callers keep it within int32
  return acc + low(x) * low(y) + high(x) * high(y);
}
inline int64_t smlald(uint32_t x, uint32_t y, int64_t acc) {
  return acc + int64_t{low(x) * low(y)} + int64_t{high(x) * high(y)};
}
inline void smlald_words(uint32_t x, uint32_t y, uint32_t& low_word, uint32_t& high_word) {
  const uint64_t sum = static_cast<uint64_t>(
      smlald(x, y, static_cast<int64_t>(uint64_t{high_word} << 32 | low_word)));
  low_word = static_cast<uint32_t>(sum);
  high_word = static_cast<uint32_t>(sum >> 32);
}
inline uint32_t pack(uint32_t low_half, uint32_t high_half) {
  return (low_half & 0xFFFFu) | (high_half << 16);
}
inline uint32_t offset_square_pair(uint32_t pair) {  // u^2 - 32768 is u^2 XOR 0x8000 in 16 bits
  const uint32_t low_square = static_cast<uint32_t>(low(pair) * low(pair));
  const uint32_t high_square = static_cast<uint32_t>(high(pair) * high(pair));
  return pack(low_square, high_square) ^ 0x80008000u;
}
#endif
// Two words at p (word-aligned), p advanced by 8: one LDRD with write-back in Thumb-2.
inline void load_two_words(const uint8_t*& p, uint32_t& first, uint32_t& second) {
#if PBP_S8_S16_THUMB2
  __asm__("ldrd %0, %1, [%2], #8" : "=r"(first), "=r"(second), "+r"(p) : : "memory");
#else
  first = load_word(p);
  second = load_word(p + 4u);
  p += 8u;
#endif
}
inline uint32_t ror8(uint32_t x) {
  return (x >> 8) | (x << 24);
}
#if !PBP_S8_S16_DSP
inline uint32_t sxtb16_ror8(uint32_t x) {
  return sxtb16(ror8(x));
}
inline uint32_t uxtb16_ror8(uint32_t x) {
  return uxtb16(ror8(x));
}
#endif
// The squares of a pair's halfwords (SMULBB, SMULTT; each below 2^16 here), packed.
inline uint32_t square_pair(uint32_t pair) {
  return pack(static_cast<uint32_t>(low(pair) * low(pair)),
              static_cast<uint32_t>(high(pair) * high(pair)));
}
}  // namespace dsp

// The sum of the B codes the paired loop reads for every row (the grouped units' and the tail
// group's): its correction, one per layer.
inline uint64_t paired_code_total(const uint8_t* ab, uint32_t count, const TailGroup& tail) {
  uint64_t total = 0;
  for (uint32_t k = 0; k < grouped_count(count); k += 4u) {
    for (uint32_t i = 4u; i < 8u; ++i) total += static_cast<uint32_t>(load_code(ab, 2u * k + i));
  }
  for (uint32_t i = 4u; i < 8u; ++i) total += static_cast<uint32_t>(load_code(tail.ab, i));
  return total;
}

// One group's step of the paired loops: its mean terms into a 32-bit block (SMLAD: a block of at
// most kMeanBlock terms stays within int32, and one register where a 64-bit sum would take two
// and spill), its u^2 B terms into (spread_low, spread_high); its q^2 C terms on their own.
__attribute__((always_inline)) inline int32_t paired_group(const uint8_t* at_q, const uint8_t* at_u,
                                                           const uint8_t* group, int32_t block,
                                                           uint32_t& spread_low,
                                                           uint32_t& spread_high) {
  using namespace dsp;
  const uint32_t qw = load_word(at_q);
  block = smlad(sxtb16(qw), load_word(group), block);
  block = smlad(sxtb16_ror8(qw), load_word(group + 4u), block);
  const uint32_t uw = load_word(at_u);
  smlald_words(offset_square_pair(uxtb16(uw)), load_word(group + 8u), spread_low, spread_high);
  smlald_words(offset_square_pair(uxtb16_ror8(uw)), load_word(group + 12u), spread_low,
               spread_high);
  return block;
}
__attribute__((always_inline)) inline void paired_square_group(const uint8_t* at_q,
                                                               const uint8_t* group_c,
                                                               uint32_t& square_low,
                                                               uint32_t& square_high) {
  using namespace dsp;
  const uint32_t qw = load_word(at_q);
  smlald_words(square_pair(sxtb16(qw)), load_word(group_c), square_low, square_high);
  smlald_words(square_pair(sxtb16_ror8(qw)), load_word(group_c + 4u), square_low, square_high);
}
// The same steps walking their pointers (the fast loop): the group's code words two at a time
// (LDRD with write-back), the weight bytes a word at a time (rows are not word-aligned).
__attribute__((always_inline)) inline int32_t paired_step(const uint8_t*& at_q,
                                                          const uint8_t*& at_u,
                                                          const uint8_t*& group, int32_t block,
                                                          uint32_t& spread_low,
                                                          uint32_t& spread_high) {
  using namespace dsp;
  uint32_t a02, a13, b02, b13;
  const uint32_t qw = load_word(at_q);
  at_q += 4u;
  load_two_words(group, a02, a13);
  block = smlad(sxtb16(qw), a02, block);
  block = smlad(sxtb16_ror8(qw), a13, block);
  const uint32_t uw = load_word(at_u);
  at_u += 4u;
  load_two_words(group, b02, b13);
  smlald_words(offset_square_pair(uxtb16(uw)), b02, spread_low, spread_high);
  smlald_words(offset_square_pair(uxtb16_ror8(uw)), b13, spread_low, spread_high);
  return block;
}
__attribute__((always_inline)) inline void paired_square_step(const uint8_t*& at_q,
                                                              const uint8_t*& group_c,
                                                              uint32_t& square_low,
                                                              uint32_t& square_high) {
  using namespace dsp;
  uint32_t c02, c13;
  const uint32_t qw = load_word(at_q);
  at_q += 4u;
  load_two_words(group_c, c02, c13);
  smlald_words(square_pair(sxtb16(qw)), c02, square_low, square_high);
  smlald_words(square_pair(sxtb16_ror8(qw)), c13, square_low, square_high);
}

#if PBP_S8_S16_THUMB2
// The asm loops' count of groups (0 .. 16383) in the top halfword and 0x8000 in the low one: also
// SMLABB's and SMLATT's addend (offset_square_pair's -32768, of which PKHBT keeps the low
// halfword). The loops take the groups by the count's bits (1, 2, 4, 8 and 16 groups: no branch
// in C per row), then 32 an iteration.
inline uint32_t group_count(uint32_t groups) {
  return groups << 16 | 0x8000u;
}
// A group's mean terms (t0 .. t3 free, t3 = the (q_k, q_k+2) pair and t0 the other after it),
// into a 64-bit sum (SMLALD: no 32-bit blocks, so a row of any length is one call).
#define PBP_S8_S16_MEAN_STEP                \
  "ldr    %[t0], [%[q]], #4\n\t"            \
  "ldrd   %[t1], %[t2], [%[g]], #8\n\t"     \
  "sxtb16 %[t3], %[t0]\n\t"                 \
  "smlald %[mnl], %[mnh], %[t3], %[t1]\n\t" \
  "sxtb16 %[t0], %[t0], ror #8\n\t"         \
  "smlald %[mnl], %[mnh], %[t0], %[t2]\n\t"
// A row of a layer without C (paired_step's instructions): the tail group (its pointers in t0,
// t1, t2, temporaries after it), then the groups `k` counts (group_count's) from q, u and g; the
// mean into (mean_low, mean_high) (GCC's loop also advanced two pointers by adds), the u^2 B
// terms added to (spread_low, spread_high).
__attribute__((always_inline)) inline void paired_row(const uint8_t* at_q, const uint8_t* at_u,
                                                      const uint8_t* group, const uint8_t* tail_q,
                                                      const uint8_t* tail_u,
                                                      const uint8_t* tail_group, uint32_t k,
                                                      uint32_t& mean_low, uint32_t& mean_high,
                                                      uint32_t& spread_low, uint32_t& spread_high) {
  const uint8_t* t0 = tail_q;
  const uint8_t* t1 = tail_u;
  const uint8_t* t2 = tail_group;
  uint32_t t3;
#define PBP_S8_S16_GROUP                    \
  PBP_S8_S16_MEAN_STEP                      \
  "ldr    %[t0], [%[u]], #4\n\t"            \
  "uxtb16 %[t1], %[t0]\n\t"                 \
  "uxtb16 %[t0], %[t0], ror #8\n\t"         \
  "smlabb %[t2], %[t1], %[t1], %[k]\n\t"    \
  "smlatt %[t1], %[t1], %[t1], %[k]\n\t"    \
  "pkhbt  %[t2], %[t2], %[t1], lsl #16\n\t" \
  "smlabb %[t1], %[t0], %[t0], %[k]\n\t"    \
  "smlatt %[t0], %[t0], %[t0], %[k]\n\t"    \
  "pkhbt  %[t1], %[t1], %[t0], lsl #16\n\t" \
  "ldrd   %[t0], %[t3], [%[g]], #8\n\t"     \
  "smlald %[spl], %[sph], %[t2], %[t0]\n\t" \
  "smlald %[spl], %[sph], %[t1], %[t3]\n\t"
#define PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_GROUP PBP_S8_S16_GROUP PBP_S8_S16_GROUP PBP_S8_S16_GROUP
  __asm__ volatile(
      // the tail group: its mean terms in 32 bits (SMUAD, SMLAD), sign-extended to the 64-bit sum
      "ldr    %[t0], [%[t0]]\n\t"
      "ldrd   %[mnl], %[mnh], [%[t2]], #8\n\t"
      "sxtb16 %[t3], %[t0]\n\t"
      "smuad  %[t3], %[t3], %[mnl]\n\t"
      "sxtb16 %[t0], %[t0], ror #8\n\t"
      "smlad  %[t3], %[t0], %[mnh], %[t3]\n\t"
      "asr    %[mnh], %[t3], #31\n\t"
      "mov    %[mnl], %[t3]\n\t"
      "ldr    %[t0], [%[t1]]\n\t"
      "uxtb16 %[t1], %[t0]\n\t"
      "uxtb16 %[t0], %[t0], ror #8\n\t"
      "smlabb %[t3], %[t1], %[t1], %[k]\n\t"
      "smlatt %[t1], %[t1], %[t1], %[k]\n\t"
      "pkhbt  %[t3], %[t3], %[t1], lsl #16\n\t"
      "smlabb %[t1], %[t0], %[t0], %[k]\n\t"
      "smlatt %[t0], %[t0], %[t0], %[k]\n\t"
      "pkhbt  %[t1], %[t1], %[t0], lsl #16\n\t"
      "ldrd   %[t0], %[t2], [%[t2]]\n\t"  // (the base as the second register: no write-back)
      "smlald %[spl], %[sph], %[t3], %[t0]\n\t"
      "smlald %[spl], %[sph], %[t1], %[t2]\n\t"
      // the groups
      "tst    %[k], #65536\n\t"
      "beq    6f\n\t" PBP_S8_S16_GROUP
      "6:\n\t"
      "tst    %[k], #131072\n\t"
      "beq    7f\n\t" PBP_S8_S16_GROUP PBP_S8_S16_GROUP
      "7:\n\t"
      "tst    %[k], #262144\n\t"
      "beq    2f\n\t" PBP_S8_S16_FOUR_GROUPS
      "2:\n\t"
      "tst    %[k], #524288\n\t"
      "beq    4f\n\t" PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS
      "4:\n\t"
      "tst    %[k], #1048576\n\t"
      "beq    5f\n\t" PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS
          PBP_S8_S16_FOUR_GROUPS
      "5:\n\t"
      "subs   %[k], %[k], #2097152\n\t"
      "bmi    3f\n"
      "1:\n\t" PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS
          PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS
              PBP_S8_S16_FOUR_GROUPS PBP_S8_S16_FOUR_GROUPS
      "subs   %[k], %[k], #2097152\n\t"
      "bpl    1b\n"
      "3:"
      : [q] "+r"(at_q), [u] "+r"(at_u), [g] "+r"(group), [k] "+r"(k), [mnl] "=&r"(mean_low),
        [mnh] "=&r"(mean_high), [spl] "+r"(spread_low), [sph] "+r"(spread_high), [t0] "+r"(t0),
        [t1] "+r"(t1), [t2] "+r"(t2), [t3] "=&r"(t3)
      :
      : "cc", "memory");
#undef PBP_S8_S16_FOUR_GROUPS
#undef PBP_S8_S16_GROUP
#undef PBP_S8_S16_MEAN_STEP
}

// paired_row's groups with the q^2 C terms in the same loop (layers with C): the mean step's
// (q_k, q_k+2) and (q_k+1, q_k+3) pairs squared for the q^2 C terms, so each weight word is loaded
// and extended once (27 instructions a group, not 30). It needs 14 registers: a naked function
// of its own (r0-r12 and lr), its state read and written back by LDM/STM. `count` is
// group_count's (the mean in 32 bits: at most kMeanBlock / 4 groups a call).
struct FusedGroups {  // the registers r0 .. r9, in order
  const uint8_t* q;
  const uint8_t* u;
  const uint8_t* group;
  const uint8_t* group_c;
  uint32_t count;
  int32_t block;
  uint32_t spread_low, spread_high, square_low, square_high;
};
__attribute__((naked, noinline)) inline void paired_fused_groups(FusedGroups* /*state*/) {
#define PBP_S8_S16_FUSED_GROUP        \
  "ldr    r10, [r0], #4\n\t"          \
  "ldrd   r11, r12, [r2], #8\n\t"     \
  "sxtb16 lr, r10\n\t"                \
  "sxtb16 r10, r10, ror #8\n\t"       \
  "smlad  r5, lr, r11, r5\n\t"        \
  "smlad  r5, r10, r12, r5\n\t"       \
  "smulbb r11, lr, lr\n\t"            \
  "smultt lr, lr, lr\n\t"             \
  "pkhbt  r11, r11, lr, lsl #16\n\t"  \
  "smulbb r12, r10, r10\n\t"          \
  "smultt r10, r10, r10\n\t"          \
  "pkhbt  r12, r12, r10, lsl #16\n\t" \
  "ldrd   r10, lr, [r3], #8\n\t"      \
  "smlald r8, r9, r11, r10\n\t"       \
  "smlald r8, r9, r12, lr\n\t"        \
  "ldr    r10, [r1], #4\n\t"          \
  "uxtb16 r11, r10\n\t"               \
  "uxtb16 r10, r10, ror #8\n\t"       \
  "smlabb r12, r11, r11, r4\n\t"      \
  "smlatt r11, r11, r11, r4\n\t"      \
  "pkhbt  r12, r12, r11, lsl #16\n\t" \
  "smlabb r11, r10, r10, r4\n\t"      \
  "smlatt r10, r10, r10, r4\n\t"      \
  "pkhbt  r11, r11, r10, lsl #16\n\t" \
  "ldrd   r10, lr, [r2], #8\n\t"      \
  "smlald r6, r7, r12, r10\n\t"       \
  "smlald r6, r7, r11, lr\n\t"
#define PBP_S8_S16_FUSED_FOUR \
  PBP_S8_S16_FUSED_GROUP PBP_S8_S16_FUSED_GROUP PBP_S8_S16_FUSED_GROUP PBP_S8_S16_FUSED_GROUP
  __asm__(
      "push   {r0, r4-r11, lr}\n\t"
      "ldm    r0, {r0-r9}\n"  // (the base in the list, without write-back: it loads last)
      "tst    r4, #65536\n\t"
      "beq    6f\n\t" PBP_S8_S16_FUSED_GROUP
      "6:\n\t"
      "tst    r4, #131072\n\t"
      "beq    7f\n\t" PBP_S8_S16_FUSED_GROUP PBP_S8_S16_FUSED_GROUP
      "7:\n\t"
      "tst    r4, #262144\n\t"
      "beq    2f\n\t" PBP_S8_S16_FUSED_FOUR
      "2:\n\t"
      "tst    r4, #524288\n\t"
      "beq    4f\n\t" PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR
      "4:\n\t"
      "tst    r4, #1048576\n\t"
      "beq    5f\n\t" PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR
          PBP_S8_S16_FUSED_FOUR
      "5:\n\t"
      "subs   r4, r4, #2097152\n\t"
      "bmi    3f\n"
      "1:\n\t" PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR
          PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR PBP_S8_S16_FUSED_FOUR
              PBP_S8_S16_FUSED_FOUR
      "subs   r4, r4, #2097152\n\t"
      "bpl    1b\n"
      "3:\n\t"
      "ldr    r12, [sp]\n\t"
      "stm    r12, {r0-r9}\n\t"
      "pop    {r0, r4-r11, pc}");
#undef PBP_S8_S16_FUSED_FOUR
#undef PBP_S8_S16_FUSED_GROUP
}
#endif

// The paired loop: a group of four weights per step, one dual 16-bit multiply-accumulate per
// pair and sum (SMLAD into 32-bit blocks for the mean, SMLALD into 64-bit sums held as two words
// for the others; Thumb-2 layers without C: the mean in 64 bits too), the tail group first, then
// the groups two per iteration, or on Thumb-2 the row in one asm block (paired_row, or
// paired_fused_groups with C). The weight bytes k .. k+3 become the halfword pairs (k, k+2) and
// (k+1, k+3) (SXTB16, UXTB16 of the word and of it rotated by 8), which match the group's code
// words. The squared sd codes u^2 (up to 65025) do not fit a signed halfword; u^2 - 32768 does
// (offset_square_pair), and 32768 times the sum of those B (b_paired_total, paired_code_total's) is
// the spread sum's start. The same integers as row_sums_portable, summed in another order.
template <bool kHasC>
__attribute__((always_inline)) inline RowSums row_sums_paired(const int8_t* q, const uint8_t* u,
                                                              uint32_t count, const uint8_t* ab,
                                                              const uint8_t* c,
                                                              const TailGroup& tail,
                                                              uint64_t b_paired_total) {
  const uint8_t* q_bytes = reinterpret_cast<const uint8_t*>(q);
  RowSums sums;
  // sum (u^2 - 32768) B, two's complement, from the correction 32768 b_paired_total
  uint32_t spread_low = static_cast<uint32_t>(b_paired_total << 15);
  uint32_t spread_high = static_cast<uint32_t>(b_paired_total >> 17);
  // Pointers and a count-down: the loop keeps everything in registers.
  const uint8_t* q_at = q_bytes;
  const uint8_t* u_at = u;
  const uint8_t* group = ab;
  const auto step = [&](int32_t block) __attribute__((always_inline)) {
    return paired_step(q_at, u_at, group, block, spread_low, spread_high);
  };
  uint32_t square_low = 0, square_high = 0;  // sum q^2 C (kHasC)
  const uint8_t* c_at = c;
  const auto groups_of = [&](uint32_t groups, int32_t block)
      __attribute__((always_inline)) {           // 0 < groups <= kMeanBlock / 4
    if constexpr (kHasC && PBP_S8_S16_THUMB2) {  // the three sums in one asm loop
#if PBP_S8_S16_THUMB2
      FusedGroups state{q_at,  u_at,       group,       c_at,       group_count(groups),
                        block, spread_low, spread_high, square_low, square_high};
      paired_fused_groups(&state);
      q_at = state.q, u_at = state.u, group = state.group, c_at = state.group_c;
      block = state.block;
      spread_low = state.spread_low, spread_high = state.spread_high;
      square_low = state.square_low, square_high = state.square_high;
#endif
    } else {
      if ((groups & 1u) != 0) block = step(block);
      for (groups >>= 1; groups != 0; --groups) block = step(step(block));
    }
    return block;
  };
  uint32_t groups_left = count / 4u;
#if PBP_S8_S16_THUMB2  // layers without C: the mean in 64 bits, the row in one asm block
  if constexpr (!kHasC) {
    uint32_t mean_low, mean_high;
    paired_row(q_bytes, u, ab, q_bytes + count - 3u, u + count - 3u, tail.ab,
               group_count(groups_left), mean_low, mean_high, spread_low, spread_high);
    sums.mean = static_cast<int64_t>(uint64_t{mean_high} << 32 | mean_low);
    sums.spread = uint64_t{spread_high} << 32 | spread_low;
    sums.square = 0u;
    return sums;
  }
#endif
  const uint8_t* tail_q = q_bytes + count - 3u;
  const uint8_t* tail_u = u + count - 3u;
  const uint8_t* tail_group = tail.ab;
  const int32_t tail_block = paired_step(tail_q, tail_u, tail_group, 0, spread_low, spread_high);
  if constexpr (kHasC && PBP_S8_S16_THUMB2) {
    const uint8_t* tail_q_again = q_bytes + count - 3u;
    const uint8_t* tail_c = tail.c;
    paired_square_step(tail_q_again, tail_c, square_low, square_high);
  }
  int64_t mean = tail_block;
  if (groups_left != 0 && groups_left < kMeanBlock / 4u) {  // one block with the tail's terms
    mean = groups_of(groups_left, tail_block);
  } else {
    while (groups_left != 0) {
      const uint32_t groups = groups_left > kMeanBlock / 4u ? kMeanBlock / 4u : groups_left;
      groups_left -= groups;
      mean += groups_of(groups, 0);
    }
  }
  sums.mean = mean;
  sums.spread = uint64_t{spread_high} << 32 | spread_low;
  sums.square = uint64_t{square_high} << 32 | square_low;  // (the DSP loop's)
  if constexpr (kHasC && !PBP_S8_S16_THUMB2) {             // a loop of its own
    const uint8_t* q_again = q_bytes;
    const auto square_step = [&]() __attribute__((always_inline)) {
      paired_square_step(q_again, c_at, square_low, square_high);
    };
    uint32_t groups = count / 4u;
    if ((groups & 1u) != 0) square_step();
    for (groups >>= 1; groups != 0; --groups) {
      square_step();
      square_step();
    }
    const uint8_t* tail_c = tail.c;
    q_again = q_bytes + count - 3u;
    paired_square_step(q_again, tail_c, square_low, square_high);
    sums.square = uint64_t{square_high} << 32 | square_low;
  }
  return sums;
}

// Storage type 4's spread sum, sum_k M[f_k] 2^e_k B_k over the row's weights and its bias
// (u_k = 8 e_k + f_k, format.hpp's int8_log_variance; the bias's B is `bias_b`). Each term is
// below 2^8 2^15 2^31 = 2^54, so a block of kLogBlock terms is exact in 64 bits, and the carries
// above them in 32 more bits hold any row: the same integers on every target, in any order.
inline constexpr uint32_t kLogBlock = 1024u;
__attribute__((always_inline)) inline uint64_t log_term(uint8_t code, int32_t b) {
  namespace lv = format::int8_log_variance;
  const uint32_t product = lv::mantissa(code) * static_cast<uint32_t>(b);  // < 2^23
  const uint32_t e = lv::octave(code);                                     // 0 .. 31
  // product 2^e in two words, 32-bit shifts only (a 64-bit shift is a library call on Thumb-1)
  return uint64_t{(product >> 1) >> (31u - e)} << 32 | (product << e);
}
template <uint32_t kBlock = kLogBlock>  // (tests: smaller blocks)
inline WideSum log_spread_sum(const uint8_t* u, uint32_t count, const uint8_t* ab, int32_t bias_b) {
  static_assert(kBlock % 4u == 0 && kBlock <= kLogBlock, "whole groups, each block below 2^64");
  WideSum sum{0u, 0u};
  const uint32_t grouped = grouped_count(count);
  for (uint32_t k0 = 0; k0 < grouped; k0 += kBlock) {
    const uint32_t end = grouped - k0 > kBlock ? k0 + kBlock : grouped;
    uint64_t block = 0;
    for (uint32_t k = k0; k < end; k += 4u) {
      const uint8_t* b = ab + 4u * k + 8u;
      for (uint32_t i = 0; i < 4u; ++i) block += log_term(u[k + i], load_code(b, kGroupOrder[i]));
    }
    add_to(sum, block);
  }
  uint64_t rest = log_term(u[count], bias_b);
  for (uint32_t k = grouped; k < count; ++k) rest += log_term(u[k], load_code(ab, 2u * k + 1u));
  add_to(sum, rest);
  return sum;
}

// The size-optimised loop (PBP_S8_S16_COMPACT), one copy for every row: the groups one step each
// (paired where the core has the DSP instructions: SMLAD sums their B codes for the correction),
// then the units past the last full group and the bias (A bias_a, B bias_b, no C) one step each,
// with no tail group; c null: no C (square 0); log_spread non-null: storage type 4's spread sum
// into it as well. Both blocks are flushed every kMeanBlock / 4 steps (at most kMeanBlock terms).
// The same integers as the loops above.
__attribute__((noinline)) inline RowSums row_sums_compact(const int8_t* q, const uint8_t* u,
                                                          uint32_t count, const uint8_t* ab,
                                                          const uint8_t* c, int32_t bias_a,
                                                          int32_t bias_b, WideSum* log_spread) {
  static_assert(kMeanBlock <= kLogBlock, "a mean block's terms fit a block of the log sum");
  RowSums sums{0, 0, 0};
  uint32_t spread_low = 0, spread_high = 0, square_low = 0, square_high = 0;  // paired steps'
  int32_t block = 0, b_total = 0;  // b_total < 65532 * 32767 < 2^31
  uint64_t log_block = 0;
  const uint32_t grouped = grouped_count(count);
  for (uint32_t k = 0, steps = 1; k <= count; ++steps) {
    const bool group = k < grouped;
    int32_t b = 0;  // a single unit's B
    if (group) {
      const uint8_t* at = ab + 4u * k;
#if PBP_S8_S16_DSP
      const uint8_t* q_bytes = reinterpret_cast<const uint8_t*>(q);
      block = paired_group(q_bytes + k, u + k, at, block, spread_low, spread_high);
      b_total = dsp::smlad(dsp::load_word(at + 8u), 0x00010001u, b_total);
      b_total = dsp::smlad(dsp::load_word(at + 12u), 0x00010001u, b_total);
      if (c != nullptr) paired_square_group(q_bytes + k, c + 2u * k, square_low, square_high);
#else
      block += group_mean_terms(q + k, at);
      add_group_spread_terms(sums.spread, u + k, at + 8u);
      if (c != nullptr) sums.square += group_square_terms(q + k, c + 2u * k);
#endif
    } else {
      const bool bias = k == count;
      b = bias ? bias_b : load_code(ab, 2u * k + 1u);
      block += int32_t{q[k]} * (bias ? bias_a : load_code(ab, 2u * k));
      sums.spread += uint32_t{u[k]} * u[k] * static_cast<uint32_t>(b);  // (< 2^31)
      if (c != nullptr && !bias) {
        sums.square +=
            static_cast<uint32_t>(int32_t{q[k]} * q[k]) * static_cast<uint32_t>(load_code(c, k));
      }
    }
    const uint32_t units = group ? 4u : 1u;
    if (log_spread != nullptr) {
      for (uint32_t i = 0; i < units; ++i) {
        log_block += log_term(u[k + i], group ? load_code(ab, 2u * k + 4u + kGroupOrder[i]) : b);
      }
    }
    k += units;
    if (steps % (kMeanBlock / 4u) == 0 || k > count) {  // a full block, or the row's end
      sums.mean += block;
      block = 0;
      if (log_spread != nullptr) add_to(*log_spread, log_block);
      log_block = 0;
    }
  }
  if (kPairedLoop) {
    sums.spread += (uint64_t{spread_high} << 32 | spread_low) +
                   (uint64_t{static_cast<uint32_t>(b_total)} << 15);
    sums.square += uint64_t{square_high} << 32 | square_low;
  }
  return sums;
}

// The loop a fast build runs (both read the same layout; the compact build: row_sums_compact).
template <bool kHasC>
__attribute__((always_inline)) inline RowSums row_sums(const int8_t* q, const uint8_t* u,
                                                       uint32_t count, const uint8_t* ab,
                                                       const uint8_t* c, const TailGroup& tail,
                                                       uint64_t b_paired_total) {
#if PBP_S8_S16_DSP
  return row_sums_paired<kHasC>(q, u, count, ab, c, tail, b_paired_total);
#else
  (void)b_paired_total;
  return row_sums_portable<kHasC>(q, u, count, ab, c, tail);
#endif
}

}  // namespace pbp::detail::s8_s16
