// SPDX-License-Identifier: Apache-2.0
// The fixed-point ReLU moments (relu_moments_fixed.hpp). Formats are named by their fraction
// bits: Q30 means value * 2^30 in an integer. Every product is a 32 x 32 -> 64-bit multiply
// keeping the high word (one SMMUL/UMULL on Cortex-M4/M7), truncating toward minus infinity,
// the same integers everywhere.
#include "kernels/relu_moments_fixed.hpp"

#include "kernels/linear_moments_s8_s16_codes.hpp"

#if PBP_WITH_INT8
namespace pbp::detail::relu_fixed {
namespace {
using s8_s16::float_bits;

inline int32_t mul_high(int32_t a, int32_t b) {
  return s8_s16::multiply_high(a, b);
}
inline uint32_t mul_high(uint32_t a, uint32_t b) {
  return s8_s16::multiply_high(a, b);
}
using s8_s16::leading_zeros;

// A positive float's magnitude as m * 2^e with m in [2^31, 2^32) (subnormals too), m != 0.
struct Normalised {
  uint32_t m;
  int32_t e;
};
inline Normalised normalise(uint32_t magnitude) {
  const s8_s16::Unpacked u = s8_s16::unpack(magnitude);
  const int32_t shift = u.significand >= 0x800000u ? 8 : leading_zeros(u.significand);
  return {u.significand << shift, u.exponent - shift};
}

// m * 2^e, normalised (0 stays 0).
inline Wide wide(uint32_t m, int32_t e) {
  if (m == 0) return {0u, 0};
  const int32_t shift = leading_zeros(m);
  return {m << shift, e - shift};
}

constexpr int32_t kSixth = 715827883;   // 2^32 / 6: mul_high(x, kSixth) = x / 6
constexpr int32_t kTableEnd = 6 << 28;  // |alpha| < 6 in Q28 takes the table
constexpr uint32_t kThreeQ28 = 3u << 28;

// The first Newton step r (3 - x r^2) / 2 of 1/sqrt(x) (Q30) from the 16-bit seed s, r = s 2^15.
// Thumb-1 has no long multiply (a 32 x 32 high word is four 16 x 16 products): there r^2 2^-32 =
// s^2 / 4 and r y 2^-32 = s y 2^-17 = (s y_high + (s y_low >> 16)) >> 1 (y < 2^30: no overflow),
// the same integers.
inline uint32_t first_newton_step(uint32_t seed, uint32_t x) {
#if defined(__ARM_ARCH_ISA_THUMB) && __ARM_ARCH_ISA_THUMB == 1
  const uint32_t y = kThreeQ28 - mul_high(x, (seed * seed) >> 2);
  return ((seed * (y >> 16) + ((seed * (y & 0xFFFFu)) >> 16)) >> 1) << 3;
#else
  const uint32_t r = seed << 15;
  return mul_high(r, kThreeQ28 - mul_high(x, mul_high(r, r))) << 3;
#endif
}

// sd = v's square root: v = x 2^(e + 32) with e even and x in [1/4, 1); r = 1/sqrt(x) in Q30.
struct Root {
  uint32_t x;       // Q32
  int32_t e;        // even
  uint32_t r;       // Q30, in (2^30, 2^31]
  uint32_t sqrt_x;  // Q30
};
inline Root reciprocal_root(uint32_t v_magnitude) {
  const Normalised n = normalise(v_magnitude);
  Root root;
  root.x = (n.e & 1) != 0 ? n.m >> 1 : n.m;
  root.e = (n.e & 1) != 0 ? n.e + 1 : n.e;
  // r (3 - x r^2) / 2: Q30 x Q28 -> Q26, then to Q30; twice, the first from the seed
  uint32_t r = first_newton_step(kRsqrtSeed[(root.x >> 24) - 64u], root.x);
  r = mul_high(r, kThreeQ28 - mul_high(root.x, mul_high(r, r))) << 3;
  root.r = r;
  root.sqrt_x = mul_high(root.x, r);
  return root;
}

// Phi(alpha) (Q29) and g(alpha) (Q28) for |alpha| < 6 (alpha in Q28).
struct Tails {
  int32_t cdf;
  int32_t partial_mean;
};
inline Tails tails(int32_t alpha) {
  const uint32_t from_first = static_cast<uint32_t>(alpha) + static_cast<uint32_t>(kTableEnd);
  const uint32_t i = (from_first + (1u << 24)) >> 25;  // the nearest node, step 2^25
  const int32_t t = static_cast<int32_t>(from_first - (i << 25)) * 8;  // Q31, |t| <= 2^27
  const int32_t node = static_cast<int32_t>(i) - 48;                   // alpha_i = node / 8
  const int32_t cdf = kCdf[i], pdf = kPdf[i];
  const int32_t a_pdf = node * (pdf >> 3);                 // alpha_i phi_i, Q30
  const int32_t cubic = node * (a_pdf >> 3) - pdf;         // (alpha_i^2 - 1) phi_i, Q30
  const int32_t t2 = mul_high(t, t);                       // Q30
  const int32_t t3_6 = mul_high(mul_high(t2, t), kSixth);  // t^3 / 6, Q29
  // Phi = Phi_i + phi_i t - alpha_i phi_i t^2/2 + (alpha_i^2 - 1) phi_i t^3/6
  const int32_t phi_q29 =
      (cdf >> 1) + mul_high(pdf, t) - mul_high(a_pdf, t2) + mul_high(cubic, t3_6) * 4;
  // g = g_i + Phi_i t + phi_i t^2/2 - alpha_i phi_i t^3/6
  const int32_t g_q28 = kPartialMean[i] + (mul_high(cdf, t) >> 1) + (mul_high(pdf, t2) >> 1) -
                        mul_high(a_pdf, t3_6) * 2;
  return {phi_q29 < 0 ? 0 : phi_q29, g_q28 < 0 ? 0 : g_q28};
}

// m^2 + v for m, v > 0 (the on limit): both halved into 32 bits, aligned, added, exactly
// truncated to the larger one's binade.
inline Wide square_plus(Normalised m, uint32_t v_magnitude) {
  const uint32_t square = mul_high(m.m, m.m) >> 1;  // m^2 = square 2^(2 e + 33)
  const int32_t e_square = 2 * m.e + 33;
  if (v_magnitude == 0) return {square, e_square};
  const Normalised v = normalise(v_magnitude);
  const uint32_t half_v = v.m >> 1;  // v = half_v 2^(e + 1)
  const int32_t e_v = v.e + 1;
  const int32_t e = e_square > e_v ? e_square : e_v;
  const auto aligned = [e](uint32_t x, int32_t ex) { return e - ex >= 32 ? 0u : x >> (e - ex); };
  return {aligned(square, e_square) + aligned(half_v, e_v), e};
}

// A zero variance's exponent, far below any layer's fixed point for C (whose scale is above -432,
// but may be far below the exponent 0 the limits' other zeros carry): its shift into it is below
// -32, so to_fixed gives 0 by its right shift. A's and B's scales are at least -30 (their bounds
// include the bias unit's 1), so a zero A or B of exponent 0 shifts by at most 30; the table's
// moments carry their unit's exponent, zero or not, whose shift the bounds keep below 32
// (relu_units_fixed), as they do every nonzero moment's.
constexpr int32_t kZeroExponent = -(1 << 30);  // (one immediate on Thumb-2; no shift overflows)

// The moments where |alpha| >= 6 (or v = 0): 0 for m <= 0, else (m, m^2 + v, v).
Moments limit_moments(uint32_t m_magnitude, uint32_t v_magnitude) {
  if (m_magnitude == 0) return {{0u, 0}, {0u, 0}, {0u, kZeroExponent}};
  const Normalised mn = normalise(m_magnitude);
  const s8_s16::Unpacked vu =
      v_magnitude != 0 ? s8_s16::unpack(v_magnitude) : s8_s16::Unpacked{0u, kZeroExponent};
  return {{mn.m, mn.e}, square_plus(mn, v_magnitude), {vu.significand, vu.exponent}};
}

// alpha = m / sqrt(v) in Q28 for v > 0, or kTableEnd where |alpha| >= 6 (the limits).
inline int32_t standardised_mean(uint32_t m_magnitude, bool negative, const Root& root,
                                 int32_t half) {
  if (m_magnitude == 0) return 0;
  const Normalised mn = normalise(m_magnitude);
  // |alpha| = m r 2^(-30 - half): mul_high(m, r) 2^(32 + e - 30 - half), in Q28
  const uint32_t x = mul_high(mn.m, root.r);  // < 2^31
  const int32_t shift = mn.e + 30 - half;
  int32_t alpha;
  if (shift >= 0) {
    // x 2^shift >= kTableEnd, without a 64-bit shift (kTableEnd is a multiple of 2^3)
    if (shift > 3 || x >= static_cast<uint32_t>(kTableEnd >> shift)) return kTableEnd;
    alpha = static_cast<int32_t>(x << shift);
  } else {
    alpha = -shift >= 32 ? 0 : static_cast<int32_t>(x >> -shift);
  }
  if (alpha >= kTableEnd) return kTableEnd;
  return negative ? -alpha : alpha;
}

// A unit's moments as m 2^e each, m not normalised (0 for 0): the caller normalises them
// (relu_moments_fixed) or shifts them to its layer's fixed point (relu_units_fixed).
__attribute__((always_inline)) inline Moments unit_moments(float m, float v) {
  const uint32_t m_bits = float_bits(m);
  const uint32_t m_magnitude = m_bits & 0x7FFFFFFFu;
  const bool negative = (m_bits >> 31) != 0;
  const uint32_t v_magnitude = float_bits(v) & 0x7FFFFFFFu;
  if (v_magnitude != 0) {
    const Root root = reciprocal_root(v_magnitude);
    const int32_t half = root.e / 2 + 16;  // sd = sqrt_x 2^(half - 30)
    const int32_t alpha = standardised_mean(m_magnitude, negative, root, half);
    if (alpha != kTableEnd) {
      const Tails tl = tails(alpha);
      const int32_t h = mul_high(alpha, tl.partial_mean) + (tl.cdf >> 5);  // Q24
      const int32_t k = h - mul_high(tl.partial_mean, tl.partial_mean);    // Q24
      const uint32_t h_q24 = h < 0 ? 0u : static_cast<uint32_t>(h);
      const uint32_t k_q24 = k < 0 ? 0u : static_cast<uint32_t>(k);
      // A = sd g: Q30 x Q28 -> Q26; B = v h, C = v k: x (Q32) x Q24 -> Q24, times 2^(e + 32)
      return {{mul_high(root.sqrt_x, static_cast<uint32_t>(tl.partial_mean)), half - 26},
              {mul_high(root.x, h_q24), root.e + 8},
              {mul_high(root.x, k_q24), root.e + 8}};
    }
  }
  // |alpha| >= 6 or v = 0: the limits, off (0) or on (m, m^2 + v, v)
  return limit_moments(negative ? 0u : m_magnitude, v_magnitude);
}

// A positive finite float's bits to an exponent b with x < 2^b (any b for 0: kNothing).
constexpr int32_t kNothing = -400;
inline int32_t exponent_above(uint32_t magnitude) {
  return magnitude == 0 ? kNothing : static_cast<int32_t>(magnitude >> 23) - 126;
}
inline int32_t larger(int32_t a, int32_t b) {
  return a > b ? a : b;
}
// m 2^e in the layer's fixed point, value 2^-scale (truncated; the bounds keep it below 2^32,
// and every left shift below 32: kZeroExponent's zeros shift right; UBSan checks it in the tests).
inline uint32_t to_fixed(const Wide& x, int32_t scale) {
  const int32_t shift = x.e - scale;
  if (shift >= 0) return x.m << shift;
  return shift <= -32 ? 0u : x.m >> -shift;
}
inline void store_word(float* buffer, uint32_t k, uint32_t word) {
  buffer[k] = math::detail::from_bits<float>(word);
}

}  // namespace

Moments relu_moments_fixed(float m, float v) {
  const Moments r = unit_moments(m, v);
  return {wide(r.mean.m, r.mean.e), wide(r.square.m, r.square.e), wide(r.variance.m, r.variance.e)};
}

// Each moment's layer bound 2^b, from the largest positive mean M and variance V (and the bias
// unit's 1 for A and B): A <= max(m, 0) + phi(0) sd < 2^(max(bM, bV / 2) + 1), B <= max(m, 0)^2
// + v < 2^(max(2 bM, bV) + 1), C <= v (ReLU is 1-Lipschitz) < 2^bV. Each is held as value
// 2^(31 - b): below 2^31, and below 2^32 with the fixed-point steps' own errors (relative 1e-6).
bool relu_units_fixed(uint32_t n, float* z_mean, float* z_var, float* c_values, Scales& scales) {
  int32_t largest_m = 0;     // bits of the largest mean, as signed: the largest positive one
  uint32_t magnitudes = 0u;  // the largest |m| and |v| bits, for the finite check
  uint32_t largest_v = 0u;
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t m = float_bits(z_mean[k]), v = float_bits(z_var[k]) & 0x7FFFFFFFu;
    const int32_t signed_m = static_cast<int32_t>(m);
    largest_m = signed_m > largest_m ? signed_m : largest_m;
    const uint32_t m_magnitude = m & 0x7FFFFFFFu;
    magnitudes = m_magnitude > magnitudes ? m_magnitude : magnitudes;
    largest_v = v > largest_v ? v : largest_v;
  }
  if (magnitudes >= 0x7F800000u || largest_v >= 0x7F800000u) return false;
  const int32_t b_m = exponent_above(static_cast<uint32_t>(largest_m));
  const int32_t b_v = exponent_above(largest_v);
  const int32_t half_v = b_v >= 0 ? (b_v + 1) / 2 : -(-b_v / 2);  // >= b_v / 2
  scales.a = larger(larger(b_m, half_v), 0) + 1 - 31;
  scales.b = larger(larger(2 * b_m, b_v), 0) + 1 - 31;
  scales.c = b_v - 31;
  for (uint32_t k = 0; k < n; ++k) {
    const Moments r = unit_moments(z_mean[k], z_var[k]);
    store_word(z_mean, k, to_fixed(r.mean, scales.a));
    store_word(z_var, k, to_fixed(r.square, scales.b));
    store_word(c_values, k, to_fixed(r.variance, scales.c));
  }
  return true;
}

}  // namespace pbp::detail::relu_fixed
#endif
