// SPDX-License-Identifier: Apache-2.0
// Owen's T by 16-point Gauss-Legendre (runtime/core/pbp/math/owens_t.hpp) in float and double
// against a long double reference: the same integral on 64 panels of 16 points each (each panel's
// rule error is then below long double rounding), itself checked against the closed forms
// T(h, 1) = Phi(h) Phi(-h) / 2 and T(0, a) = atan(a) / (2 pi).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "pbp/math.hpp"

namespace {

using Long = long double;

// The 16-point Gauss-Legendre rule in long double, by Newton's method on P_16 (independent of
// the runtime's double constants): the positive nodes and their weights.
struct LongRule {
  Long kNode[8], kWeight[8];
  LongRule() {
    constexpr int n = 16;
    for (int k = 0; k < 8; ++k) {
      Long x = std::cos(3.14159265358979323846264338327950288L * (k + 0.75L) / (n + 0.5L));
      Long derivative = 0;
      for (int iteration = 0; iteration < 100; ++iteration) {
        Long p0 = 1, p1 = x;  // P_0, P_1, then the recurrence up to P_n
        for (int j = 2; j <= n; ++j) {
          const Long p2 = ((2 * j - 1) * x * p1 - (j - 1) * p0) / j;
          p0 = p1;
          p1 = p2;
        }
        derivative = n * (x * p1 - p0) / (x * x - 1);
        x -= p1 / derivative;
      }
      kNode[k] = x;
      kWeight[k] = 2 / ((1 - x * x) * derivative * derivative);
    }
  }
};

// (1/2pi) int_lo^hi exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx, 64 panels x 16-point Gauss-Legendre.
Long reference_integral(Long h, Long lo, Long hi) {
  static const LongRule R;
  constexpr int kPanels = 64;
  const Long panel = (hi - lo) / kPanels;
  Long sum = 0;
  for (int p = 0; p < kPanels; ++p) {
    const Long centre = lo + (p + 0.5L) * panel;
    for (int k = 0; k < 8; ++k) {
      for (const Long x :
           {centre - 0.5L * panel * R.kNode[k], centre + 0.5L * panel * R.kNode[k]}) {
        const Long q = 1 + x * x;
        sum += R.kWeight[k] * 0.5L * panel * std::exp(-h * h * q / 2) / q;
      }
    }
  }
  return sum / (2 * 3.14159265358979323846264338327950288L);
}

Long normal_cdf(Long x) {
  return 0.5L * std::erfc(-x / std::sqrt(2.0L));
}

TEST(OwensT, ReferenceMatchesClosedForms) {
  // Long double's own rounding over ~2000 positive terms: ~1e-16 relative.
  for (const Long h : {0.0L, 0.25L, 1.0L, 2.5L, 5.0L, 8.0L}) {
    const Long expected = normal_cdf(h) * normal_cdf(-h) / 2;
    EXPECT_NEAR(static_cast<double>(reference_integral(h, 0, 1) / expected), 1.0, 1e-15) << h;
  }
  for (const Long a : {0.01L, 0.3L, 0.77L, 1.0L}) {
    const Long expected = std::atan(a) / (2 * 3.14159265358979323846264338327950288L);
    EXPECT_NEAR(static_cast<double>(reference_integral(0, 0, a) / expected), 1.0, 1e-15) << a;
  }
}

// The rule's truncation error, by P = h^2 (hi^2 - lo^2) / 2 (mpmath measurements in owens_t.hpp,
// taken x10), and the rounding: (4 + 12 h^2) ulp per term through exp's argument, 16 ulp for the
// sum, x4.
template <class T>
double error_bound(double h, double lo, double hi) {
  const double p = h * h * (hi * hi - lo * lo) / 2;
  const double truncation = p <= 20 ? 1e-15 : p <= 40 ? 1e-8 : 1e-5;
  const double ulp = static_cast<double>(std::numeric_limits<T>::epsilon()) / 2;
  return truncation + 4 * (20 + 12 * h * h) * ulp;
}

template <class T>
double worst_ratio_to_bound(const char* type) {
  double worst_ratio = 0, worst_error = 0;
  for (const double h : {0.0, 0.1, 0.5, 1.0, 2.0, 3.0, 4.5, 6.0}) {
    for (const double lo : {0.0, 0.2, 0.5, 0.9, 0.999}) {
      for (const double hi : {0.001, 0.3, 0.6, 0.95, 1.0}) {
        if (!(lo < hi)) continue;
        const Long expected = reference_integral(h, lo, hi);
        const T width = static_cast<T>(hi - lo);  // exact in double; the float case rounds it
        const Long used_width = static_cast<Long>(width);
        // Compare with the integral over the interval the float arguments describe.
        const Long exact = reference_integral(h, hi - used_width, hi);
        const T got = pbp::math::owens_t_difference(static_cast<T>(h), static_cast<T>(hi), width);
        const double error = static_cast<double>(std::fabs((got - exact) / exact));
        const double bound = error_bound<T>(h, static_cast<double>(hi - used_width), hi);
        EXPECT_LE(error, bound) << type << " h " << h << " [" << lo << ", " << hi << "]";
        worst_ratio = std::max(worst_ratio, error / bound);
        worst_error = std::max(worst_error, error);
        (void)expected;
      }
    }
  }
  std::printf("%s: max relative error %.3g (%.2f of its bound)\n", type, worst_error, worst_ratio);
  return worst_ratio;
}

TEST(OwensT, DoubleWithinItsErrorBound) {
  worst_ratio_to_bound<double>("double");
}

TEST(OwensT, FloatWithinItsErrorBound) {
  worst_ratio_to_bound<float>("float");
}

TEST(OwensT, EdgeCases) {
  EXPECT_EQ(pbp::math::owens_t_difference(1.5, 0.7, 0.0), 0.0);            // empty interval
  EXPECT_EQ(pbp::math::owens_t(static_cast<double>(INFINITY), 0.5), 0.0);  // exp(-inf) = 0
  EXPECT_TRUE(std::isnan(pbp::math::owens_t(static_cast<double>(NAN), 0.5)));
  EXPECT_TRUE(std::isnan(pbp::math::owens_t(0.5f, NAN)));
  // T(h, 1) = Phi(h) Phi(-h) / 2, also through owens_t's interval [0, 1].
  EXPECT_NEAR(
      pbp::math::owens_t(1.0, 1.0) / static_cast<double>(normal_cdf(1) * normal_cdf(-1) / 2), 1.0,
      1e-15);
}

}  // namespace
