// SPDX-License-Identifier: Apache-2.0
// pbp::math::normal_tails: Phi(x), Phi(-x) and phi(x)/Phi(x) from one erfcx and one exp, for
// the ReLU moments, which need all three for every hidden unit.
#pragma once
#include "bits.hpp"
#include "normal.hpp"
#include "pbp/loop_hints.hpp"
#include "sqrt.hpp"

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

namespace detail {

// normal_tails_fast's erfcx(x / sqrt 2) polynomial is Coefficients<T>::normal_r_fast: normal_r at
// degree 8 instead of 11 for float, max weighted error 8.8e-7; 20 instead of 24 for double,
// 1.2e-15 (gen_math_coefficients.py).

// e^x for x in [-87, 88] (no clamping, no compensation): the result is normal or, for
// x < ~-87.3, rounded once into the subnormals. <= ~2 ulp (the degree-4 exp_p of exp).
inline float exp_in_range(float x) {
  using C = ExpConstants<float>;
  const float shifted = x * C::kLog2e + C::kShifter;
  const int k = static_cast<int>(static_cast<int32_t>(to_bits(shifted)) -
                                 static_cast<int32_t>(to_bits(C::kShifter)));
  const float kf = shifted - C::kShifter;
  const float r = (x - kf * C::kLn2Hi) - kf * C::kLn2Lo;
  const float p = 1.0f + (r + (r * r) * horner(r, Coefficients<float>::exp_p));
  return p * pow2<float>(k);
}

// The fast kernels' last step, from y = erfcx(|x| / sqrt 2) and half_e = exp(-x^2/2) / 2:
// Phi(-|x|) = half_e y, its complement, and phi/Phi (sqrt(2/pi)/y below zero; above,
// sqrt(2/pi) half_e / (1 - Phi(-|x|))). Branch-free.
template <class T>
inline NormalTails<T> fast_tails_from(T x, T y, T half_e) {
  const T q = half_e * y;
  const T big = T(1) - q;
  const bool negative = x < T(0);
  NormalTails<T> t;
  t.cdf = negative ? q : big;
  t.cdf_minus = negative ? big : q;
  const T num =
      negative ? NormalConstants<T>::kSqrt2OverPi : NormalConstants<T>::kSqrt2OverPi * half_e;
  t.pdf_over_cdf = num / (negative ? y : big);
  return t;
}

/// The float ReLU moments' variant of normal_tails (moments.hpp): the same three values from
/// the same formulas, with a degree-8 erfcx polynomial (Coefficients<float>::normal_r_fast) and
/// without the compensation that makes normal_tails <= 2.6 ulp (no exact square, no two-word
/// division or product, no low words): about half the instructions. Error: Phi(x), Phi(-x) and
/// phi(x)/Phi(x) within ~1.5e-6 relative for |x| <= 5 (the fit's 8.8e-7, a few ulp, and the
/// rounding of x^2/2, which moves exp(-x^2/2) by up to |x^2/2| 2^-24 relative: 5e-6 at |x| = 13).
/// The tail below ~exp(-87) keeps its magnitude (~1e-39 instead of 0: the exponent is clamped to
/// -87, so nothing is subnormal before the final products). phi/Phi stays accurate for x down to
/// -2^60 (the erfcx fit covers a -> infinity). Plain +-*/ only (bit-identical across targets with
/// -ffp-contract=off); branch-free. Not part of the public API: only the runtime's ReLU moments,
/// which need agreement with the trainer to 1e-5, use it.
// Size builds keep one out-of-line copy for both callers (ReLU moments, interval); speed builds
// inline it, which lets the ReLU loop vectorise.
PBP_SIZE_NOINLINE inline NormalTails<float> normal_tails_fast(float x) {
  const float a = abs(x);
  const float ac = a < 0x1p+60f ? a : 0x1p+60f;  // keeps 2a and a^2 finite; NaN -> 2^60
  // erfcx(a / sqrt 2) = (1 + s R(s - 1)) / (1 + a), s = 2a / (a + K) (erfcx_kernel's form).
  const float s = (ac + ac) / (ac + ErfcxConstants<float>::kNormalK);
  const float y = (1.0f + s * horner(s - 1.0f, Coefficients<float>::normal_r_fast)) / (1.0f + ac);
  const float h = -0.5f * (ac * ac);
  const float half_e = 0.5f * exp_in_range(h > -87.0f ? h : -87.0f);  // exp(-x^2/2) / 2
  return fast_tails_from(x, y, half_e);
}

// exp(hi + lo) / 2 for hi <= 0 and |lo| <= ~ulp(hi) (the double normal_tails_fast's exp):
// exp's reduction and degree-9 polynomial (by Estrin's scheme; multiply-adds fused where the
// target has them), without the low word of r or the compensation, and with 64-bit integer
// steps only (a 32-bit k would make GCC vectorise a loop of these over twice the doubles, and
// spill). The result is rounded once into the subnormal range; below ~-745.1 it is 0. Measured
// max error (tests/host/math_accuracy): 1.05 ulp.
inline double half_exp_nonpositive(double hi, double lo) {
  using C = ExpConstants<double>;
  const double hc = hi > C::kLo ? hi : C::kLo;  // NaN -> kLo
  const double lc = hc == hi ? lo : 0.0;
  const double shifted = multiply_add(hc, C::kLog2e, C::kShifter);
  const uint64_t k = to_bits(shifted) - to_bits(C::kShifter);  // round(hc / ln 2), mod 2^64
  const double kf = shifted - C::kShifter;
  const double r = multiply_add(-kf, C::kLn2Hi, hc) + multiply_add(-kf, C::kLn2Lo, lc);
  const double p = 1.0 + multiply_add(r * r, estrin(r, Coefficients<double>::exp_p), r);
  // 2^(k + 64) is normal for every k >= -1086; the product with 2^-65 rounds once.
  const double scale = from_bits<double>((k + uint64_t{1023 + 64}) << 52);
  return (p * scale) * 0x1p-65;
}

/// The trainer's (double) ReLU moments' variant of normal_tails: the same formulas and an exactly
/// formed -x^2/2, with a degree-20 erfcx(x / sqrt 2) polynomial (Coefficients<double>::
/// normal_r_fast, max weighted error 1.2e-15 instead of normal_r's 3e-18 at degree 24) evaluated
/// by Estrin's scheme, without the terms that carry each kernel's rounding error into the next
/// (erfcx's and exp's rel, the two-word sums, products and division) and without erfcx's
/// asymptotic regime (x is clamped to 2^480, where 1 + x and 2x stay finite). Measured max error
/// (tests/host/math_accuracy, 10^6 points vs binary128): 12.5 ulp (2.8e-15 relative) on Phi(x),
/// Phi(-x) and phi(x)/Phi(x) wherever they are normal numbers. Branch-free, 64-bit lanes only (a
/// loop of these vectorises without spilling); NaN -> NaN.
inline NormalTails<double> normal_tails_fast(double x) {
  using C = NormalConstants<double>;
  const double magnitude = abs(x);
  const double a = magnitude > C::kClamp ? C::kClamp : magnitude;  // NaN stays NaN
  // erfcx(a / sqrt 2) = (1 + s R(s - 1)) / (1 + a), s = 2a / (a + K) (erfcx_kernel's form).
  const double s = (a + a) / (a + ErfcxConstants<double>::kNormalK);
  const double y = (1.0 + s * estrin(s - 1.0, Coefficients<double>::normal_r_fast)) / (1.0 + a);
  const double square = a * a;
  const double half_e = half_exp_nonpositive(-0.5 * square, -0.5 * two_product_error(a, a, square));
  return fast_tails_from(x, y, half_e);
}

// normal_quantile's tail guess (kQuantileGuess) as float constants, converted at compile time
// (a float-only FPU would otherwise convert doubles in software).
inline constexpr float kIntervalGuess[6] = {
    static_cast<float>(kQuantileGuess[0]), static_cast<float>(kQuantileGuess[1]),
    static_cast<float>(kQuantileGuess[2]), static_cast<float>(kQuantileGuess[3]),
    static_cast<float>(kQuantileGuess[4]), static_cast<float>(kQuantileGuess[5])};

/// z >= 0 with Phi(-z) = q, for q in [2^-126, 1/2]: the half-width, in standard deviations, of the
/// central interval of probability 1 - 2q (pbp_predict's interval; there q >= 2^-25). The tail
/// guess of normal_quantile in t = sqrt(-2 log q), with log q from q's exponent and a quadratic
/// in its mantissa (enough for a guess), then Halley steps on Phi itself with normal_tails_fast,
/// which the ReLU moments link anyway: ~300 bytes instead of normal_quantile's ~2 KB of
/// compensated kernels, for ~1e-6 relative accuracy (tests/runtime/math).
inline float interval_half_width_fast(float q) {
  const uint32_t bits = to_bits(q);
  const float m = from_bits<float>((bits & 0x007fffffu) | 0x3f800000u) - 1.0f;  // mantissa - 1
  const float log2_q = static_cast<float>(static_cast<int32_t>(bits >> 23) - 127) +
                       m * (1.3466f - 0.3466f * m);  // log2(1 + m) to ~0.008
  const float t = sqrt(-1.3862944f * log2_q);        // sqrt(-2 ln q)
  const float* c = kIntervalGuess;
  const float num = c[0] + t * (c[1] + t * c[2]);
  const float den = 1.0f + t * (c[3] + t * (c[4] + t * c[5]));
  float x = -(t - num / den);  // ~ Phi^-1(q) <= 0
  for (int i = 0; i < 4; ++i) {
    // Halley on Phi(x) - q: Phi' = phi, Phi'' = -x phi.
    const NormalTails<float> tails = normal_tails_fast(x);
    const float u = (tails.cdf - q) / (tails.cdf * tails.pdf_over_cdf);
    x = x - u / (1.0f + 0.5f * x * u);
  }
  return x < 0.0f ? -x : 0.0f;
}

}  // namespace detail
}  // namespace math
}  // namespace pbp
