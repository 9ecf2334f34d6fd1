// SPDX-License-Identifier: Apache-2.0
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
  static constexpr float kSqrt2OverPi = kSqrt2OverPiF;
  static constexpr float kSqrt2OverPiRel = kSqrt2OverPiRelF;
  static constexpr float kPiOver2Sqrt = 1.2533141f;  // ~1/sqrt(2/pi), only for a correction
  static constexpr float kLn2 = kLn2F;
  static constexpr float kLn2Tail = kLn2TailF;
  static constexpr float kClamp = 0x1p+60f;  // keeps Dekker's split finite
  static constexpr float kLogSqrt2PiHi = kLogSqrt2PiHiF;
  static constexpr float kLogSqrt2PiLo = kLogSqrt2PiLoF;
};

template <>
struct NormalConstants<double> {
  static constexpr double kSqrt2OverPi = kSqrt2OverPiD;
  static constexpr double kSqrt2OverPiRel = kSqrt2OverPiRelD;
  static constexpr double kPiOver2Sqrt = 1.2533141373155003;
  static constexpr double kLn2 = kLn2D;
  static constexpr double kLn2Tail = kLn2TailD;
  static constexpr double kClamp = 0x1p+480;
  static constexpr double kLogSqrt2PiHi = kLogSqrt2PiHiD;
  static constexpr double kLogSqrt2PiLo = kLogSqrt2PiLoD;
};

template <typename T>
inline T clamp_for_square(T x) {
  using C = NormalConstants<T>;
  const T xc = x > C::kClamp ? C::kClamp : x;  // NaN stays NaN
  return xc < -C::kClamp ? -C::kClamp : xc;
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
/// give subnormals, then 0); +-inf -> 0, NaN -> NaN. Branch-free. Measured max error
/// (tests/host/math_accuracy, vs binary128, normal results): float 0.90 ulp, double 0.92 ulp.
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
/// 1). Phi(-inf) = 0, Phi(+inf) = 1, NaN -> NaN. Branch-free. Measured max error
/// (tests/host/math_accuracy, vs binary128): x < 0 relative, down to the normal-range limit
/// (-13 float, -37.4 double): float 1.72 ulp, double 1.51 ulp; x >= 0 absolute: 0.54 ulp(1).
template <typename T>
inline T normal_cdf(T x) {
  T hi, lo;
  detail::minus_half_square(x, hi, lo);
  const detail::Scaled<T> y = detail::erfcx_half_nonnegative_rel(detail::abs(x));
  const detail::Scaled<T> e = detail::exp_scaled_rel(hi, lo, -1);
  const T qv = e.value * y.value;
  const T q = qv + qv * (e.rel + y.rel);  // Phi(-|x|)
  return x < static_cast<T>(0) ? q : static_cast<T>(1) - q;
}

/// The ReLU moment ratio gamma(x) = phi(x)/Phi(x) for T in {float, double}, stable for all x:
/// x < 0: sqrt(2/pi)/erfcx(-x/sqrt 2) (finite and accurate down to x = -1e4 and beyond,
/// ~ -x); x >= 0: sqrt(2/pi)/(2 exp(x^2/2) - erfcx(x/sqrt 2)) (denominator >= 1, no
/// cancellation; it overflows for x > ~13.27 float / ~37.65 double, giving 0 where the true
/// ratio ~ phi(x) is already subnormal). -inf -> +inf, +inf -> 0, NaN -> NaN. Branch-free,
/// one erfcx kernel + one exp + one division. Measured max error
/// (tests/host/math_accuracy, vs binary128): float 1.72 ulp on [-40, 13], 1.75 ulp on
/// [-1e4, -1]; double 1.81 / 1.73 ulp.
template <typename T>
inline T normal_pdf_over_cdf(T x) {
  using C = detail::NormalConstants<T>;
  T hi, lo;
  detail::minus_half_square(x, hi, lo);
  const detail::Scaled<T> y = detail::erfcx_half_nonnegative_rel(detail::abs(x));
  // x >= 0: erfcx(-x/sqrt 2) = 2 exp(x^2/2) - erfcx(x/sqrt 2) >= 1 (no cancellation);
  // overflows to +inf (ratio 0) only where phi(x) is subnormal anyway.
  const detail::Scaled<T> e2 = detail::exp_scaled_rel(-hi, -lo, 1);
  const bool neg = x < static_cast<T>(0);
  const bool finite = e2.value < infinity<T>();
  const T den = neg ? y.value : e2.value - y.value;
  const T den_lo = finite ? e2.value * e2.rel - y.value * y.rel : static_cast<T>(0);
  const T r = C::kSqrt2OverPi / den;
  // r (1 + c_rel) / (1 + den_lo / den), with 1/den = r / c
  const T rel = C::kSqrt2OverPiRel - (neg ? y.rel : den_lo * (r * C::kPiOver2Sqrt));
  return r < infinity<T>() ? r + r * rel : r;  // r = +inf for x = -inf
}

/// log Phi(x) for T in {float, double}, stable for all x: x < 0 sums -x^2/2 (exact), -log 2
/// and log erfcx(-x/sqrt 2) (all negative, no cancellation), finite down to x ~ -1.8e19
/// (float) / beyond -1e150 (double); x >= 0: log1p(-Phi(-x)), tending to -0 (no -inf, no
/// NaN up to +inf). -inf -> -inf, NaN -> NaN. Branch-free. Measured max error
/// (tests/host/math_accuracy, vs binary128): float 1.88 ulp on [-40, 13], 1.78 ulp on
/// [-1e4, -1]; double 1.76 / 1.77 ulp.
template <typename T>
inline T log_normal_cdf(T x) {
  using C = detail::NormalConstants<T>;
  T hi, lo;
  detail::minus_half_square(x, hi, lo);
  const detail::Scaled<T> y = detail::erfcx_half_nonnegative_rel(detail::abs(x));
  const detail::Scaled<T> e = detail::exp_scaled_rel(hi, lo, -1);
  const T qv = e.value * y.value;  // Phi(-|x|) = qv (1 + e.rel + y.rel)
  const bool neg = x < static_cast<T>(0);
  // x < 0: log of erfcx; x >= 0: log(1 - qv) = log(2^k (1 + f)) with f exact:
  // qv < 1 - sqrt(1/2): f = -qv, k = 0; else f = 1 - 2 qv (Sterbenz), k = -1.
  T f, kf;
  detail::log_reduce(y.value, f, kf);
  const bool big = qv > static_cast<T>(0.29289321881345248);
  const T f_pos = big ? static_cast<T>(1) - (qv + qv) : -qv;
  const T l = detail::log1p_kernel(neg ? f : f_pos, neg ? kf : (big ? static_cast<T>(-1) : 0));
  // the rounding error of qv (Dekker, never FMA: qv may underflow, and Dekker keeps the bits
  // identical on every target there too)
  const T q_err = detail::two_product_error_dekker(e.value, y.value, qv);
  const T pos_result = l - (qv * (e.rel + y.rel) + q_err) / (static_cast<T>(1) - qv);
  const T neg_result = hi + ((l - C::kLn2) + (lo + (y.rel - C::kLn2Tail)));
  T res = neg ? neg_result : pos_result;
  res = x == -infinity<T>() ? x : res;
  return x != x ? x : res;
}

}  // namespace math
}  // namespace pbp
