// SPDX-License-Identifier: Apache-2.0
// The dual 16-bit operations of the int8 kernel's paired row loop (linear_moments_s8_s16.hpp).
#pragma once
#include "kernels/linear_moments_s8_s16_codes.hpp"

namespace pbp::detail::s8_s16 {

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

}  // namespace pbp::detail::s8_s16
