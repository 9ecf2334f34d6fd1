// SPDX-License-Identifier: Apache-2.0
// The fixed-point ReLU moments of the int8 path (runtime/src/kernels/relu_moments_fixed.hpp) against the
// closed forms in long double: the tables are the roundings they say they are, and A, B, C are
// within the header's bounds (1e-6 sd for A, 1e-6 v for B and C, plus float32's rounding of the
// result) over alpha from -8 to 8 and v over 60 binades.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "kernels/relu_moments_fixed.hpp"

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

long double value(Wide w) {
  return w.m == 0 ? 0.0L : std::ldexp(static_cast<long double>(w.m), w.e);
}
bool normalised(Wide w) {
  return w.m == 0 || w.m >= 0x80000000u;
}

struct Values {
  long double mean, square, variance;
};
Values fixed(float m, float v) {
  const Moments r = relu_moments_fixed(m, v);
  EXPECT_TRUE(normalised(r.mean) && normalised(r.square) && normalised(r.variance));
  return {value(r.mean), value(r.square), value(r.variance)};
}

void expect_close(float m, float v) {
  const Values r = fixed(m, v);
  const Exact e = exact(m, v);
  const long double sd = std::sqrt(static_cast<long double>(v));
  // the bound, plus the results' own truncation to 32 bits (2^-31 relative; B's limit, m^2 + v,
  // three times)
  EXPECT_LE(std::fabs(r.mean - e.mean), 1e-6L * sd + 1e-9L * std::fabs(e.mean)) << m << " " << v;
  EXPECT_LE(std::fabs(r.square - e.square), 1e-6L * v + 2e-9L * e.square) << m << " " << v;
  EXPECT_LE(std::fabs(r.variance - e.variance), 1e-6L * v + 1e-9L * e.variance) << m << " " << v;
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
  const Values zero_variance_on = fixed(2.5f, 0.0f);
  EXPECT_EQ(zero_variance_on.mean, 2.5L);
  EXPECT_EQ(zero_variance_on.square, 6.25L);
  EXPECT_EQ(zero_variance_on.variance, 0.0L);
  const Values zero_variance_off = fixed(-2.5f, 0.0f);
  EXPECT_EQ(zero_variance_off.mean, 0.0L);
  EXPECT_EQ(zero_variance_off.square, 0.0L);
  EXPECT_EQ(zero_variance_off.variance, 0.0L);
  const Values zero_mean = fixed(0.0f, 4.0f);  // g(0) = phi(0), h(0) = 1/2
  EXPECT_NEAR(zero_mean.mean, 2.0 * 0.3989422804014327, 1e-6);
  EXPECT_NEAR(zero_mean.square, 2.0, 1e-6);
  EXPECT_NEAR(zero_mean.variance, 4.0 * (0.5 - 0.3989422804014327 * 0.3989422804014327), 1e-6);
  const Values far_on = fixed(100.0f, 1.0f);  // exact: 100 and 10001 fit 32 bits
  EXPECT_EQ(far_on.mean, 100.0L);
  EXPECT_EQ(far_on.square, 10001.0L);
  EXPECT_EQ(far_on.variance, 1.0L);
  const Values far_off = fixed(-100.0f, 1.0f);
  EXPECT_EQ(far_off.mean, 0.0L);
  // float's extremes: no overflow, no underflow to a wrong zero (the results are not floats)
  const float tiny = std::ldexp(1.0f, -149), huge = 3.0e38f;
  const Values small = fixed(tiny, tiny);
  EXPECT_GT(small.mean, 0.0L);
  const Values large = fixed(huge, huge);  // alpha = sqrt(huge): on; B = huge^2 + huge
  EXPECT_NEAR(large.square / (static_cast<long double>(huge) * huge), 1.0L, 1e-9L);
  const Values spread = fixed(0.0f, huge);
  EXPECT_NEAR(spread.mean / std::sqrt(static_cast<long double>(huge)), 0.3989422804014327L, 1e-6L);
  EXPECT_NEAR(spread.square / huge, 0.5L, 1e-6L);
}

}  // namespace
