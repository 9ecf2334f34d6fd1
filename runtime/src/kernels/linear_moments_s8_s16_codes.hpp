// SPDX-License-Identifier: Apache-2.0
// The int8 kernel's activation codes (linear_moments_s8_s16.hpp): its build options, the
// power-of-two quantisation of unit moments to int16, their layout in the workspace, and the
// exact conversions of integer sums back to float. Integer arithmetic on float bits, so every
// target gets the same codes.
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

// The rows' function (linear_moments_s8_s16.cpp) on RISC-V, built without GCC's scheduling before
// register allocation (on by default there; on Arm GCC weighs register pressure in it): that pass
// hoisted every load of a loop step above the arithmetic and the loop spilled, 178 instructions
// per eight weights with C against 119 without it (the two-group step, linear_moments_s8_s16.hpp;
// one group a step: 78 per four against 65). GCC's optimize attribute adds the option to the
// command line's.
#if defined(__riscv) && defined(__GNUC__) && !defined(__clang__)
#define PBP_S8_S16_ROWS_SCHEDULE __attribute__((optimize("no-schedule-insns")))
#else
#define PBP_S8_S16_ROWS_SCHEDULE
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

}  // namespace pbp::detail::s8_s16
