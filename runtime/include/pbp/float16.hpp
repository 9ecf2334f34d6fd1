// IEEE-754 binary16 <-> binary32, the encoding of storage type 2 (format.hpp): the one copy of
// the conversion, used by the writer (trainer), the runtime's float16 kernel and the readers.
// Integer operations only (no FPU half instructions, no libm), so every target gets the same bits.
#pragma once
#include <stdint.h>

namespace pbp::format {

// The float whose value the half `h` encodes: exact (every half is a float). Infinities and NaNs
// map to infinities and NaNs (the runtime rejects them before any prediction).
inline float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  uint32_t bits;
  if (exponent == 0x1Fu) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0u) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);  // rebias 15 -> 127
  } else if (mantissa == 0u) {
    bits = sign;
  } else {
    // Subnormal mantissa x 2^-24: shift its leading 1 into the implicit bit of a normal float.
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
