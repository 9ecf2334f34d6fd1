// pbp::math::normal_tails: Phi(x), Phi(-x) and phi(x)/Phi(x) from one erfcx and one exp, for
// the ReLU moments, which need all three for every hidden unit.
#pragma once
#include "normal.hpp"

namespace pbp {
namespace math {

template <typename T>
struct NormalTails {
  T cdf;           // Phi(x)
  T cdf_minus;     // Phi(-x) = 1 - Phi(x), accurate in its own tail
  T pdf_over_cdf;  // phi(x) / Phi(x)
};

/// Phi(x), Phi(-x) and phi(x)/Phi(x) for T in {float, double}. Phi(x) and Phi(-x) are exactly
/// normal_cdf(x) and normal_cdf(-x) (with q = Phi(-|x|) = exp(-x^2/2)/2 * erfcx(|x|/sqrt 2), the
/// smaller tail is q, the larger 1 - q); the ratio is sqrt(2/pi)/erfcx(-x/sqrt 2) for x < 0 (as
/// normal_pdf_over_cdf, <= 2 ulp) and phi/(1 - q) for x >= 0 (<= ~2.6 ulp: it saves the second
/// exp that normal_pdf_over_cdf spends there). Valid for all x; NaN -> NaN. Branch-free.
template <typename T>
inline NormalTails<T> normal_tails(T x) {
  using C = detail::NormalConstants<T>;
  T hi, lo;
  detail::minus_half_square(x, hi, lo);
  const detail::Scaled<T> y = detail::erfcx_half_nonnegative_rel(detail::abs(x));
  const detail::Scaled<T> half_e = detail::exp_scaled_rel(hi, lo, -1);  // exp(-x^2/2) / 2
  const T qv = half_e.value * y.value;
  const T q = qv + qv * (half_e.rel + y.rel);  // Phi(-|x|)
  const T big = static_cast<T>(1) - q;
  const bool negative = x < static_cast<T>(0);
  NormalTails<T> t;
  t.cdf = negative ? q : big;
  t.cdf_minus = negative ? big : q;
  // phi/Phi: sqrt(2/pi)/y below zero; above, sqrt(2/pi) (e/2) / (1 - q) (= phi / Phi).
  const T num = negative ? C::kSqrt2OverPi : C::kSqrt2OverPi * half_e.value;
  const T den = negative ? y.value : big;
  const T rel = negative ? C::kSqrt2OverPiRel - y.rel : C::kSqrt2OverPiRel + half_e.rel;
  const T r = num / den;
  t.pdf_over_cdf = r + r * rel;
  return t;
}

}  // namespace math
}  // namespace pbp
