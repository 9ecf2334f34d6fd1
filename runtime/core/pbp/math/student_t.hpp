// SPDX-License-Identifier: Apache-2.0
// pbp::math Student-t with nu = 3..32 degrees of freedom: upper tail, log density and upper
// quantile, from +, -, *, /, sqrt, log and exp only. The public functions (at the end) dispatch
// on parity: an odd nu = 2m + 1 goes to student_t_odd.hpp (its formulas there; pi is a
// constant), an even nu = 2m to the algebraic forms below (whose bits the odd path leaves alone).
//
// Even nu = 2m: with s = x / sqrt(nu + x^2), u = 1 - s^2 = nu / (nu + x^2), c_k = (2k-1)!!/(2k)!!
// and p = (1 - s) / 2 (x >= 0):
//   F(x) - 1/2 = (s/2) sum_{k<m} c_k u^k                     (central form, relative in s)
//   P(X > x)   = P(Binomial(2m-1, p) >= m)                    (the symmetric beta I_p(m, m))
//              = p (p(1-p))^(m-1) sum_{j<m} C(2m-1, m+j) y^j,  y = p/(1-p) = nu/(r + x)^2,
//   density    = m c_m u^m / r,  r = sqrt(nu + x^2),  p(1-p) = u/4 = nu/(4 r^2).
// The tail form has only positive terms, so it keeps its relative accuracy down to underflow.
#pragma once
#include <stdint.h>

#include "bits.hpp"
#include "coefficients.hpp"
#include "exp_log.hpp"
#include "sqrt.hpp"
#include "student_t_odd.hpp"

namespace pbp {
namespace math {

inline constexpr uint32_t kStudentTMinDof = 3;   // finite variance from 3 (odd: student_t_odd.hpp)
inline constexpr uint32_t kStudentTMaxDof = 32;  // beyond, within ~1e-3 nats of a Gaussian

/// True for the degrees of freedom the Student-t functions accept: every integer in [3, 32].
inline constexpr bool student_t_dof_valid(uint32_t dof) {
  return dof >= kStudentTMinDof && dof <= kStudentTMaxDof;
}

namespace detail {

// The quantile's steps stay out of line (noinline below): called once a prediction, inlined at -O3
// they cost kilobytes of flash and save nothing.

constexpr uint32_t kStudentTMaxM = kStudentTMaxDof / 2;
static_assert(2 * kStudentTOddMaxM + 1 == kStudentTMaxDof - 1, "odd dof up to kStudentTMaxDof");
// C(2m-1, m+j) for m = 2..32, j = 0..m-1, block m at student_t_offset(m).
constexpr uint32_t kStudentTBinomCount = kStudentTMaxM * (kStudentTMaxM + 1) / 2 - 1;

// The power-law start where p0 is below this (else Cornish-Fisher).
constexpr double kStudentTPowerStart = 0.05;

constexpr uint32_t student_t_offset(uint32_t m) {
  return m * (m - 1) / 2 - 1;
}

// Exact integers (uint64 Pascal rows, C(32, 16) < 2^30), each rounded once into T at compile
// time, so every compiler and target gets the same table.
template <typename T>
struct StudentTTables {
  T binom[kStudentTBinomCount];
  T c[kStudentTMaxM + 1];  // c_k = C(2k, k) / 4^k
};

template <typename T>
constexpr StudentTTables<T> make_student_t_tables() {
  StudentTTables<T> t{};
  uint64_t row[2 * kStudentTMaxM + 1] = {1};
  for (uint32_t n = 1; n <= 2 * kStudentTMaxM; ++n) {
    for (uint32_t k = n; k > 0; --k) row[k] += row[k - 1];
    if (n % 2 == 1 && n >= 3) {
      const uint32_t m = (n + 1) / 2;
      for (uint32_t j = 0; j < m; ++j)
        t.binom[student_t_offset(m) + j] = static_cast<T>(row[m + j]);
    }
    if (n % 2 == 0) {
      T scale = static_cast<T>(1);
      for (uint32_t i = 0; i < n; ++i) scale = scale * static_cast<T>(0.5);  // exact
      t.c[n / 2] = static_cast<T>(row[n / 2]) * scale;
    }
  }
  t.c[0] = static_cast<T>(1);
  return t;
}

template <typename T>
inline constexpr StudentTTables<T> kStudentT = make_student_t_tables<T>();

template <typename T>
inline T pow_uint(T base, uint32_t e) {
  T result = static_cast<T>(1);
  for (; e != 0; e >>= 1) {
    if (e & 1u) result = result * base;
    base = base * base;
  }
  return result;
}

// sum_{k<m} c_k u^k for u = 1 - v, v = x^2 / (nu + x^2) <= 1/2, by Horner at the rounded
// u_hi plus the derivative times u - u_hi (exact): the rounding of u would otherwise enter
// ~2m/3 times (u S'/S), where the central form needs S to a few ulp.
template <typename T>
inline T student_t_central_sum(T x2, T nu, uint32_t m) {
  const T one = static_cast<T>(1);
  const T v = x2 / (nu + x2);
  const T u = one - v;
  const T u_lo = (one - u) - v;  // Fast2Sum: exact
  const T* c = kStudentT<T>.c;
  T sum = c[m - 1];
  T der = static_cast<T>(0);
  for (uint32_t k = m - 1; k > 0; --k) {
    der = der * u + sum;
    sum = sum * u + c[k - 1];
  }
  return sum + der * u_lo;
}

// head a^e / q for a < 1 (both tail forms' p(1-p) powers): q divides once the running product is
// below 1, so neither overflows nor underflows before the true value does (for normal q).
template <typename T>
inline T student_t_times_power_over(T head, T a, uint32_t e, T q) {
  if (e & 1u) head = head * a;
  const T a2 = a * a;
  bool divided = false;
  for (e >>= 1; e != 0; --e) {
    head = head * a2;  // decreasing: never below the final product
    if (!divided && head < static_cast<T>(1)) {
      head = head / q;
      divided = true;
    }
  }
  return divided ? head : head / q;
}

// The tail form at x >= 0 (r = sqrt(nu + x^2)): ratio = P(X > x) / q and
// sigma = sum_j C(2m-1, m+j) y^j. q divides the product once the running value is below 1,
// so neither overflows nor underflows before the true ratio does (for normal q).
template <typename T>
struct TailParts {
  T ratio;
  T sigma;
};

template <typename T>
inline T student_t_log1p(T z);

template <typename T>
__attribute__((noinline)) inline TailParts<T> student_t_tail_ratio(T x, T r, T nu, uint32_t m,
                                                                   T q) {
  const T rx = r + x;
  const T y = nu / (rx * rx);
  const T p = nu / ((r + r) * rx);
  const T* b = kStudentT<T>.binom + student_t_offset(m);
  T sigma = b[m - 1];
  for (uint32_t j = m - 1; j > 0; --j) sigma = sigma * y + b[j - 1];
  const T z = x * x / nu;
  if (z <= static_cast<T>(2)) {
    // u^(m-1) = exp(-(m-1) log1p(z)): its error scales with (m-1) z, which the condition
    // number kappa also does; a rounded u raised to the power would cost m ulps where kappa ~ 1.
    const T scale = pow_uint(static_cast<T>(0.25), m - 1);  // exact
    const T head = sigma * p * scale / q;
    return {head * exp(-static_cast<T>(m - 1) * student_t_log1p(z)), sigma};
  }
  const T a = nu / (static_cast<T>(4) * (r * r));  // p(1-p)
  return {student_t_times_power_over(sigma * p, a, m - 1, q), sigma};
}

// log1p(z) for z >= 0 via w = 1 + z and the correction (z - (w - 1)) / w.
template <typename T>
inline T student_t_log1p(T z) {
  const T w = static_cast<T>(1) + z;
  const T corr = (z - (w - static_cast<T>(1))) / w;
  return log(w) + corr;
}

// P(X > x) for x >= 0 (NaN passes through).
template <typename T>
inline T student_t_tail_nonnegative(T x, uint32_t m) {
  const T nu = static_cast<T>(2 * m);
  const T r = sqrt(nu + x * x);
  if (x <= static_cast<T>(0.625)) {  // P >= 1/4 for every dof: the central form, no cancellation
    const T s = x / r;
    return static_cast<T>(0.5) - static_cast<T>(0.5) * s * student_t_central_sum(x * x, nu, m);
  }
  return student_t_tail_ratio(x, r, nu, m, static_cast<T>(1)).ratio;
}

// Central quantile, q in [1/4, 1/2]: d = 1/2 - q exact (Sterbenz). Series start in w = d/f(0)
// (reversion of F(x) - 1/2 = f(0)(x - a x^3 + b x^5)), then Halley steps on the central form.
template <typename T>
__attribute__((noinline)) inline T student_t_quantile_central(T d, uint32_t m, int steps) {
  const T one = static_cast<T>(1);
  const T nu = static_cast<T>(2 * m);
  const T half = static_cast<T>(0.5);
  const T mc = static_cast<T>(m) * kStudentT<T>.c[m];  // density at 0 times sqrt(nu)
  const T w = d * sqrt(nu) / mc;
  const T ca = (nu + one) / (static_cast<T>(6) * nu);
  const T cb = static_cast<T>(3) * ca * ca -
               (nu + one) * (nu + static_cast<T>(3)) / (static_cast<T>(40) * nu * nu);
  const T w2 = w * w;
  T x = w * (one + w2 * (ca + w2 * cb));
  for (int i = 0; i < steps; ++i) {
    const T x2 = x * x;
    const T r2 = nu + x2;
    const T r = sqrt(r2);
    const T u = nu / r2;
    const T g = half * (x / r) * student_t_central_sum(x2, nu, m) - d;
    const T h = g * r / (mc * pow_uint(u, m));  // g / density
    x = x - h / (one + h * (nu + one) * x / (r2 + r2));
  }
  return x;
}

// The normal quantile's rational guess at log q, then Cornish-Fisher to 1/nu^4 (A&S 26.7.5):
// the tail quantile's start where the tail is not yet a power law (both parities).
template <typename T>
inline T student_t_cornish_fisher(T log_q, T nu) {
  const T one = static_cast<T>(1);
  const T t = sqrt(static_cast<T>(-2) * log_q);
  const double* c = kQuantileGuess;
  const T num = static_cast<T>(c[0]) + t * (static_cast<T>(c[1]) + t * static_cast<T>(c[2]));
  const T den =
      one + t * (static_cast<T>(c[3]) + t * (static_cast<T>(c[4]) + t * static_cast<T>(c[5])));
  const T z = t - num / den;
  const T z2 = z * z;
  const T g1 = z * (z2 + one) / static_cast<T>(4);
  const T g2 = z * ((static_cast<T>(5) * z2 + static_cast<T>(16)) * z2 + static_cast<T>(3)) /
               static_cast<T>(96);
  const T g3 = z *
               (((static_cast<T>(3) * z2 + static_cast<T>(19)) * z2 + static_cast<T>(17)) * z2 -
                static_cast<T>(15)) /
               static_cast<T>(384);
  const T g4 =
      z *
      ((((static_cast<T>(79) * z2 + static_cast<T>(776)) * z2 + static_cast<T>(1482)) * z2 -
        static_cast<T>(1920)) *
           z2 -
       static_cast<T>(945)) /
      static_cast<T>(92160);
  const T in = one / nu;
  return z + in * (g1 + in * (g2 + in * (g3 + in * g4)));
}

// expm1(dt) for the small log-x step of the tail quantiles: x e^dt = x + x expm1(dt), one
// rounding at the end; dt is small after the start.
template <typename T>
inline T student_t_expm1_small(T dt) {
  const T one = static_cast<T>(1);
  const T half = static_cast<T>(0.5);
  return dt * (one + dt * (half + dt * (static_cast<T>(1) / static_cast<T>(6) +
                                        dt * (static_cast<T>(1) / static_cast<T>(24) +
                                              dt / static_cast<T>(120)))));
}

// Where the tail is a power law (both parities): p = (1 - x / r) / 2 from its leading inversion p0
// to second order (g1, g2 the parity's coefficients), then x at that p.
template <typename T>
inline T student_t_power_start(T p0, T g1, T g2, T nu) {
  const T one = static_cast<T>(1);
  const T p = p0 * (one + p0 * (g1 + p0 * (static_cast<T>(1.5) * g1 * g1 + g2)));
  return sqrt(nu) * (one - (p + p)) / (static_cast<T>(2) * sqrt(p * (one - p)));
}

// One tail-quantile step of either parity: Halley on L = log(P(X > x) / q) in log x, from the tail
// ratio P / q at x, kappa = -dL/dlog x and c = x / sqrt(nu + x^2), where d2L/dlog x^2 = -kappa A,
// A = kappa + 1 - (nu + 1) c^2. The ratio is clamped to [2^-100, 2^100] (keeps a far start finite).
template <typename T>
inline T student_t_tail_step(T x, T ratio, T kappa, T c, T nu) {
  const T one = static_cast<T>(1);
  const T lo = static_cast<T>(0x1p-100), hi = static_cast<T>(0x1p100);
  ratio = ratio > hi ? hi : ratio;
  ratio = ratio < lo ? lo : ratio;
  const T l = log(ratio);
  const T a = kappa + one - (nu + one) * c * c;
  const T dt = l / (kappa + static_cast<T>(0.5) * l * a);
  return x + x * student_t_expm1_small(dt);
}

// Tail quantile, q < 1/4: start, then Halley steps on L = log(P(X > x) / q) in log x, where
// dL/dlog x = -kappa, kappa = x f / P = m s (1 + s) C(2m-1, m) / sigma, and
// d2L/dlog x^2 = -kappa A, A = kappa + 1 - (nu + 1) s^2. L is concave in log x and nearly
// linear (kappa -> nu), so the steps converge from either side.
template <typename T>
__attribute__((noinline)) inline T student_t_quantile_tail(T q, uint32_t m, int steps) {
  const T one = static_cast<T>(1);
  const T half = static_cast<T>(0.5);
  const T nu = static_cast<T>(2 * m);
  const T mf = static_cast<T>(m);
  const T b0 = kStudentT<T>.binom[student_t_offset(m)];  // C(2m-1, m)
  const T log_q = log(q);
  // P ~ C(2m-1, m) p^m (1 + O(p)) as p -> 0: p0 is its leading inversion.
  const T p0 = exp((log_q - log(b0)) / mf);
  T x;
  if (p0 < static_cast<T>(kStudentTPowerStart)) {
    // log P = log C(2m-1, m) + m log p + b1 p + b2 p^2 + ..., inverted to second order
    const T g1 = (mf - one) / (mf + one);
    const T h2 = g1 * (mf - static_cast<T>(2)) / (mf + static_cast<T>(2));
    const T g2 = (half * (mf - one) - g1 - h2 + half * g1 * g1) / mf;
    x = student_t_power_start(p0, g1, g2, nu);
  } else {
    x = student_t_cornish_fisher(log_q, nu);
  }
  for (int i = 0; i < steps; ++i) {
    const T r = sqrt(nu + x * x);
    const TailParts<T> tp = student_t_tail_ratio(x, r, nu, m, q);
    const T s = x / r;
    x = student_t_tail_step(x, tp.ratio, mf * b0 * s * (one + s) / tp.sigma, s, nu);
  }
  return x;
}

}  // namespace detail

/// P(X > x) for the unit-scale Student-t with dof degrees of freedom (student_t_dof_valid;
/// other dof are the caller's error), T in {float, double}, any x: |x| <= 5/8 the central form
/// (P >= 1/4; even dof 2m: 1/2 -+ (s/2) sum c_k u^k, odd dof 2m + 1: 1/2 -+ (c s / pi)
/// (sum_k e_k v^k + sum_{k<m} e_k u^k)), beyond it the positive tail sum (even: the binomial one;
/// odd: the peeled symmetric beta, student_t_odd.hpp), with relative accuracy down to underflow;
/// x < 0 by symmetry, 1 - P(X > |x|). +inf -> 0, -inf -> 1, NaN -> NaN.
/// Cost: one sqrt, ~3 divisions and ~2.5 m multiply-adds (odd dof: ~3 (m + J) beyond 5/8, J the
/// fixed length of the remainder series, float <= 14 and double <= 33 terms; within 5/8, m + K
/// with K <= 10 / 21). Its condition number x f/P tends to nu, and the rounding of p(1-p) enters
/// m times, so the error grows with m (as a 1-2 ulp change of x would). Measured max
/// (tests/host/math_accuracy/test_student_t_accuracy.cpp, vs long double quadrature, every dof):
/// even dof float 34 ulp, double 44 ulp, <= 3.4 m ulp; odd dof float 22 ulp, double 26 ulp,
/// <= 3.3 m ulp.
template <typename T>
inline T student_t_upper_tail(T x, uint32_t dof) {
  if (dof % 2 == 1) return detail::student_t_odd_upper_tail(x, dof / 2);
  const uint32_t m = dof / 2;
  if (x < static_cast<T>(0)) return static_cast<T>(1) - detail::student_t_tail_nonnegative(-x, m);
  return detail::student_t_tail_nonnegative(x, m);
}

/// log density of the unit-scale Student-t with dof degrees of freedom at x, T in {float,
/// double}: log f(0) - (nu + 1)/2 log1p(x^2/nu), f(0) = m c_m / sqrt(nu) for dof = 2m and
/// e_m sqrt(nu) / pi for dof = 2m + 1, with log1p(z) = 2 log(|x|/sqrt nu) + 1/z beyond
/// |x| = 2^30 (no overflow of x^2). +-inf -> -inf, NaN -> NaN. Measured max (every dof, as
/// below): float 2.8 ulp, double 2.2 ulp.
template <typename T>
inline T student_t_log_pdf(T x, uint32_t dof) {
  if (dof % 2 == 1) return detail::student_t_odd_log_pdf(x, dof / 2);
  const uint32_t m = dof / 2;
  const T nu = static_cast<T>(dof);
  const T sqrt_nu = sqrt(nu);
  const T ax = detail::abs(x);
  const T k = log(static_cast<T>(m) * detail::kStudentT<T>.c[m] / sqrt_nu);
  const T big = static_cast<T>(1073741824.0);  // 2^30
  const T z = ax > big ? static_cast<T>(1) : ax * ax / nu;
  const T l1p = ax > big ? static_cast<T>(2) * log(ax / sqrt_nu) + nu / (ax * ax)
                         : detail::student_t_log1p(z);
  return k - (static_cast<T>(m) + static_cast<T>(0.5)) * l1p;
}

/// The upper quantile of the unit-scale Student-t with dof degrees of freedom: x with
/// P(X > x) = q, for T in {float, double}. q in (0, 1/2]: x >= 0, q = 1/2 -> 0; q in (1/2, 1)
/// -> -x(1 - q) (1 - q exact); q <= 0 -> +inf, q = 1 -> -inf, q > 1 and NaN -> NaN.
/// q >= 1/4: series start in (1/2 - q) and 2 Halley steps on the central form. q < 1/4: start
/// from the Cornish-Fisher expansion around the normal quantile's rational guess, or, where the
/// tail is already a power law, from the series for p in p0 (even dof 2m: p0 = (q / C(2m-1,
/// m))^(1/m), fixed rule p0 < 0.05; odd dof 2m + 1: p0 = (pi q / g_0)^(1/(m + 1/2)), p0 < 0.06);
/// then Halley steps on log(P(X > x) / q) in log x (1 for float, 2 for double; the starts are
/// within 2e-3, odd dof 7e-4).
/// Measured max error (tests/host/math_accuracy/test_student_t_accuracy.cpp, vs long double
/// quadrature, q in [1e-7, 1/2], every dof): even dof float 4.2 ulp, double 5.6e-16 relative
/// (2.9e-16 for q in [1e-300, 1/2]); odd dof float 4.3 ulp, double 4.2e-16 (2.0e-16).
/// Float cost at dof 32: q < 1/4 ~4 logs, 2 exps, 3 sqrts, ~10 divisions, ~150 multiply/adds;
/// q >= 1/4 3 sqrts, ~8 divisions, ~300 multiply/adds. At dof 3 (counted, soft float; the
/// logs' and exps' own operations not included): q < 1/4 3-4 logs, 1-2 exps, 2-4 sqrts,
/// 15 divisions, ~120-140 multiply/adds; q >= 1/4 1 sqrt, 16 divisions, ~155 multiply/adds.
template <typename T>
inline T student_t_quantile_upper(T q, uint32_t dof) {
  const T half = static_cast<T>(0.5);
  const uint32_t m = dof / 2;
  const int steps = sizeof(T) == 4 ? 1 : 2;  // tail: cubic steps from a ~1e-3 start
  if (!(q > static_cast<T>(0) && q < static_cast<T>(1))) {
    if (q <= static_cast<T>(0)) return infinity<T>();
    if (q == static_cast<T>(1)) return -infinity<T>();
    return quiet_nan<T>();
  }
  if (q > half) return -student_t_quantile_upper(static_cast<T>(1) - q, dof);
  if (dof % 2 == 1) {  // the same contract and steps, student_t_odd.hpp's forms
    if (q >= static_cast<T>(0.25)) return detail::student_t_odd_quantile_central(half - q, m, 2);
    return detail::student_t_odd_quantile_tail(q, m, steps);
  }
  if (q >= static_cast<T>(0.25)) return detail::student_t_quantile_central(half - q, m, 2);
  return detail::student_t_quantile_tail(q, m, steps);
}

}  // namespace math
}  // namespace pbp
