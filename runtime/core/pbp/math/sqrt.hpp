// SPDX-License-Identifier: Apache-2.0
// pbp::math::sqrt: correctly rounded square root (hardware instruction or exact integer code).
#pragma once
#include "bits.hpp"

#if defined(__SSE2__) || defined(__aarch64__)
#define PBP_MATH_HW_SQRT_FLOAT 1
#define PBP_MATH_HW_SQRT_DOUBLE 1
#elif defined(__ARM_FP)
#if (__ARM_FP & 4)
#define PBP_MATH_HW_SQRT_FLOAT 1
#endif
#if (__ARM_FP & 8)
#define PBP_MATH_HW_SQRT_DOUBLE 1
#endif
#elif defined(__riscv_fsqrt)  // RISC-V F (fsqrt.s), D (fsqrt.d)
#define PBP_MATH_HW_SQRT_FLOAT 1
#if __riscv_flen >= 64
#define PBP_MATH_HW_SQRT_DOUBLE 1
#endif
#endif
#ifndef PBP_MATH_HW_SQRT_FLOAT
#define PBP_MATH_HW_SQRT_FLOAT 0
#endif
#ifndef PBP_MATH_HW_SQRT_DOUBLE
#define PBP_MATH_HW_SQRT_DOUBLE 0
#endif

namespace pbp {
namespace math {
namespace detail {

// Correctly rounded (round-to-nearest-even) square root with integer arithmetic only:
// restoring digit-by-digit root of the normalised significand, fixed trip count.
template <typename T>
inline T sqrt_integer(T x) {
  using Tr = Traits<T>;
  using Bits = typename Tr::Bits;
  constexpr int kP = Tr::kMantissaBits + 1;  // precision: 24 / 53
  const Bits b = to_bits(x);
  const Bits a = b & Tr::kAbsMask;
  if (a == 0) return x;                      // +-0
  if (b >= Tr::kInfBits) {                   // negative, +inf or NaN
    if (a > Tr::kInfBits) return x + x;      // NaN: quiet it
    if (b == Tr::kInfBits) return x;         // +inf
    return from_bits<T>(Tr::kQuietNanBits);  // x < 0
  }
  int e = static_cast<int>(a >> Tr::kMantissaBits);
  Bits m = a & Tr::kFractionMask;
  if (e == 0) {  // subnormal: normalise
    e = 1;
    while ((m >> Tr::kMantissaBits) == 0) {
      m <<= 1;
      --e;
    }
  } else {
    m |= Bits(1) << Tr::kMantissaBits;
  }
  // x = m * 2^(e - bias - (p-1)), m in [2^(p-1), 2^p). Make the exponent even.
  int exponent = e - Tr::kExponentBias - (kP - 1);
  // float: m in [2^24, 2^26) with radicand m * 2^24 (n = 25 root bits);
  // double: m in [2^52, 2^54) with radicand m * 2^54 (n = 54 root bits).
  constexpr int kPre = (kP == 24) ? 1 : 0;
  m <<= kPre;
  exponent -= kPre;
  if (exponent & 1) {
    m <<= 1;
    exponent -= 1;
  }
  constexpr int kN = (kP == 24) ? 25 : 54;             // root bits = p + 1 (round bit)
  constexpr int kTop = 2 * kN - (kP == 24 ? 24 : 54);  // bits of m in the radicand: 26 / 54
  constexpr int kWord = static_cast<int>(sizeof(Bits) * 8);
  Bits cur = m << (kWord - kTop);  // radicand's leading bits, consumed two at a time
  Bits rem = 0, root = 0;
  for (int i = 0; i < kN; ++i) {
    rem = (rem << 2) | (cur >> (kWord - 2));
    cur <<= 2;
    const Bits trial = (root << 2) | 1;
    root <<= 1;
    if (rem >= trial) {
      rem -= trial;
      root |= 1;
    }
  }
  // sqrt(x) = root * 2^((exponent - shift)/2), root has p+1 bits; ties cannot occur.
  const int radicand_shift = (kP == 24) ? 24 : 54;
  const int half_exp = (exponent - radicand_shift) / 2 + 1;    // scale of root >> 1
  const Bits mant = (root >> 1) + (root & 1);                  // may carry into 2^p: fine
  const int biased = half_exp + (kP - 1) + Tr::kExponentBias;  // exponent of mant's MSB
  return from_bits<T>((static_cast<Bits>(biased - 1) << Tr::kMantissaBits) + mant);
}

}  // namespace detail

/// Correctly rounded square root for T in {float, double}. Uses the FPU's sqrt instruction
/// where the target has one (SSE2, AArch64, ARM VFP or RISC-V F/D with the needed precision),
/// otherwise an integer digit-by-digit root giving identical bits. sqrt(-0) = -0, sqrt(+inf) =
/// +inf, sqrt(x<0) = quiet_nan<T>() (same bits on every target), NaN -> NaN. Accuracy: 0.5 ulp
/// (correctly rounded), all inputs incl. subnormals; tested bit-exact against the hardware.
inline float sqrt(float x) {
#if PBP_MATH_HW_SQRT_FLOAT
  // x < 0: the default NaN differs between ISAs (x86: negative), so pick ours.
  return x < 0.0f ? quiet_nan<float>() : __builtin_sqrtf(x);
#else
  return detail::sqrt_integer(x);
#endif
}

inline double sqrt(double x) {
#if PBP_MATH_HW_SQRT_DOUBLE
  return x < 0.0 ? quiet_nan<double>() : __builtin_sqrt(x);
#else
  return detail::sqrt_integer(x);
#endif
}

}  // namespace math
}  // namespace pbp
