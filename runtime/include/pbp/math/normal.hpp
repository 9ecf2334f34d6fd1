// pbp::math normal distribution: pdf, cdf, pdf/cdf ratio and log cdf.
#pragma once
#include "bits.hpp"
#include "erfcx.hpp"
#include "exp_log.hpp"

namespace pbp {
namespace math {
namespace detail {

template <typename T>
struct NormalConstants;

template <>
struct NormalConstants<float> {
  static constexpr float kInvSqrt2 = 0x1.6a09e6p-1f;
  static constexpr float kSqrt2OverPi = 0x1.988454p-1f;
  static constexpr float kLn2 = 0x1.62e430p-1f;
  static constexpr float kClamp = 0x1p+60f;  // keeps Dekker's split finite
  static constexpr float kLogSqrt2PiHi = kLogSqrt2PiHiF;
  static constexpr float kLogSqrt2PiLo = kLogSqrt2PiLoF;
};

template <>
struct NormalConstants<double> {
  static constexpr double kInvSqrt2 = 0x1.6a09e667f3bcdp-1;
  static constexpr double kSqrt2OverPi = 0x1.9884533d43651p-1;
  static constexpr double kLn2 = 0x1.62e42fefa39efp-1;
  static constexpr double kClamp = 0x1p+480;
  static constexpr double kLogSqrt2PiHi = kLogSqrt2PiHiD;
  static constexpr double kLogSqrt2PiLo = kLogSqrt2PiLoD;
};

template <typename T>
inline T clamp_for_square(T x) {
  using C = NormalConstants<T>;
  T xc = x < C::kClamp ? x : C::kClamp;  // NaN stays NaN
  return xc > -C::kClamp ? xc : -C::kClamp;
}

// -x^2/2 as an unevaluated sum hi + lo (exact).
template <typename T>
inline void minus_half_square(T x, T& hi, T& lo) {
  T h, l;
  exact_square(clamp_for_square(x), h, l);
  hi = static_cast<T>(-0.5) * h;
  lo = static_cast<T>(-0.5) * l;
}

}  // namespace detail

/// Standard normal density phi(x) = exp(-x^2/2)/sqrt(2 pi) for T in {float, double}. All x:
/// the exponent is formed exactly (Dekker square + two-sum with log sqrt(2 pi)) so the tails
/// keep full relative accuracy until the result underflows (|x| > ~14.2 float, ~38.6 double
/// give subnormals, then 0); +-inf -> 0, NaN -> NaN. Branch-free. Measured max error: see
/// tests/host/math_accuracy (<= 1 ulp on normal results).
template <typename T>
inline T normal_pdf(T x) {
  using C = detail::NormalConstants<T>;
  T hi, lo;
  detail::minus_half_square(x, hi, lo);
  // two-sum of hi and -log(sqrt(2 pi))
  const T b = -C::kLogSqrt2PiHi;
  const T s = hi + b;
  const T bb = s - hi;
  const T err = (hi - (s - bb)) + (b - bb);
  return detail::exp_scaled(s, err + (lo - C::kLogSqrt2PiLo), 0);
}

/// Standard normal CDF Phi(x) for T in {float, double}. x < 0: Phi(x) = exp(-x^2/2)/2 *
/// erfcx(-x/sqrt 2) with an exact x^2, so the lower tail keeps relative accuracy down to
/// underflow (x ~ -14 float, ~ -38.5 double); x >= 0: 1 - Phi(-x) (absolute error <= 1 ulp of
/// 1). Phi(-inf) = 0, Phi(+inf) = 1, NaN -> NaN. Branch-free. Measured max error: see
/// tests/host/math_accuracy (<= 2 ulp relative for x < 0, <= 1 ulp(1) for x >= 0).
template <typename T>
inline T normal_cdf(T x) {
  using C = detail::NormalConstants<T>;
  T hi, lo;
  detail::minus_half_square(x, hi, lo);
  const T y = detail::erfcx_nonnegative(detail::abs(x) * C::kInvSqrt2);
  const T q = detail::exp_scaled(hi, lo, -1) * y;  // Phi(-|x|)
  return x < static_cast<T>(0) ? q : static_cast<T>(1) - q;
}

/// The ReLU moment ratio gamma(x) = phi(x)/Phi(x) for T in {float, double}, stable for all x:
/// x < 0: sqrt(2/pi)/erfcx(-x/sqrt 2) (finite and accurate down to x = -1e4 and beyond,
/// ~ -x); x >= 0: sqrt(2/pi) e / (2 - e erfcx(x/sqrt 2)) with e = exp(-x^2/2) (no overflow,
/// tends to 0). -inf -> +inf, +inf -> 0, NaN -> NaN. Branch-free. Measured max error: see
/// tests/host/math_accuracy (<= 2 ulp).
template <typename T>
inline T normal_pdf_over_cdf(T x) {
  using C = detail::NormalConstants<T>;
  T hi, lo;
  detail::minus_half_square(x, hi, lo);
  const T y = detail::erfcx_nonnegative(detail::abs(x) * C::kInvSqrt2);
  const T e = detail::exp_scaled(hi, lo, 0);
  const bool neg = x < static_cast<T>(0);
  const T num = neg ? C::kSqrt2OverPi : C::kSqrt2OverPi * e;
  const T den = neg ? y : static_cast<T>(2) - e * y;
  return num / den;
}

/// log Phi(x) for T in {float, double}, stable for all x: x < 0 sums -x^2/2 (exact), -log 2
/// and log erfcx(-x/sqrt 2) (all negative, no cancellation), finite down to x ~ -1.8e19
/// (float) / beyond -1e150 (double); x >= 0: log1p(-Phi(-x)), tending to -0 (no -inf, no
/// NaN up to +inf). -inf -> -inf, NaN -> NaN. Branch-free. Measured max error: see
/// tests/host/math_accuracy (<= 2 ulp).
template <typename T>
inline T log_normal_cdf(T x) {
  using C = detail::NormalConstants<T>;
  T hi, lo;
  detail::minus_half_square(x, hi, lo);
  const T y = detail::erfcx_nonnegative(detail::abs(x) * C::kInvSqrt2);
  const T q = detail::exp_scaled(hi, lo, -1) * y;  // Phi(-|x|)
  const bool neg = x < static_cast<T>(0);
  const T u = static_cast<T>(1) - q;
  const T l = detail::log_finite_positive(neg ? y : u);
  const T pos_result = l + (-q - (u - static_cast<T>(1))) / u;
  const T neg_result = hi + ((l - C::kLn2) + lo);
  T res = neg ? neg_result : pos_result;
  res = x == -infinity<T>() ? x : res;
  return x != x ? x : res;
}

}  // namespace math
}  // namespace pbp
