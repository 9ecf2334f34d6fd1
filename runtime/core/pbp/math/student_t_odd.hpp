// SPDX-License-Identifier: Apache-2.0
// pbp::math Student-t with an odd number of degrees of freedom nu = 2m + 1 (3..31): the detail
// behind student_t.hpp's public functions (which include this header and dispatch on parity).
// Only +, -, *, /, sqrt, log and exp: no arc tangent, pi is a constant.
//
// With r = sqrt(nu + x^2), c = x / r and s = sqrt(nu) / r (sine and cosine of atan(x/sqrt nu)),
// u = s^2, v = c^2 = 1 - u, e_k = (2k)!! / (2k+1)!! (asin(t) / (t sqrt(1-t^2)) = sum e_k t^2k),
// p = (1 - c) / 2 = nu / (2 r (r + x)), y = p / (1 - p) = nu / (r + x)^2, for x >= 0:
//   F(x) - 1/2 = (c s / pi) (sum_k e_k v^k + sum_{k<m} e_k u^k)   (A&S 26.7.3, the angle
//                written as c s sum e_k v^k: positive terms)
//   P(X > x)   = I_p(m + 1/2, m + 1/2)                              (the symmetric beta)
//              = (1/pi) p (u/4)^(m-1/2) [sum_{i<m} g_i y^i + 2 (1-p) y^m sum_j e_{2m+j} p^j],
//     g_i = 2^(2m+1) (2m)! / ((2m+2i+1)!! (2m-2i-1)!!): g_0 = 2^(2m+1) e_m and
//     g_{i+1} / g_i = (2m-2i-1) / (2m+2i+3). That is I_p(a, b) = I_p(a+1, b-1) + p^a (1-p)^(b-1)
//     / (a B(a, b)) applied m times, down to I_p(2m+1/2, 1/2) = (2/pi) sqrt(p(1-p)) sum_{k>=2m}
//     e_k p^k, a series of ratio below p (p < 0.45 where it is used, x > 5/8);
//   density    = f0 u^(m+1),  f0 = (2m)!! / ((2m-1)!! pi sqrt(nu)) = e_m sqrt(nu) / pi.
// The tail form has only positive terms, so it keeps its relative accuracy down to underflow; its
// kappa = x f / P = (nu/2) g_0 c (1 + c) / bracket tends to nu, as the even form's does.
// Both infinite sums stop after a fixed number of terms per m and type (below a quarter ulp).
#pragma once
#include <stdint.h>

#include "bits.hpp"
#include "exp_log.hpp"
#include "sqrt.hpp"

namespace pbp {
namespace math {
namespace detail {

// Shared with the even dof, defined in student_t.hpp (the templates meet at instantiation).
template <typename T>
inline T student_t_log1p(T z);
template <typename T>
inline T pow_uint(T base, uint32_t e);
template <typename T>
inline T student_t_cornish_fisher(T log_q, T nu);
template <typename T>
inline T student_t_tail_step(T x, T ratio, T kappa, T c, T nu);
template <typename T>
inline T student_t_times_power_over(T head, T a, uint32_t e, T q);
template <typename T>
inline T student_t_power_start(T p0, T g1, T g2, T nu);
template <typename T>
struct TailParts;

constexpr uint32_t kStudentTOddMaxM = 15;                          // nu = 31
constexpr uint32_t kStudentTOddECount = 2 * kStudentTOddMaxM + 1;  // e_0 .. e_30
constexpr uint32_t kStudentTOddRhoCount = 45;                      // rho_k = e_{k+1} / e_k
constexpr uint32_t kStudentTOddGCount = kStudentTOddMaxM * (kStudentTOddMaxM + 1) / 2;  // 120
constexpr double kStudentTOddTailFrom = 0.625;   // tail form beyond (P < 1/4 from ~0.68 on)
constexpr double kStudentTOddCentralTo = 0.8;    // central terms hold to here (quartile <= 0.765)
constexpr double kStudentTOddPowerStart = 0.06;  // power-law quantile start where p0 is below

constexpr uint32_t student_t_odd_offset(uint32_t m) {
  return m * (m - 1) / 2;
}

// num / den * 2^exp2 in lowest terms with num and den odd, built from small factors; ok is false
// once num or den would reach 2^63.
struct StudentTOddRatio {
  uint64_t num = 1, den = 1;
  int exp2 = 0;
  bool ok = true;
};

constexpr uint64_t student_t_odd_gcd(uint64_t a, uint64_t b) {
  return b == 0 ? a : student_t_odd_gcd(b, a % b);
}

// r * a / b for a, b >= 1.
constexpr StudentTOddRatio student_t_odd_mul(StudentTOddRatio r, uint64_t a, uint64_t b) {
  for (; a % 2 == 0; a /= 2) ++r.exp2;
  for (; b % 2 == 0; b /= 2) --r.exp2;
  const uint64_t gab = student_t_odd_gcd(a, b);
  a /= gab;
  b /= gab;
  const uint64_t ga = student_t_odd_gcd(a, r.den), gb = student_t_odd_gcd(b, r.num);
  a /= ga;
  r.den /= ga;
  b /= gb;
  r.num /= gb;
  constexpr uint64_t kMax = (uint64_t{1} << 63) - 1;
  if (r.num > kMax / a || r.den > kMax / b) r.ok = false;
  r.num *= a;
  r.den *= b;
  return r;
}

// The T nearest to r (ties to even) by long division of the exact integers: one rounding, so
// every compiler and target gets the same table. Normal range only.
template <typename T>
constexpr T student_t_odd_round(StudentTOddRatio r) {
  constexpr int kP = Traits<T>::kMantissaBits + 1;
  uint64_t n = r.num, d = r.den;
  int e = r.exp2;
  for (; n < d; n <<= 1) --e;
  for (; n >= d + d; d <<= 1) ++e;  // d <= n < 2d
  uint64_t q = 0;
  for (int i = 0; i <= kP; ++i) {  // the kP significand bits and the rounding bit
    q <<= 1;
    if (n >= d) {
      n -= d;
      q |= 1u;
    }
    n <<= 1;
  }
  uint64_t sig = q >> 1;
  if ((q & 1u) != 0 && (n != 0 || (sig & 1u) != 0)) ++sig;
  T v = static_cast<T>(sig);  // exact: sig <= 2^kP
  for (e -= kP - 1; e > 0; --e) v = v * static_cast<T>(2);
  for (; e < 0; ++e) v = v * static_cast<T>(0.5);
  return v;
}

// The fixed term counts (T's significand bits `bits`), from bounds evaluated in double (they only
// pick integers). Remainder: its tail after J terms is <= e_{2m+J} p^J / (1 - p) and enters the
// bracket times 2 (1 - p) y^m, the bracket being >= sum_{i<m} g_i y^i; p is largest at
// x = kStudentTOddTailFrom. Central: the tail after K terms is <= e_K v^K / (1 - v), the sum
// >= 2, v largest at x = kStudentTOddCentralTo. Both cut below 2^-(bits + 2) relative.
constexpr double student_t_odd_bound_sqrt(double a) {
  double r = a;
  for (int i = 0; i < 64; ++i) r = 0.5 * (r + a / r);
  return r;
}

constexpr uint32_t student_t_odd_remainder_terms(uint32_t m, int bits) {
  const double nu = 2.0 * m + 1.0, x = kStudentTOddTailFrom;
  const double r = student_t_odd_bound_sqrt(nu + x * x);
  const double p = nu / (2.0 * r * (r + x)), y = p / (1.0 - p);
  double e = 1.0, g = 2.0, bracket = 0.0, yi = 1.0;
  for (uint32_t k = 1; k <= m; ++k) {
    e *= 2.0 * k / (2.0 * k + 1.0);  // e_m
    g *= 4.0;
  }
  g *= e;  // g_0
  for (uint32_t i = 0; i < m; ++i) {
    bracket += g * yi;
    yi *= y;  // y^m at the end
    g *= (2.0 * m - 2.0 * i - 1.0) / (2.0 * m + 2.0 * i + 3.0);
  }
  for (uint32_t k = m + 1; k <= 2 * m; ++k) e *= 2.0 * k / (2.0 * k + 1.0);  // e_{2m}
  double tol = 0.25;
  for (int i = 0; i < bits; ++i) tol *= 0.5;
  double bound = 2.0 * yi * e / bracket;
  uint32_t j = 0;
  for (; bound > tol; ++j) bound *= p * (2.0 * (2 * m + j) + 2.0) / (2.0 * (2 * m + j) + 3.0);
  return j;
}

constexpr uint32_t student_t_odd_central_terms(uint32_t m, int bits) {
  const double nu = 2.0 * m + 1.0, x = kStudentTOddCentralTo;
  const double v = x * x / (nu + x * x);
  double tol = 0.25;
  for (int i = 0; i < bits; ++i) tol *= 0.5;
  double bound = 1.0 / (2.0 * (1.0 - v));
  uint32_t k = 0;
  for (; bound > tol; ++k) bound *= v * (2.0 * k + 2.0) / (2.0 * k + 3.0);
  return k;
}

template <typename T>
struct StudentTOddTables {
  T e[kStudentTOddECount];
  T rho[kStudentTOddRhoCount];  // rho_k = (2k + 2) / (2k + 3)
  T g[kStudentTOddGCount];      // g_i for m = 1..15, i < m, block m at student_t_odd_offset(m)
  uint8_t remainder_terms[kStudentTOddMaxM + 1];
  uint8_t central_terms[kStudentTOddMaxM + 1];
  bool exact;  // every entry from exact integers below 2^63, every index in range
};

template <typename T>
constexpr StudentTOddTables<T> make_student_t_odd_tables() {
  constexpr int kP = Traits<T>::kMantissaBits + 1;
  StudentTOddTables<T> t{};
  t.exact = true;
  StudentTOddRatio e;  // e_0 = 1
  for (uint32_t k = 0; k < kStudentTOddECount; ++k) {
    if (k > 0) e = student_t_odd_mul(e, 2 * k, 2 * k + 1);
    t.e[k] = student_t_odd_round<T>(e);
    t.exact = t.exact && e.ok;
    if (k == 0 || k > kStudentTOddMaxM) continue;
    const uint32_t m = k;
    StudentTOddRatio g = e;
    g.exp2 += static_cast<int>(2 * m + 1);  // g_0 = 2^(2m+1) e_m
    for (uint32_t i = 0; i < m; ++i) {
      if (i > 0) g = student_t_odd_mul(g, 2 * m - 2 * i + 1, 2 * m + 2 * i + 1);
      t.g[student_t_odd_offset(m) + i] = student_t_odd_round<T>(g);
      t.exact = t.exact && g.ok;
    }
    const uint32_t rem = student_t_odd_remainder_terms(m, kP);
    const uint32_t central = student_t_odd_central_terms(m, kP);
    t.remainder_terms[m] = static_cast<uint8_t>(rem);
    t.central_terms[m] = static_cast<uint8_t>(central);
    t.exact = t.exact && central >= 1 && central <= kStudentTOddECount &&
              2 * m + rem <= kStudentTOddRhoCount + 1;
  }
  for (uint32_t k = 0; k < kStudentTOddRhoCount; ++k)
    t.rho[k] = student_t_odd_round<T>(student_t_odd_mul(StudentTOddRatio{}, 2 * k + 2, 2 * k + 3));
  return t;
}

template <typename T>
inline constexpr StudentTOddTables<T> kStudentTOdd = make_student_t_odd_tables<T>();
static_assert(kStudentTOdd<float>.exact && kStudentTOdd<double>.exact, "odd dof tables");

// 1/pi rounded once (its double is not near a float rounding boundary), and the rest.
template <typename T>
inline constexpr T kStudentTInvPi = static_cast<T>(0.318309886183790671537767526745028724);
template <typename T>
inline constexpr T kStudentTInvPiLo = sizeof(T) == 4 ? static_cast<T>(0x1.b9391p-27)
                                                     : static_cast<T>(-0x1.6b01ec5417056p-56);

// sum_k e_k v^k + sum_{k<m} e_k u^k at v = x^2 / (nu + x^2) (x <= ~0.8), u = 1 - v: the second
// by Horner at the rounded u plus its derivative times u's rounding error (exact), as the even
// central sum does.
template <typename T>
inline T student_t_odd_central_sum(T x2, T nu, uint32_t m) {
  const T one = static_cast<T>(1);
  const StudentTOddTables<T>& t = kStudentTOdd<T>;
  const T v = x2 / (nu + x2);
  const T u = one - v;
  const T u_lo = (one - u) - v;  // Fast2Sum: exact
  T sum = t.e[m - 1];
  T der = static_cast<T>(0);
  for (uint32_t k = m - 1; k > 0; --k) {
    der = der * u + sum;
    sum = sum * u + t.e[k - 1];
  }
  const uint32_t n = t.central_terms[m];
  T angle = t.e[n - 1];
  for (uint32_t k = n - 1; k > 0; --k) angle = angle * v + t.e[k - 1];
  return angle + (sum + der * u_lo);
}

// F(x) - 1/2 for 0 <= x <= ~0.8.
template <typename T>
inline T student_t_odd_central(T x, T nu, T sqrt_nu, uint32_t m) {
  const T x2 = x * x;
  const T cs = x * sqrt_nu / (nu + x2);
  return cs * student_t_odd_central_sum(x2, nu, m) * kStudentTInvPi<T>;
}

// The tail form at x >= 0 (r = sqrt(nu + x^2)): ratio = P(X > x) / q and the bracket sigma
// (student_t_tail_ratio's twin: q divides once the running product is below 1).
template <typename T>
__attribute__((noinline)) inline TailParts<T> student_t_odd_tail_ratio(T x, T r, T nu, uint32_t m,
                                                                       T q) {
  const T one = static_cast<T>(1);
  const StudentTOddTables<T>& t = kStudentTOdd<T>;
  // 2 r (r + x) = 2 (r^2 + r x) and (r + x)^2 = nu + 2 x (r + x): r's rounding enters with the
  // weight x / (r + x) rather than twice
  const T r2 = nu + x * x;
  const T p = nu / (static_cast<T>(2) * (r2 + r * x));
  const T y = nu / (nu + static_cast<T>(2) * x * (r + x));
  T sigma = static_cast<T>(0);
  const uint32_t terms = t.remainder_terms[m];
  if (terms != 0) {
    // sum_j e_{2m+j} p^j = e_{2m} (1 + rho_{2m} p (1 + rho_{2m+1} p (...)))
    T rem = one;
    for (uint32_t k = 2 * m + terms - 1; k > 2 * m; --k) rem = one + t.rho[k - 1] * p * rem;
    sigma = t.e[2 * m] * rem * ((one - p) * static_cast<T>(2));
  }
  const T* g = t.g + student_t_odd_offset(m);
  for (uint32_t i = m; i > 0; --i) sigma = sigma * y + g[i - 1];
  const T z = x * x / nu;
  if (z <= static_cast<T>(2)) {
    // u^(m - 1/2) = exp(-(m - 1/2) log1p(z)), as the even form does (error ~ kappa, not m)
    const T scale = pow_uint(static_cast<T>(0.25), m - 1) * static_cast<T>(0.5);  // exact
    const T head = sigma * p * kStudentTInvPi<T> * scale / q;
    const T power = static_cast<T>(m) - static_cast<T>(0.5);
    return {head * exp(-power * student_t_log1p(z)), sigma};
  }
  const T a = nu / (static_cast<T>(4) * r2);  // p(1-p) = u/4
  return {student_t_times_power_over(sigma * p * kStudentTInvPi<T> * sqrt(a), a, m - 1, q), sigma};
}

// P(X > x) for x >= 0 (NaN passes through).
template <typename T>
inline T student_t_odd_tail_nonnegative(T x, uint32_t m) {
  const T nu = static_cast<T>(2 * m + 1);
  if (x <= static_cast<T>(kStudentTOddTailFrom))  // P > 1/4 for every dof: no cancellation
    return static_cast<T>(0.5) - student_t_odd_central(x, nu, sqrt(nu), m);
  return student_t_odd_tail_ratio(x, sqrt(nu + x * x), nu, m, static_cast<T>(1)).ratio;
}

template <typename T>
inline T student_t_odd_upper_tail(T x, uint32_t m) {
  if (x < static_cast<T>(0)) return static_cast<T>(1) - student_t_odd_tail_nonnegative(-x, m);
  return student_t_odd_tail_nonnegative(x, m);
}

// log f0 - (m + 1) log1p(x^2 / nu), log1p as the even log density takes it beyond |x| = 2^30.
template <typename T>
inline T student_t_odd_log_pdf(T x, uint32_t m) {
  const T nu = static_cast<T>(2 * m + 1);
  const T sqrt_nu = sqrt(nu);
  const T ax = abs(x);
  const T k = log(kStudentTOdd<T>.e[m] * sqrt_nu * kStudentTInvPi<T>);
  const T big = static_cast<T>(1073741824.0);  // 2^30
  const T z = ax > big ? static_cast<T>(1) : ax * ax / nu;
  const T l1p =
      ax > big ? static_cast<T>(2) * log(ax / sqrt_nu) + nu / (ax * ax) : student_t_log1p(z);
  return k - (static_cast<T>(m) + static_cast<T>(1)) * l1p;
}

// Central quantile, q in [1/4, 1/2]: d = 1/2 - q exact. The series start in w = d / f0, then
// Halley steps on the central form (student_t_quantile_central's twin; the density's power m + 1
// is whole, so no sqrt in the steps).
template <typename T>
__attribute__((noinline)) inline T student_t_odd_quantile_central(T d, uint32_t m, int steps) {
  const T one = static_cast<T>(1);
  const T nu = static_cast<T>(2 * m + 1);
  const T sqrt_nu = sqrt(nu);
  const T f0 = kStudentTOdd<T>.e[m] * sqrt_nu * kStudentTInvPi<T>;  // density at 0
  // F(x) - 1/2 = t k with t = x S / (nu + x^2), k = sqrt(nu) / pi = k_hi + k_lo: sqrt's and
  // 1/pi's roundings corrected, and t k_hi - d exact, so only t's roundings remain
  T sq_hi = static_cast<T>(0), sq_lo = static_cast<T>(0);
  exact_square(sqrt_nu, sq_hi, sq_lo);
  const T sqrt_nu_lo = ((nu - sq_hi) - sq_lo) / (sqrt_nu + sqrt_nu);
  const T k_hi = sqrt_nu * kStudentTInvPi<T>;
  const T k_lo = two_product_error(sqrt_nu, kStudentTInvPi<T>, k_hi) +
                 (sqrt_nu_lo * kStudentTInvPi<T> + sqrt_nu * kStudentTInvPiLo<T>);
  const T w = d / f0;
  const T ca = (nu + one) / (static_cast<T>(6) * nu);
  const T cb = static_cast<T>(3) * ca * ca -
               (nu + one) * (nu + static_cast<T>(3)) / (static_cast<T>(40) * nu * nu);
  const T w2 = w * w;
  T x = w * (one + w2 * (ca + w2 * cb));
  for (int i = 0; i < steps; ++i) {
    const T x2 = x * x;
    const T r2 = nu + x2;
    const T t = x * student_t_odd_central_sum(x2, nu, m) / r2;
    const T c_hi = t * k_hi;
    const T g = (c_hi - d) + (two_product_error(t, k_hi, c_hi) + t * k_lo);
    const T h = g / (f0 * pow_uint(nu / r2, m + 1));  // g / density
    x = x - h / (one + h * (nu + one) * x / (r2 + r2));
  }
  return x;
}

// Tail quantile, q < 1/4: start (Cornish-Fisher, or where p0 = (pi q / g_0)^(1/(m + 1/2)) is
// small the series for p in p0), then Halley steps on log(P(X > x) / q) in log x, as the even
// student_t_quantile_tail does. The starts are within 7e-4.
template <typename T>
__attribute__((noinline)) inline T student_t_odd_quantile_tail(T q, uint32_t m, int steps) {
  const T one = static_cast<T>(1);
  const T half = static_cast<T>(0.5);
  const T nu = static_cast<T>(2 * m + 1);
  const T mf = static_cast<T>(m);
  const T order = mf + half;  // P ~ (g_0 / pi) p^(m + 1/2)
  const T g0 = kStudentTOdd<T>.g[student_t_odd_offset(m)];
  const T log_q = log(q);
  const T p0 = exp((log_q - log(g0 * kStudentTInvPi<T>)) / order);
  T x;
  if (p0 < static_cast<T>(kStudentTOddPowerStart)) {
    // log P = log(g_0/pi) + (m + 1/2) log p + b1 p + b2 p^2 + ..., inverted to second order:
    // (m - 1/2) log(1 - p) and the bracket 1 + a1 y + a2 y^2 + ... (y = p + p^2 + ...,
    // a_{i+1} / a_i = (2m-2i-1) / (2m+2i+3), the remainder continuing the pattern)
    const T a1 = (mf + mf - one) / (mf + mf + static_cast<T>(3));
    const T a2 = a1 * (mf + mf - static_cast<T>(3)) / (mf + mf + static_cast<T>(5));
    const T mh = mf - half;
    const T g1 = (mh - a1) / order;  // -b1 / (m + 1/2)
    const T g2 = (half * mh + half * a1 * a1 - a1 - a2) / order;
    x = student_t_power_start(p0, g1, g2, nu);
  } else {
    x = student_t_cornish_fisher(log_q, nu);
  }
  for (int i = 0; i < steps; ++i) {
    const T r = sqrt(nu + x * x);
    const TailParts<T> tp = student_t_odd_tail_ratio(x, r, nu, m, q);
    const T c = x / r;
    x = student_t_tail_step(x, tp.ratio, half * nu * g0 * c * (one + c) / tp.sigma, c, nu);
  }
  return x;
}

}  // namespace detail
}  // namespace math
}  // namespace pbp
