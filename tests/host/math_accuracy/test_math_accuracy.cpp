// SPDX-License-Identifier: Apache-2.0
// Accuracy sweeps of pbp::math against binary128 references (GCC's libquadmath, or long double
// where that is binary128, as on AArch64): ~10^6 points per function and precision. Prints the
// measured max ulp per function and fails if a goal of the runtime's math spec is exceeded.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#if PBP_REFERENCE_LONG_DOUBLE
static_assert(LDBL_MANT_DIG == 113, "the references need long double to be IEEE binary128");
#else
#include <quadmath.h>
#endif

#include "pbp/math.hpp"

namespace {

#if PBP_REFERENCE_LONG_DOUBLE
// GCC has no __float128 on AArch64; glibc's long double functions there are binary128, from the
// same sources as libquadmath. Named as libquadmath's so that the references read the same.
using Q = long double;
Q acosq(Q x) {
  return std::acos(x);
}
Q erfcq(Q x) {
  return std::erfc(x);
}
Q erfq(Q x) {
  return std::erf(x);
}
Q expq(Q x) {
  return std::exp(x);
}
Q fabsq(Q x) {
  return std::fabs(x);
}
int ilogbq(Q x) {
  return std::ilogb(x);
}
bool isnanq(Q x) {
  return std::isnan(x);
}
Q ldexpq(Q x, int e) {
  return std::ldexp(x, e);
}
Q log1pq(Q x) {
  return std::log1p(x);
}
Q logq(Q x) {
  return std::log(x);
}
Q sqrtq(Q x) {
  return std::sqrt(x);
}
#else
using Q = __float128;
#endif
namespace pm = pbp::math;

constexpr int kPoints = 1000000;

// splitmix64: deterministic, portable.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  double uniform(double a, double b) { return a + (b - a) * uniform(); }
  // log-uniform magnitude in [lo, hi] (both > 0)
  double log_uniform(double lo, double hi) {
    return static_cast<double>(expq(logq(lo) + (logq(hi) - logq(lo)) * uniform()));
  }
};

template <typename T>
constexpr int kPrecision = std::numeric_limits<T>::digits;
template <typename T>
constexpr int kMinExponent = std::numeric_limits<T>::min_exponent - 1;  // of the MSB

// |y - ref| in units of the last place of T at ref (subnormal spacing below the normal range).
template <typename T>
double ulp_error(T y, Q ref) {
  if (isnanq(ref)) return (y != y) ? 0.0 : 1e30;
  if (y != y) return 1e30;
  const Q max_t = static_cast<Q>(std::numeric_limits<T>::max());
  if (fabsq(ref) > max_t * (1 + static_cast<Q>(std::numeric_limits<T>::epsilon()) / 2)) {
    // ref overflows T: expect inf of the right sign
    return (y == (ref > 0 ? 1 : -1) * std::numeric_limits<T>::infinity()) ? 0.0 : 1e30;
  }
  if (ref == 0) return y == 0 ? 0.0 : 1e30;
  int e = ilogbq(ref);
  if (e < kMinExponent<T>) e = kMinExponent<T>;
  const Q ulp = ldexpq(static_cast<Q>(1), e - (kPrecision<T> - 1));
  return static_cast<double>(fabsq(static_cast<Q>(y) - ref) / ulp);
}

// ---- binary128 references ---------------------------------------------------------------
Q kPi() {
  return acosq(static_cast<Q>(-1));
}
Q kSqrt2() {
  return sqrtq(static_cast<Q>(2));
}
Q ref_erfcx(Q x) {
  if (x < 100) return expq(x * x) * erfcq(x);
  Q inv2x2 = 1 / (2 * x * x), term = 1, sum = 1;
  for (int n = 1; n < 12; ++n) {
    term *= -(2 * n - 1) * inv2x2;
    sum += term;
  }
  return sum / (x * sqrtq(kPi()));
}
Q ref_cdf(Q x) {
  return erfcq(-x / kSqrt2()) / 2;
}
Q ref_pdf(Q x) {
  return expq(-x * x / 2) / sqrtq(2 * kPi());
}
Q ref_log_cdf(Q x) {
  if (x < -5) return -x * x / 2 + logq(ref_erfcx(-x / kSqrt2()) / 2);
  return log1pq(-ref_cdf(-x));
}
Q ref_ratio(Q x) {
  if (x < 0) return sqrtq(2 / kPi()) / ref_erfcx(-x / kSqrt2());
  return ref_pdf(x) / ref_cdf(x);
}
// One Newton step from a good approximation x of Phi^-1(p) (quadratic: exact to ~1e-30).
Q ref_quantile(Q p, Q x) {
  if (p > static_cast<Q>(0.5)) return -ref_quantile(1 - p, -x);
  if (p > static_cast<Q>(0.15)) {
    for (int i = 0; i < 2; ++i)
      x -= (erfq(x / kSqrt2()) / 2 - (p - static_cast<Q>(0.5))) / ref_pdf(x);
    return x;
  }
  for (int i = 0; i < 2; ++i) x -= (ref_log_cdf(x) - logq(p)) / ref_ratio(x);
  return x;
}

struct Result {
  double max_ulp = 0;
  double worst_x = 0;
};

template <typename T, typename F, typename R, typename G>
Result sweep(F f, R ref, G gen, int n = kPoints) {
  Rng rng{0x1234567u};
  Result r;
  for (int i = 0; i < n; ++i) {
    const T x = static_cast<T>(gen(rng));
    const double e = ulp_error<T>(f(x), ref(static_cast<Q>(x)));
    if (e > r.max_ulp) {
      r.max_ulp = e;
      r.worst_x = static_cast<double>(x);
    }
  }
  return r;
}

void report(const char* name, const char* type, const Result& r) {
  std::printf("[math_accuracy] %-34s %-6s max %.3f ulp (at x = %.17g)\n", name, type, r.max_ulp,
              r.worst_x);
}

template <typename T>
const char* type_name() {
  return sizeof(T) == 4 ? "float" : "double";
}

#define PBP_SWEEP(T, NAME, GOAL, FN, REF, GEN)                         \
  do {                                                                 \
    const Result r_ = sweep<T>(FN, REF, GEN);                          \
    report(NAME, type_name<T>(), r_);                                  \
    EXPECT_LE(r_.max_ulp, GOAL) << NAME << " worst at " << r_.worst_x; \
  } while (0)

template <typename T>
void exp_log_sweeps() {
  const bool f = sizeof(T) == 4;
  PBP_SWEEP(
      T, "exp", 2.0, [](T x) { return pm::exp(x); }, [](Q x) { return expq(x); },
      [f](Rng& g) { return f ? g.uniform(-103.9, 88.72) : g.uniform(-745.1, 709.78); });
  PBP_SWEEP(
      T, "exp (|x| < 1)", 2.0, [](T x) { return pm::exp(x); }, [](Q x) { return expq(x); },
      [](Rng& g) { return g.uniform(-1, 1); });
  PBP_SWEEP(
      T, "log", 2.0, [](T x) { return pm::log(x); }, [](Q x) { return logq(x); },
      [f](Rng& g) { return f ? g.log_uniform(1e-45, 3e38) : g.log_uniform(5e-324, 1e308); });
  PBP_SWEEP(
      T, "log (0.5 < x < 2)", 2.0, [](T x) { return pm::log(x); }, [](Q x) { return logq(x); },
      [](Rng& g) { return g.uniform(0.5, 2); });
}

template <typename T>
void erfcx_sweeps() {
  const bool f = sizeof(T) == 4;
  PBP_SWEEP(
      T, "erfcx (0 <= x < 30)", 2.0, [](T x) { return pm::erfcx(x); }, ref_erfcx,
      [](Rng& g) { return g.uniform(0, 30); });
  PBP_SWEEP(
      T, "erfcx (1e-12 < x < 1e30)", 2.0, [](T x) { return pm::erfcx(x); }, ref_erfcx,
      [](Rng& g) { return g.log_uniform(1e-12, 1e30); });
  PBP_SWEEP(
      T, "erfcx (x < 0)", 2.0, [](T x) { return pm::erfcx(x); }, ref_erfcx,
      [f](Rng& g) { return f ? g.uniform(-9.3, 0) : g.uniform(-26.6, 0); });
}

template <typename T>
void normal_sweeps() {
  const bool f = sizeof(T) == 4;
  const double lo = f ? -13.0 : -37.4;  // Phi(x) still a normal number
  PBP_SWEEP(
      T, "normal_pdf", 2.0, [](T x) { return pm::normal_pdf(x); }, ref_pdf,
      [f](Rng& g) { return f ? g.uniform(-13.1, 13.1) : g.uniform(-37.5, 37.5); });
  PBP_SWEEP(
      T, "normal_cdf (x < 0, relative)", 2.0, [](T x) { return pm::normal_cdf(x); }, ref_cdf,
      [lo](Rng& g) { return g.uniform(lo, 0); });
  // x >= 0: absolute error in units of ulp(1)
  {
    Rng rng{42};
    double worst = 0, wx = 0;
    for (int i = 0; i < kPoints; ++i) {
      const T x = static_cast<T>(rng.uniform(0, f ? 8.0 : 8.5));
      const Q err = fabsq(static_cast<Q>(pm::normal_cdf(x)) - ref_cdf(static_cast<Q>(x)));
      const double e = static_cast<double>(err / static_cast<Q>(std::numeric_limits<T>::epsilon()));
      if (e > worst) worst = e, wx = static_cast<double>(x);
    }
    report("normal_cdf (x >= 0, abs, ulp(1))", type_name<T>(), Result{worst, wx});
    EXPECT_LE(worst, 1.0);
  }
  PBP_SWEEP(
      T, "normal_pdf_over_cdf", 2.0, [](T x) { return pm::normal_pdf_over_cdf(x); }, ref_ratio,
      [f](Rng& g) { return f ? g.uniform(-40, 13) : g.uniform(-40, 37); });
  PBP_SWEEP(
      T, "normal_pdf_over_cdf (-1e4 < x < -1)", 2.0, [](T x) { return pm::normal_pdf_over_cdf(x); },
      ref_ratio, [](Rng& g) { return -g.log_uniform(1, 1e4); });
  PBP_SWEEP(
      T, "log_normal_cdf (-40 < x < 40)", 2.0, [](T x) { return pm::log_normal_cdf(x); },
      ref_log_cdf, [f](Rng& g) { return f ? g.uniform(-40, 13) : g.uniform(-40, 37); });
  PBP_SWEEP(
      T, "log_normal_cdf (-1e4 < x < -1)", 2.0, [](T x) { return pm::log_normal_cdf(x); },
      ref_log_cdf, [](Rng& g) { return -g.log_uniform(1, 1e4); });
}

// The trainer's ReLU kernel (math::detail::normal_tails_fast, double) and its exp: Phi(x), Phi(-x)
// and phi(x)/Phi(x), relative wherever the reference is a normal number. Uncompensated, so its goal
// is a few ulp rather than normal_tails' <= 2.6 (the training loops need ~1e-10 at most).
void normal_tails_fast_sweeps() {
  namespace pd = pm::detail;
  PBP_SWEEP(
      double, "half_exp_nonpositive (its exp / 2)", 2.0,
      [](double x) { return pd::half_exp_nonpositive(x, 0.0); }, [](Q x) { return expq(x) / 2; },
      [](Rng& g) { return g.uniform(-745, 0); });
  PBP_SWEEP(
      double, "normal_tails_fast: Phi(x)", 16.0,
      [](double x) { return pd::normal_tails_fast(x).cdf; }, ref_cdf,
      [](Rng& g) { return g.uniform(-37.4, 37.4); });
  PBP_SWEEP(
      double, "normal_tails_fast: Phi(-x)", 16.0,
      [](double x) { return pd::normal_tails_fast(x).cdf_minus; }, [](Q x) { return ref_cdf(-x); },
      [](Rng& g) { return g.uniform(-37.4, 37.4); });
  PBP_SWEEP(
      double, "normal_tails_fast: phi/Phi", 16.0,
      [](double x) { return pd::normal_tails_fast(x).pdf_over_cdf; }, ref_ratio,
      [](Rng& g) { return g.uniform(-40, 37); });
  PBP_SWEEP(
      double, "normal_tails_fast: phi/Phi (-1e6 < x < -1)", 16.0,
      [](double x) { return pd::normal_tails_fast(x).pdf_over_cdf; }, ref_ratio,
      [](Rng& g) { return -g.log_uniform(1, 1e6); });
}

template <typename T>
void quantile_sweeps() {
  const bool f = sizeof(T) == 4;
  auto run = [&](const char* name, auto gen) {
    Rng rng{77};
    double worst = 0, wx = 0;
    for (int i = 0; i < kPoints / 4; ++i) {
      const T p = static_cast<T>(gen(rng));
      if (!(p > 0 && p < 1)) continue;
      const T x = pm::normal_quantile(p);
      const double e = ulp_error<T>(x, ref_quantile(static_cast<Q>(p), static_cast<Q>(x)));
      if (e > worst) worst = e, wx = static_cast<double>(p);
    }
    report(name, type_name<T>(), Result{worst, wx});
    EXPECT_LE(worst, 4.0) << name << " worst at p = " << wx;
  };
  run("normal_quantile (0 < p < 1)", [](Rng& g) { return g.uniform(); });
  run("normal_quantile (tail, log-uniform p)",
      [f](Rng& g) { return g.log_uniform(f ? 1e-45 : 5e-324, 0.5); });
  run("normal_quantile (upper tail)", [](Rng& g) { return 1 - g.log_uniform(1e-16, 0.5); });
}

}  // namespace

TEST(MathAccuracy, ExpLogFloat) {
  exp_log_sweeps<float>();
}
TEST(MathAccuracy, ExpLogDouble) {
  exp_log_sweeps<double>();
}
TEST(MathAccuracy, ErfcxFloat) {
  erfcx_sweeps<float>();
}
TEST(MathAccuracy, ErfcxDouble) {
  erfcx_sweeps<double>();
}
TEST(MathAccuracy, NormalFloat) {
  normal_sweeps<float>();
}
TEST(MathAccuracy, NormalDouble) {
  normal_sweeps<double>();
}
TEST(MathAccuracy, NormalTailsFastDouble) {
  normal_tails_fast_sweeps();
}
TEST(MathAccuracy, QuantileFloat) {
  quantile_sweeps<float>();
}
TEST(MathAccuracy, QuantileDouble) {
  quantile_sweeps<double>();
}

TEST(MathAccuracy, SqrtIntegerPathMatchesHardware) {
  Rng rng{99};
  int mismatches = 0;
  for (int i = 0; i < kPoints; ++i) {
    const uint64_t b = rng.next();
    uint32_t b32 = static_cast<uint32_t>(b);
    float xf;
    double xd;
    std::memcpy(&xf, &b32, 4);
    std::memcpy(&xd, &b, 8);
    const float hf = __builtin_sqrtf(xf), sf = pm::detail::sqrt_integer(xf);
    const double hd = __builtin_sqrt(xd), sd = pm::detail::sqrt_integer(xd);
    const bool okf = (hf != hf) ? (sf != sf) : std::memcmp(&hf, &sf, 4) == 0;
    const bool okd = (hd != hd) ? (sd != sd) : std::memcmp(&hd, &sd, 8) == 0;
    mismatches += !okf + !okd;
  }
  std::printf("[math_accuracy] sqrt integer path vs hardware: %d mismatches in %d x 2\n",
              mismatches, kPoints);
  EXPECT_EQ(mismatches, 0);
}
