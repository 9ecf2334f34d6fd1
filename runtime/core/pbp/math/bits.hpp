// SPDX-License-Identifier: Apache-2.0
// pbp::math bit-level helpers: float traits, bit casts, classification, special values.
#pragma once
#include <stdint.h>

namespace pbp {
namespace math {
namespace detail {

template <typename T>
struct Traits;

template <>
struct Traits<float> {
  using Bits = uint32_t;
  using SignedBits = int32_t;
  static constexpr int kMantissaBits = 23;  // stored fraction bits
  static constexpr int kExponentBias = 127;
  static constexpr Bits kSignMask = 0x80000000u;
  static constexpr Bits kAbsMask = 0x7fffffffu;
  static constexpr Bits kInfBits = 0x7f800000u;
  static constexpr Bits kQuietNanBits = 0x7fc00000u;
  static constexpr Bits kFractionMask = 0x007fffffu;
  static constexpr Bits kOneBits = 0x3f800000u;
  static constexpr Bits kSqrtHalfBits = 0x3f3504f3u;  // sqrt(1/2) rounded
  static constexpr int kDekkerShift = 12;
};

template <>
struct Traits<double> {
  using Bits = uint64_t;
  using SignedBits = int64_t;
  static constexpr int kMantissaBits = 52;
  static constexpr int kExponentBias = 1023;
  static constexpr Bits kSignMask = 0x8000000000000000ull;
  static constexpr Bits kAbsMask = 0x7fffffffffffffffull;
  static constexpr Bits kInfBits = 0x7ff0000000000000ull;
  static constexpr Bits kQuietNanBits = 0x7ff8000000000000ull;
  static constexpr Bits kFractionMask = 0x000fffffffffffffull;
  static constexpr Bits kOneBits = 0x3ff0000000000000ull;
  static constexpr Bits kSqrtHalfBits = 0x3fe6a09e667f3bcdull;
  static constexpr int kDekkerShift = 27;
};

template <typename T>
inline typename Traits<T>::Bits to_bits(T x) {
  typename Traits<T>::Bits b;
  __builtin_memcpy(&b, &x, sizeof b);
  return b;
}

template <typename T>
inline T from_bits(typename Traits<T>::Bits b) {
  T x;
  __builtin_memcpy(&x, &b, sizeof x);
  return x;
}

// 2^k for k in the normal exponent range (no checks).
template <typename T>
inline T pow2(int k) {
  using Tr = Traits<T>;
  return from_bits<T>(static_cast<typename Tr::Bits>(k + Tr::kExponentBias) << Tr::kMantissaBits);
}

// Exact square as hi + lo (Dekker's split, no FMA). |x| must stay below ~1e35 (float) /
// ~1e150 (double) so that the split does not overflow.
template <typename T>
inline void exact_square(T x, T& hi, T& lo) {
  const T split = static_cast<T>((1 << Traits<T>::kDekkerShift) + 1);
  T c = x * split;
  T xh = c - (c - x);
  T xl = x - xh;
  hi = x * x;
  lo = ((xh * xh - hi) + static_cast<T>(2) * xh * xl) + xl * xl;
}

// The exact error a*b - fl(a*b) (Dekker's product without FMA). Exact whenever the product
// and its error term neither overflow nor underflow.
template <typename T>
inline T two_product_error_dekker(T a, T b, T p) {
  const T split = static_cast<T>((1 << Traits<T>::kDekkerShift) + 1);
  const T ca = a * split, cb = b * split;
  const T ah = ca - (ca - a), bh = cb - (cb - b);
  const T al = a - ah, bl = b - bh;
  return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

// Same value via a fused multiply-add where the target has one (identical bits: both are
// exact), else Dekker.
inline float two_product_error(float a, float b, float p) {
#ifdef __FP_FAST_FMAF
  return __builtin_fmaf(a, b, -p);
#else
  return two_product_error_dekker(a, b, p);
#endif
}

inline double two_product_error(double a, double b, double p) {
#ifdef __FP_FAST_FMA
  return __builtin_fma(a, b, -p);
#else
  return two_product_error_dekker(a, b, p);
#endif
}

// a * b + c, fused where the target has a fused multiply-add (one rounding: the bits then differ
// from a build without). Only for the trainer's double code (estrin, the InputMajor sums, the
// weight updates): the runtime's functions must give the same bits everywhere.
inline double multiply_add(double a, double b, double c) {
#ifdef __FP_FAST_FMA
  return __builtin_fma(a, b, c);
#else
  return a * b + c;
#endif
}

template <typename T>
inline T abs(T x) {
  return from_bits<T>(to_bits(x) & Traits<T>::kAbsMask);
}

}  // namespace detail

/// True when x is NaN. Bit inspection, so it keeps working under -ffast-math. Any T in
/// {float, double}; exact.
template <typename T>
inline bool is_nan(T x) {
  return (detail::to_bits(x) & detail::Traits<T>::kAbsMask) > detail::Traits<T>::kInfBits;
}

/// True when x is neither infinite nor NaN (subnormals and zeros are finite). Bit inspection,
/// valid under -ffast-math. Exact.
template <typename T>
inline bool is_finite(T x) {
  return (detail::to_bits(x) & detail::Traits<T>::kAbsMask) < detail::Traits<T>::kInfBits;
}

/// +infinity of type T (float or double), built from bits.
template <typename T>
inline T infinity() {
  return detail::from_bits<T>(detail::Traits<T>::kInfBits);
}

/// The default quiet NaN of type T (positive sign, payload 0), built from bits.
template <typename T>
inline T quiet_nan() {
  return detail::from_bits<T>(detail::Traits<T>::kQuietNanBits);
}

}  // namespace math
}  // namespace pbp
