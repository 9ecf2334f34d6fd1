// SPDX-License-Identifier: Apache-2.0
// pbp::math::exp and pbp::math::log (+ the internal double-word-argument exp and log1p).
#pragma once
#include "bits.hpp"
#include "coefficients.hpp"

namespace pbp {
namespace math {
namespace detail {

// Horner evaluation with a compile-time number of coefficients (lowest degree first).
template <typename T, int N>
inline T horner(T x, const T (&c)[N]) {
  T p = c[N - 1];
#if !defined(__OPTIMIZE_SIZE__)  // unrolled, a loop of these vectorises (trainer)
#pragma GCC unroll 32
#endif
  for (int i = N - 2; i >= 0; --i) p = p * x + c[i];
  return p;
}

// Estrin's scheme for the same sum (the trainer's double kernels): the low and high halves at a
// power-of-two split are independent, so the dependency chain is ~log2(N) multiply-adds deep
// instead of N - 1 (a vectorised loop of these is then bound by throughput rather than by the
// chain's latency). powers[k] = x^(2^k).
template <int Lo, int Count, int N>
inline double estrin_range(const double (&c)[N], const double* powers) {
  if constexpr (Count == 1) {
    return c[Lo];
  } else {
    constexpr int kLevel = Count > 16 ? 4 : Count > 8 ? 3 : Count > 4 ? 2 : Count > 2 ? 1 : 0;
    constexpr int kHalf = 1 << kLevel;  // the largest power of two below Count
    return multiply_add(estrin_range<Lo + kHalf, Count - kHalf>(c, powers), powers[kLevel],
                        estrin_range<Lo, kHalf>(c, powers));
  }
}

template <int N>
inline double estrin(double x, const double (&c)[N]) {
  static_assert(N <= 32, "powers up to x^16");
  double powers[5] = {x, 0.0, 0.0, 0.0, 0.0};
  for (int k = 1; k < 5 && (1 << k) < N; ++k) powers[k] = powers[k - 1] * powers[k - 1];
  return estrin_range<0, N>(c, powers);
}

template <typename T>
struct ExpConstants;

template <>
struct ExpConstants<float> {
  static constexpr float kLog2e = 0x1.715476p+0f;
  static constexpr float kShifter = 0x1.8p+23f;
  static constexpr float kHi = 89.0f;    // clamp: 2^128 -> +inf
  static constexpr float kLo = -104.0f;  // clamp: result rounds to 0
  static constexpr float kLn2Hi = kLn2HiF;
  static constexpr float kLn2Lo = kLn2LoF;
};

template <>
struct ExpConstants<double> {
  static constexpr double kLog2e = 0x1.71547652b82fep+0;
  static constexpr double kShifter = 0x1.8p+52;
  static constexpr double kHi = 710.0;
  static constexpr double kLo = -746.0;
  static constexpr double kLn2Hi = kLn2HiD;
  static constexpr double kLn2Lo = kLn2LoD;
};

// A result in two parts: value * (1 + rel), |rel| <~ ulp. Lets the normal-distribution code
// chain exp and erfcx without accumulating their final roundings.
template <typename T>
struct Scaled {
  T value;
  T rel;
};

// 2^shift * exp(x + xlo) for |xlo| <= ~ulp(x), shift in [-64, 64], as value * (1 + rel).
// Overflow -> +inf, underflow -> 0 (one rounding into the subnormal range), NaN -> NaN.
// Branch-free.
template <typename T>
inline Scaled<T> exp_scaled_rel(T x, T xlo, int shift) {
  using C = ExpConstants<T>;
  using Tr = Traits<T>;
  using SBits = typename Tr::SignedBits;
  const T one = static_cast<T>(1);
  T xc = x < C::kHi ? x : C::kHi;  // NaN -> kHi (patched at the end)
  xc = xc > C::kLo ? xc : C::kLo;
  // The low word only matters in range (xc == x; false for NaN). One compare feeding one
  // select keeps a loop of these vectorisable; a boolean-valued select does not.
  const T xlo_c = xc == x ? xlo : static_cast<T>(0);
  const T shifted = xc * C::kLog2e + C::kShifter;
  const int k = static_cast<int>(static_cast<SBits>(to_bits(shifted)) -
                                 static_cast<SBits>(to_bits(C::kShifter))) +
                shift;
  const T kf = shifted - C::kShifter;
  const T r_hi = xc - kf * C::kLn2Hi;  // exact
  const T c = xlo_c - kf * C::kLn2Lo;
  const T r = r_hi + c;
  const T r_lo = (r_hi - r) + c;  // fast two-sum (|r_hi| >= |c| whenever it matters)
  const T v = r + (r_lo + (r * r) * horner(r, Coefficients<T>::exp_p));
  const T ph = one + v;         // exp(r) rounded
  const T pl = (one - ph) + v;  // its rounding error (fast two-sum, |v| < 1)
  const T inv_ph = one + r * (static_cast<T>(0.5) * r - one);  // ~exp(-r), to 1%
  const int k1 = k >> 1;
  const T res = (ph * pow2<T>(k1)) * pow2<T>(k - k1);
  return {x != x ? x + x : res, pl * inv_ph};
}

template <typename T>
inline T exp_scaled(T x, T xlo, int shift) {
  return exp_scaled_rel(x, xlo, shift).value;
}

// Splits finite x > 0 (subnormals included) as x = 2^k (1 + f), f in [sqrt(1/2) - 1,
// sqrt(2) - 1), f exact; k returned as T.
template <typename T>
inline void log_reduce(T x, T& f, T& kf) {
  using Tr = Traits<T>;
  using Bits = typename Tr::Bits;
  constexpr int kSubShift = Tr::kMantissaBits + 2;
  const bool sub = to_bits(x) < (Bits(1) << Tr::kMantissaBits);
  const T xs = sub ? x * pow2<T>(kSubShift) : x;
  Bits ix = to_bits(xs) + (Tr::kOneBits - Tr::kSqrtHalfBits);
  const int k =
      static_cast<int>(ix >> Tr::kMantissaBits) - Tr::kExponentBias - (sub ? kSubShift : 0);
  ix = (ix & Tr::kFractionMask) + Tr::kSqrtHalfBits;
  f = from_bits<T>(ix) - static_cast<T>(1);
  kf = static_cast<T>(k);
}

// k log 2 + log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1] (exact input), with
// log(1 + f) = 2s + s r(s^2), s = f / (2 + f), arranged so that f enters exactly.
template <typename T>
inline T log1p_kernel(T f, T kf) {
  using C = ExpConstants<T>;
  const T s = f / (static_cast<T>(2) + f);
  const T z = s * s;
  const T r = z * horner(z, Coefficients<T>::log_p);
  const T hfsq = static_cast<T>(0.5) * f * f;
  return kf * C::kLn2Hi - ((hfsq - (s * (hfsq + r) + kf * C::kLn2Lo)) - f);
}

template <typename T>
inline T log_finite_positive(T x) {
  T f, kf;
  log_reduce(x, f, kf);
  return log1p_kernel(f, kf);
}

}  // namespace detail

/// e^x for T in {float, double}. Valid for all x: x > ~88.72 (float) / ~709.78 (double) gives
/// +inf, x below ~-103.97 / ~-745.13 gives +0, results in the subnormal range are rounded
/// once, NaN -> NaN, -inf -> 0. Branch-free (selects only). Measured max error
/// (tests/host/math_accuracy, 10^6 points vs binary128): float 0.92 ulp, double 0.92 ulp.
template <typename T>
inline T exp(T x) {
  return detail::exp_scaled(x, static_cast<T>(0), 0);
}

/// Natural logarithm for T in {float, double}. x > 0 incl. subnormals; log(+0) = log(-0) =
/// -inf, log(x < 0) = NaN, log(+inf) = +inf, NaN -> NaN. Branch-free. Measured max error
/// (tests/host/math_accuracy, 10^6 points vs binary128): float 0.82 ulp, double 0.82 ulp.
template <typename T>
inline T log(T x) {
  const T r = detail::log_finite_positive(x);
  T res = x == static_cast<T>(0) ? -infinity<T>() : r;
  res = x < static_cast<T>(0) ? quiet_nan<T>() : res;
  res = x == infinity<T>() ? x : res;
  return x != x ? x + x : res;
}

namespace detail {}  // namespace detail
}  // namespace math
}  // namespace pbp
