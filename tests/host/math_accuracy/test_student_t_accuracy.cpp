// SPDX-License-Identifier: Apache-2.0
// pbp::math Student-t (every dof 3..32) against an independent long double reference: the tail
// by Gauss-Legendre quadrature of the density in the angle variable (x = sqrt(nu) tan theta:
// P(X > x) = K int_0^phi sin^(nu-1), sin^2 phi = nu / (nu + x^2), K from lgamma), not the
// runtime's binomial / c_k / e_k sums. Prints the measured max errors for the even and the odd
// dof; fails past the goals below.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "pbp/math.hpp"

static_assert(LDBL_MANT_DIG >= 64, "the reference needs long double with >= 64 bits");

namespace {

namespace pm = pbp::math;
using L = long double;

// Gauss-Legendre nodes on [-1, 1] (Newton on P_n in long double).
constexpr int kGl = 24;
struct Gauss {
  L x[kGl], w[kGl];
  Gauss() {
    const L pi = std::acos(L(-1));
    for (int i = 0; i < kGl; ++i) {
      L z = std::cos(pi * (i + L(0.75)) / (kGl + L(0.5))), dp = 1;
      for (int it = 0; it < 100; ++it) {
        L p0 = 1, p1 = z;
        for (int k = 2; k <= kGl; ++k) {
          const L p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
          p0 = p1, p1 = p2;
        }
        dp = kGl * (z * p1 - p0) / (z * z - 1);
        const L dz = p1 / dp;
        z -= dz;
        if (std::fabs(dz) < 1e-30L) break;
      }
      x[i] = z, w[i] = 2 / ((1 - z * z) * dp * dp);
    }
  }
};
const Gauss& gauss() {
  static const Gauss g;
  return g;
}

// K int_a^b sin^(nu-1) t dt on 8 panels (24 points each: the integrand is a trigonometric
// polynomial of degree <= 63 on a panel of width <= pi/16, so the rule's error is far below long
// double's 1e-19).
L ref_integral(L a, L b, int nu) {
  const L k = std::exp(std::lgamma(L(nu + 1) / 2) - std::lgamma(L(nu) / 2) -
                       std::log(std::acos(L(-1))) / 2);
  const Gauss& g = gauss();
  constexpr int kPanels = 8;
  const L h = (b - a) / kPanels;
  L sum = 0;
  for (int p = 0; p < kPanels; ++p)
    for (int i = 0; i < kGl; ++i)
      sum += g.w[i] * std::pow(std::sin(a + h * (p + (g.x[i] + 1) / 2)), nu - 1);
  return k * sum * h / 2;
}
L ref_phi(L x, int nu) {
  return std::asin(std::sqrt(nu / (nu + x * x)));
}
// P(X > x) for x >= 0 (relative in the tail) and F(x) - 1/2 (relative near 0).
L ref_tail_nonneg(L x, int nu) {
  return ref_integral(0, ref_phi(x, nu), nu);
}
L ref_central(L x, int nu) {
  return ref_integral(ref_phi(x, nu), std::acos(L(-1)) / 2, nu);
}
L ref_tail(L x, int nu) {
  return x < 0 ? 1 - ref_tail_nonneg(-x, nu) : ref_tail_nonneg(x, nu);
}
L ref_log_pdf(L x, int nu) {
  return std::lgamma(L(nu + 1) / 2) - std::lgamma(L(nu) / 2) - std::log(nu * std::acos(L(-1))) / 2 -
         L(nu + 1) / 2 * std::log1p(x * x / nu);
}
// Newton on the quadrature from a start (the central integral for q > 1/4, relative for x near
// 0); the caller checks the residual ref_residual(q, nu, x) / q.
L ref_residual(L q, int nu, L x) {
  return q > 0.25L ? (L(0.5) - q) - ref_central(x, nu) : ref_tail(x, nu) - q;
}
L ref_quantile(L q, int nu, L x) {
  for (int i = 0; i < 6; ++i) x += ref_residual(q, nu, x) / std::exp(ref_log_pdf(x, nu));
  return x;
}

template <typename T>
double ulps(T y, L ref) {
  if (ref == 0) return y == 0 ? 0.0 : 1e30;
  const L ulp = std::ldexp(L(1), std::ilogb(ref) - (std::numeric_limits<T>::digits - 1));
  return static_cast<double>(std::fabs(static_cast<L>(y) - ref) / ulp);
}

template <typename T>
const char* type_name() {
  return sizeof(T) == 4 ? "float" : "double";
}

// Goals, from the arithmetic (u = unit roundoff):
// (m = floor(nu / 2): the odd dof 2m + 1 get the even dof 2m's goals.)
// * tail: the binomial form raises p(1-p) (<= 1.5 ulp) to the power m - 1 by products of
//   a^2 (0.5 ulp each), and y (<= 2 ulp) enters the sum of degree m - 1 at most m - 1 times: up
//   to 4 (m - 1) + 10 ulp; a change of x by 2 ulp does as much (x f / P tends to nu = 2m);
// * quantile: one final rounding (0.5) plus the tail's error divided by kappa = x f / P (>= 0.8
//   for q < 1/4, where the tail form's exp(-(m-1) log1p(x^2/nu)) keeps that error to a few ulp
//   of kappa); central q: Horner of positive terms with the rounding of u corrected: 8 ulp;
// * double: the spec's 1e-12 relative, far above the same few-ulp budget.
template <typename T>
double tail_goal_ulps(int nu) {
  return 4.0 * (nu / 2 - 1) + 10.0;
}
template <typename T>
double quantile_goal() {
  return sizeof(T) == 4 ? 8.0 : 1e-12;  // float: ulp; double: relative
}

// The worst error of one parity and where it was.
struct Worst {
  double e = 0, at = 0, cond = 0, rt = 0;
  int nu = 0;
  void add(double err, double where, int dof) {
    if (err > e) e = err, at = where, nu = dof;
    cond = std::max(cond, err / (dof / 2));
  }
};
const char* parity_name(int p) {
  return p == 0 ? "even" : "odd";
}

template <typename T>
void tail_sweep() {
  Worst worst[2];
  for (int nu = 3; nu <= 32; ++nu) {
    for (int i = -200; i <= 600; ++i) {
      const T x = static_cast<T>(i < 0 ? i / 40.0 : std::pow(1.03, i) - 1);  // to ~5e7
      const L ref = ref_tail(static_cast<L>(x), nu);
      if (ref < static_cast<L>(std::numeric_limits<T>::min())) continue;
      const double e = ulps<T>(pm::student_t_upper_tail(x, static_cast<uint32_t>(nu)), ref);
      EXPECT_LE(e, tail_goal_ulps<T>(nu)) << type_name<T>() << " nu " << nu << " x " << x;
      worst[nu % 2].add(e, static_cast<double>(x), nu);
    }
  }
  for (int p = 0; p < 2; ++p)
    std::printf(
        "[math_accuracy] student_t_upper_tail %-6s %-4s dof max %.2f ulp (nu %d, x %.9g); "
        "max ulp / m %.2f\n",
        type_name<T>(), parity_name(p), worst[p].e, worst[p].nu, worst[p].at, worst[p].cond);
}

template <typename T>
void quantile_sweep(double q_lo, bool check_accuracy) {
  constexpr int kQ = 250;
  Worst worst[2];
  for (int nu = 3; nu <= 32; ++nu) {
    T prev = 0;
    for (int i = 0; i <= kQ; ++i) {
      const double lq = std::log(q_lo) + (std::log(0.5) - std::log(q_lo)) * i / kQ;
      const T q = i == kQ ? static_cast<T>(0.5) : static_cast<T>(std::exp(lq));
      const T x = pm::student_t_quantile_upper(q, static_cast<uint32_t>(nu));
      ASSERT_TRUE(pm::is_finite(x) && x >= 0) << nu << " " << q;
      if (i > 0) {
        EXPECT_LE(x, prev) << "not monotone: nu " << nu << " q " << q;
      }
      prev = x;
      if (!check_accuracy) continue;
      const L xr = ref_quantile(static_cast<L>(q), nu, static_cast<L>(x));
      ASSERT_LE(std::fabs(ref_residual(static_cast<L>(q), nu, xr) / q), 5e-17L) << "reference";
      const double e = sizeof(T) == 4 ? ulps<T>(x, xr)
                                      : static_cast<double>(xr == 0 ? std::fabs(static_cast<L>(x))
                                                                    : std::fabs(x / xr - 1));
      EXPECT_LE(e, quantile_goal<T>()) << type_name<T>() << " nu " << nu << " q " << q;
      worst[nu % 2].add(e, static_cast<double>(q), nu);
      // round trip: P(X > x) moves by kappa <= nu times x's error, plus the tail's own error
      const T t = pm::student_t_upper_tail(x, static_cast<uint32_t>(nu));
      const double eps = std::numeric_limits<T>::epsilon() / 2;
      const double goal_x = sizeof(T) == 4 ? quantile_goal<T>() * 2 * eps : quantile_goal<T>();
      const double rt = std::fabs(static_cast<double>(t) / static_cast<double>(q) - 1);
      EXPECT_LE(rt, nu * goal_x + tail_goal_ulps<T>(nu) * 2 * eps) << nu << " " << q;
      worst[nu % 2].rt = std::max(worst[nu % 2].rt, rt);
    }
  }
  if (check_accuracy)
    for (int p = 0; p < 2; ++p)
      std::printf(
          "[math_accuracy] student_t_quantile_upper %-6s %-4s dof max %.3g %s (nu %d, q %.6g); "
          "round trip max rel %.3g\n",
          type_name<T>(), parity_name(p), worst[p].e, sizeof(T) == 4 ? "ulp" : "rel", worst[p].nu,
          worst[p].at, worst[p].rt);
}

template <typename T>
void log_pdf_sweep() {
  Worst worst[2];
  for (int nu = 3; nu <= 32; ++nu)
    for (int i = -300; i <= 300; ++i) {
      const T x = static_cast<T>(i < 0 ? -(std::pow(1.1, -i) - 1) : std::pow(1.1, i) - 1);
      const double e = ulps<T>(pm::student_t_log_pdf(x, static_cast<uint32_t>(nu)),
                               ref_log_pdf(static_cast<L>(x), nu));
      // log c + (m + 1/2) log1p(z): a few roundings, each relative to terms of the result's sign
      EXPECT_LE(e, 4.0) << type_name<T>() << " nu " << nu << " x " << x;
      worst[nu % 2].add(e, static_cast<double>(x), nu);
    }
  for (int p = 0; p < 2; ++p)
    std::printf("[math_accuracy] student_t_log_pdf %-6s %-4s dof max %.2f ulp (nu %d, x %.9g)\n",
                type_name<T>(), parity_name(p), worst[p].e, worst[p].nu, worst[p].at);
}

}  // namespace

TEST(MathAccuracyStudentT, KnownQuantiles) {
  // t_{0.975}: even dof by exact-rational bisection of F(x) - 1/2 = (s/2) sum c_k u^k (50 digits),
  // cross-checked by float64 quadrature; odd dof by mpmath (40 digits, regularised incomplete
  // beta), t_{0.975}(3) = 3.18244630528... as tabulated
  const struct {
    uint32_t nu;
    L x;
  } known[] = {
      {3, 3.1824463052837095927L},  {4, 2.7764451051977943578L},  {5, 2.5705818356363155147L},
      {6, 2.4469118511449699711L},  {7, 2.3646242515927853417L},  {8, 2.3060041352041666833L},
      {12, 2.1788128296672288663L}, {15, 2.1314495455597756821L}, {30, 2.0422724563012383100L},
      {31, 2.0395134463964084879L}, {32, 2.0369333434601019588L}};
  for (const auto& k : known) {
    EXPECT_LE(std::fabs(ref_tail(k.x, static_cast<int>(k.nu)) / 0.025L - 1), 1e-17L) << k.nu;
    EXPECT_LE(ulps<double>(pm::student_t_quantile_upper(0.025, k.nu), k.x), 8.0) << k.nu;
    EXPECT_LE(ulps<float>(pm::student_t_quantile_upper(0.025f, k.nu), k.x), 6.0) << k.nu;
  }
  EXPECT_EQ(std::fabs(ref_tail_nonneg(0, 10) - 0.5L) < 1e-18L, true);
}

TEST(MathAccuracyStudentT, TailFloat) {
  tail_sweep<float>();
}
TEST(MathAccuracyStudentT, TailDouble) {
  tail_sweep<double>();
}
TEST(MathAccuracyStudentT, QuantileFloat) {
  quantile_sweep<float>(1e-7, true);
  quantile_sweep<float>(static_cast<double>(FLT_MIN), false);  // finite, monotone
}
TEST(MathAccuracyStudentT, QuantileDouble) {
  quantile_sweep<double>(1e-7, true);
  quantile_sweep<double>(1e-300, true);
  quantile_sweep<double>(DBL_MIN, false);
}
TEST(MathAccuracyStudentT, LogPdf) {
  log_pdf_sweep<float>();
  log_pdf_sweep<double>();
}

TEST(MathAccuracyStudentT, EdgeCases) {
  for (uint32_t nu = 3; nu <= 32; ++nu) {
    EXPECT_TRUE(pm::student_t_dof_valid(nu));
    EXPECT_EQ(pm::student_t_quantile_upper(0.5f, nu), 0.0f);
    EXPECT_EQ(pm::student_t_quantile_upper(0.5, nu), 0.0);
    EXPECT_EQ(pm::student_t_quantile_upper(0.0, nu), pm::infinity<double>());
    EXPECT_EQ(pm::student_t_quantile_upper(-1.0f, nu), pm::infinity<float>());
    EXPECT_EQ(pm::student_t_quantile_upper(1.0, nu), -pm::infinity<double>());
    EXPECT_TRUE(pm::is_nan(pm::student_t_quantile_upper(pm::quiet_nan<float>(), nu)));
    EXPECT_TRUE(pm::is_nan(pm::student_t_quantile_upper(pm::quiet_nan<double>(), nu)));
    EXPECT_TRUE(pm::is_nan(pm::student_t_quantile_upper(1.5, nu)));
    // q > 1/2: the symmetric point, 1 - q exact
    EXPECT_EQ(pm::student_t_quantile_upper(0.9, nu), -pm::student_t_quantile_upper(1 - 0.9, nu));
    EXPECT_EQ(pm::student_t_upper_tail(0.0, nu), 0.5);
    EXPECT_EQ(pm::student_t_upper_tail(pm::infinity<float>(), nu), 0.0f);
    EXPECT_EQ(pm::student_t_upper_tail(-pm::infinity<double>(), nu), 1.0);
    EXPECT_TRUE(pm::is_nan(pm::student_t_upper_tail(pm::quiet_nan<double>(), nu)));
    EXPECT_EQ(pm::student_t_log_pdf(pm::infinity<double>(), nu), -pm::infinity<double>());
    EXPECT_TRUE(pm::is_nan(pm::student_t_log_pdf(pm::quiet_nan<float>(), nu)));
    EXPECT_TRUE(pm::is_finite(pm::student_t_log_pdf(3e38f, nu)));
  }
  for (uint32_t nu : {0u, 1u, 2u, 33u, 63u, 65u, 66u}) EXPECT_FALSE(pm::student_t_dof_valid(nu));
}
