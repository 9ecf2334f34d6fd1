// The fixed-point ReLU moments of the int8 path (runtime/src/relu_moments_fixed.hpp) against the
// closed forms in long double: the tables are the roundings they say they are, and A, B, C are
// within the header's bounds (1e-6 sd for A, 1e-6 v for B and C, plus float32's rounding of the
// result) over alpha from -8 to 8 and v over 60 binades.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "relu_moments_fixed.hpp"

namespace {
using namespace pbp::detail::relu_fixed;

long double cdf(long double a) {
  return 0.5L * std::erfc(-a / std::sqrt(2.0L));
}
long double pdf(long double a) {
  return std::exp(-0.5L * a * a) / std::sqrt(2.0L * 3.14159265358979323846264338327950288L);
}

TEST(ReluFixedTable, NodesAreRoundedClosedForms) {
  for (int32_t i = 0; i < kNodes; ++i) {
    const long double a = -6.0L + i / 8.0L;
    EXPECT_LE(std::fabs(kCdf[i] - std::ldexp(cdf(a), 30)), 0.5L + 1e-6L) << i;
    EXPECT_LE(std::fabs(kPdf[i] - std::ldexp(pdf(a), 30)), 0.5L + 1e-6L) << i;
    EXPECT_LE(std::fabs(kPartialMean[i] - std::ldexp(a * cdf(a) + pdf(a), 28)), 0.5L + 1e-6L) << i;
  }
  for (int32_t k = 0; k < kSeeds; ++k) {
    const long double x = (k + 64 + 0.5L) / 256.0L;
    EXPECT_LE(std::fabs(kRsqrtSeed[k] - std::ldexp(1.0L / std::sqrt(x), 15)), 0.5L + 1e-6L) << k;
  }
}

struct Exact {
  long double mean, square, variance;
};
Exact exact(long double m, long double v) {
  const long double sd = std::sqrt(v), a = m / sd;
  const long double g = a * cdf(a) + pdf(a), h = a * g + cdf(a);
  // h - g^2 cancels about 6 bits at alpha = 8: long double keeps 58
  return {sd * g, v * h, v * (h - g * g)};
}

void expect_close(float m, float v) {
  const Moments r = relu_moments_fixed(m, v);
  const Exact e = exact(m, v);
  const long double sd = std::sqrt(static_cast<long double>(v));
  // the bound, plus the result's own rounding to float (half an ulp, 2^-24 relative; B twice
  // where alpha >= 6: fl(fl(m m) + v))
  EXPECT_LE(std::fabs(r.mean - e.mean), 1e-6L * sd + 6e-8L * std::fabs(e.mean)) << m << " " << v;
  EXPECT_LE(std::fabs(r.square - e.square), 1e-6L * v + 1.2e-7L * e.square) << m << " " << v;
  EXPECT_LE(std::fabs(r.variance - e.variance), 1e-6L * v + 6e-8L * e.variance) << m << " " << v;
  EXPECT_GE(r.variance, 0.0f);
}

TEST(ReluFixed, WithinTheStatedBoundsOverAlphaAndScale) {
  for (int binade = -30; binade <= 30; binade += 3) {
    const float v = std::ldexp(1.37f, binade);
    const float sd = std::sqrt(v);
    for (int step = -1600; step <= 1600; step += 7) {  // alpha from -8 to 8, every table cell
      expect_close(static_cast<float>(step / 200.0 * sd), v);
    }
  }
}

TEST(ReluFixed, DeterministicAndLimitCases) {
  const Moments zero_variance_on = relu_moments_fixed(2.5f, 0.0f);
  EXPECT_EQ(zero_variance_on.mean, 2.5f);
  EXPECT_EQ(zero_variance_on.square, 6.25f);
  EXPECT_EQ(zero_variance_on.variance, 0.0f);
  const Moments zero_variance_off = relu_moments_fixed(-2.5f, 0.0f);
  EXPECT_EQ(zero_variance_off.mean, 0.0f);
  EXPECT_EQ(zero_variance_off.square, 0.0f);
  EXPECT_EQ(zero_variance_off.variance, 0.0f);
  const Moments zero_mean = relu_moments_fixed(0.0f, 4.0f);  // g(0) = phi(0), h(0) = 1/2
  EXPECT_NEAR(zero_mean.mean, 2.0 * 0.3989422804014327, 1e-6);
  EXPECT_NEAR(zero_mean.square, 2.0, 1e-6);
  EXPECT_NEAR(zero_mean.variance, 4.0 * (0.5 - 0.3989422804014327 * 0.3989422804014327), 1e-6);
  const Moments far_on = relu_moments_fixed(100.0f, 1.0f);
  EXPECT_EQ(far_on.mean, 100.0f);
  EXPECT_EQ(far_on.square, 10001.0f);
  EXPECT_EQ(far_on.variance, 1.0f);
  const Moments far_off = relu_moments_fixed(-100.0f, 1.0f);
  EXPECT_EQ(far_off.mean, 0.0f);
  // the smallest and largest magnitudes neither trap nor leave float's range wrongly
  const float tiny = std::ldexp(1.0f, -149), huge = 3.0e38f;
  const Moments small = relu_moments_fixed(tiny, tiny);
  EXPECT_TRUE(std::isfinite(small.mean) && small.mean >= 0.0f);
  const Moments large = relu_moments_fixed(0.0f, huge);
  EXPECT_TRUE(std::isfinite(large.mean));
  EXPECT_NEAR(large.mean / std::sqrt(huge), 0.3989422804014327, 1e-6);
  EXPECT_NEAR(large.square / huge, 0.5, 1e-6);  // h(0) v = 1.5e38: still finite
}

TEST(ReluFixed, NonFiniteMomentsAreRefused) {
  float mean[2] = {1.0f, NAN}, var[2] = {1.0f, 1.0f}, c[2];
  EXPECT_FALSE(relu_moments_fixed_inplace(2, mean, var, c));
  float mean2[2] = {1.0f, 2.0f}, var2[2] = {1.0f, INFINITY};
  EXPECT_FALSE(relu_moments_fixed_inplace(2, mean2, var2, c));
  float mean3[2] = {1.0f, -2.0f}, var3[2] = {1.0f, 0.5f};
  EXPECT_TRUE(relu_moments_fixed_inplace(2, mean3, var3, c));
}

}  // namespace
