// SPDX-License-Identifier: Apache-2.0
// IEEE-754 binary16 <-> binary32, the encoding of storage type 2 (format.hpp): the one copy of
// the conversion, used by the writer (trainer), the runtime's float16 kernel and the readers.
// Integer operations (no libm), so every target gets the same bits; where the compiler has IEEE
// halves on a hardware FPU (ACLE's __fp16: Cortex-M4F/M7 with -mfp16-format=ieee, AArch64),
// half_to_float is the FPU's conversion, one instruction (VCVTB, FCVT) for about 12: the same
// value, exactly, for every finite half, under any FPSCR mode (flush-to-zero does not apply to
// half inputs before Armv8.2's FZ16; the alternative format differs only in exponent 31).
#pragma once
#include <stdint.h>

#if defined(__ARM_FP16_FORMAT_IEEE) && defined(__ARM_FP)
#define PBP_HALF_TO_FLOAT_IN_HARDWARE 1
#else
#define PBP_HALF_TO_FLOAT_IN_HARDWARE 0
#endif

namespace pbp::format {

// The float whose value the half `h` encodes, by integer operations: exact (every half is a
// float). Infinities and NaNs map to infinities and NaNs, the NaNs' payload kept.
inline float half_to_float_portable(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t magnitude = h & 0x7FFFu;
  uint32_t bits;
  if (magnitude - 0x0400u < 0x7800u) {  // normal (exponent 1 .. 30), tested first: one compare
    bits = sign | ((magnitude << 13) + (112u << 23));  // rebias 15 -> 127
  } else if (magnitude >= 0x7C00u) {
    bits = sign | 0x7F800000u | ((magnitude & 0x3FFu) << 13);
  } else if (magnitude == 0u) {
    bits = sign;
  } else {
    // Subnormal mantissa x 2^-24: shift its leading 1 into the implicit bit of a normal float.
    uint32_t mantissa = magnitude;
    uint32_t float_exponent = 113u;  // 2^-14, the smallest normal half's exponent
    while ((mantissa & 0x400u) == 0u) {
      mantissa <<= 1;
      --float_exponent;
    }
    bits = sign | (float_exponent << 23) | ((mantissa & 0x3FFu) << 13);
  }
  float value;
  __builtin_memcpy(&value, &bits, sizeof value);
  return value;
}

// The float whose value the half `h` encodes: exact. Infinities and NaNs map to infinities and
// NaNs (the FPU may quieten a signalling NaN; the runtime rejects both before any prediction).
inline float half_to_float(uint16_t h) {
#if PBP_HALF_TO_FLOAT_IN_HARDWARE
  __fp16 half;
  __builtin_memcpy(&half, &h, sizeof half);
  return static_cast<float>(half);
#else
  return half_to_float_portable(h);
#endif
}

// The half nearest to `value`, ties to even (IEEE round-to-nearest-even): |value| >= 65520 gives
// an infinity, |value| <= 2^-25 a zero of value's sign. NaNs stay NaNs (quiet, payload's top bits).
inline uint16_t float_to_half(float value) {
  uint32_t bits;
  __builtin_memcpy(&bits, &value, sizeof bits);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | (magnitude >> 13));
  if (magnitude >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // 65520 and up
  const uint32_t float_exponent = magnitude >> 23;
  uint32_t half;
  uint32_t rest;
  uint32_t halfway;
  if (float_exponent >= 113u) {  // a normal half: drop 13 mantissa bits
    half = ((float_exponent - 112u) << 10) | ((magnitude >> 13) & 0x3FFu);
    rest = magnitude & 0x1FFFu;
    halfway = 0x1000u;
  } else if (float_exponent >= 101u) {  // a subnormal half (or a tie at 2^-25): units of 2^-24
    const uint32_t significand = (magnitude & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - float_exponent;  // 14 .. 25
    half = significand >> shift;
    rest = significand & ((1u << shift) - 1u);
    halfway = 1u << (shift - 1u);
  } else {
    return static_cast<uint16_t>(sign);  // below 2^-25 (float subnormals too): rounds to zero
  }
  // Ties to even; a carry out of the mantissa correctly steps the exponent (up to infinity).
  if (rest > halfway || (rest == halfway && (half & 1u) != 0u)) ++half;
  return static_cast<uint16_t>(sign | half);
}

// Little-endian u16 access, as load_u32 in format.hpp.
inline uint16_t load_u16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
inline void store_u16(uint8_t* p, uint16_t value) {
  p[0] = static_cast<uint8_t>(value);
  p[1] = static_cast<uint8_t>(value >> 8);
}

}  // namespace pbp::format
