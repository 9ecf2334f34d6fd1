// SPDX-License-Identifier: Apache-2.0
// pbp::math::erfcx, the scaled complementary error function exp(x^2) erfc(x).
#pragma once
#include "bits.hpp"
#include "coefficients.hpp"
#include "exp_log.hpp"

namespace pbp {
namespace math {
namespace detail {

template <typename T>
struct ErfcxConstants;

template <>
struct ErfcxConstants<float> {
  static constexpr float kK = 3.75f;        // erfcx(a): t = (a - K) / (a + K)
  static constexpr float kNormalK = 5.25f;  // erfcx(x / sqrt 2): t = (x - K) / (x + K)
  static constexpr float kBig = 0x1p+13f;   // beyond: leading asymptotic term to < 0.5 ulp
  static constexpr float kInvSqrtPi = kInvSqrtPiF;
  static constexpr float kInvSqrtPiRel = kInvSqrtPiRelF;  // 1/sqrt(pi) = kInvSqrtPi (1 + Rel)
  static constexpr float kSqrt2OverPi = kSqrt2OverPiF;
  static constexpr float kSqrt2OverPiRel = kSqrt2OverPiRelF;
};

template <>
struct ErfcxConstants<double> {
  static constexpr double kK = 3.75;
  static constexpr double kNormalK = 5.25;
  static constexpr double kBig = 0x1p+27;
  static constexpr double kInvSqrtPi = kInvSqrtPiD;
  static constexpr double kInvSqrtPiRel = kInvSqrtPiRelD;
  static constexpr double kSqrt2OverPi = kSqrt2OverPiD;
  static constexpr double kSqrt2OverPiRel = kSqrt2OverPiRelD;
};

// Shared kernel for g(a) = erfcx(a) (b = 2a) and g(a) = erfcx(a / sqrt 2) (b = a), a >= 0 or
// NaN, returned as value * (1 + rel). With s = 2a / (a + K) = t + 1, t = (a - K) / (a + K):
// (1 + b) g(a) = 1 + s R(t), R fitted by tools/scripts/gen_math_coefficients.py. Numerator
// and denominator are kept as exact two-word sums, and the division's remainder is formed
// exactly; all three go into rel. For a >= kBig, g(a) = c / a (leading asymptotic term).
// Branch-free: two divisions, one polynomial, one exact product.
template <typename T, int N>
inline Scaled<T> erfcx_kernel(T a, T b, T k, const T (&r)[N], T c, T c_rel) {
  using C = ErfcxConstants<T>;
  const T one = static_cast<T>(1);
  const bool asym = !(a < C::kBig);  // also NaN
  const T ac = asym ? C::kBig : a;
  const T bc = asym ? C::kBig : b;
  const T s = (ac + ac) / (ac + k);
  const T sr = s * horner(s - one, r);
  const T n = one + sr;  // |sr| < 0.3: fast two-sum
  const T hi = bc > one ? bc : one;
  const T lo = bc > one ? one : bc;
  const T d = hi + lo;  // 1 + b, fast two-sum on the ordered pair
  // One division serves both regimes: nh / dh = (1 + s R) / (1 + b) or c / a.
  const T nh = asym ? c : n;
  const T nl = asym ? c * c_rel : (one - n) + sr;
  const T dh = asym ? a : d;
  const T dl = asym ? static_cast<T>(0) : lo - (d - hi);
  const T q = nh / dh;
  const T p = q * dh;
  const T rem = (nh - p) - two_product_error(q, dh, p);  // nh - q dh, exact up to its rounding
  // (nh + nl) / (dh + dl) = q (1 + (rem + nl - q dl) / nh); 1/nh ~ 2 - nh (|nh - 1| < 0.3,
  // the term is below 2 ulp, so the approximation costs < 0.1 ulp), 1/c for the asymptote.
  const T inv_nh = asym ? one / c : static_cast<T>(2) - nh;
  const T rel = ((rem + nl) - q * dl) * inv_nh;  // NaN only for a = +inf (q = 0) or NaN
  return {q, rel == rel ? rel : static_cast<T>(0)};
}

// erfcx(a), a >= 0 or NaN.
template <typename T>
inline Scaled<T> erfcx_nonnegative_rel(T a) {
  using C = ErfcxConstants<T>;
  return erfcx_kernel(a, a + a, C::kK, Coefficients<T>::erfcx_r, C::kInvSqrtPi, C::kInvSqrtPiRel);
}

// erfcx(x / sqrt 2) for x >= 0 or NaN, without rounding x / sqrt 2: the ratio
// sqrt(2/pi) / erfcx(-x / sqrt 2) = phi(x) / Phi(x) and Phi(-x) = exp(-x^2/2) erfcx(..) / 2.
template <typename T>
inline Scaled<T> erfcx_half_nonnegative_rel(T x) {
  using C = ErfcxConstants<T>;
  return erfcx_kernel(x, x, C::kNormalK, Coefficients<T>::normal_r, C::kSqrt2OverPi,
                      C::kSqrt2OverPiRel);
}

template <typename T>
inline T erfcx_nonnegative(T a) {
  const Scaled<T> y = erfcx_nonnegative_rel(a);
  return y.value + y.value * y.rel;
}

}  // namespace detail

/// Scaled complementary error function erfcx(x) = exp(x^2) erfc(x) for T in {float, double}.
/// All x: erfcx(+inf) = 0, erfcx(x) ~ 1/(x sqrt(pi)) for large x (down to subnormals),
/// erfcx(x) = 2 exp(x^2) - erfcx(-x) for x < 0, overflowing to +inf below ~-9.3 (float) /
/// ~-26.6 (double); NaN -> NaN. x >= 0 is branch-free (two divisions, one polynomial of degree
/// 11 (float) / 24 (double)); x < 0 adds an exp (one branch on the sign). Measured max error
/// (tests/host/math_accuracy, 10^6 points vs binary128): float 1.15 ulp on [0, 30], 1.40 ulp
/// on [1e-12, 1e30], 1.38 ulp for x < 0; double 1.16 / 1.45 / 1.35 ulp.
template <typename T>
inline T erfcx(T x) {
  if (x < static_cast<T>(0)) {
    const T xc = x > static_cast<T>(-1e5) ? x : static_cast<T>(-1e5);
    T hi, lo;
    detail::exact_square(xc, hi, lo);
    const detail::Scaled<T> e = detail::exp_scaled_rel(hi, lo, 1);
    const detail::Scaled<T> y = detail::erfcx_nonnegative_rel(-x);
    const T r = (e.value - y.value) + (e.value * e.rel - y.value * y.rel);
    return e.value < infinity<T>() ? r : e.value;  // overflow below ~-9.4 / ~-26.6
  }
  return detail::erfcx_nonnegative(x);
}

}  // namespace math
}  // namespace pbp
