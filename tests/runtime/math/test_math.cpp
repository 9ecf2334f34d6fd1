// SPDX-License-Identifier: Apache-2.0
// Portable tests of pbp::math (runs on the host and on every target under QEMU): special
// values, extremes, monotonicity, correctly rounded references (reference_values.h, generated
// by tools/scripts/gen_math_coefficients.py with mpmath) and sqrt's integer path.
#include <stdint.h>
#include <stdio.h>

#include "harness.hpp"
#include "pbp/math.hpp"
#include "reference_values.h"

namespace pm = pbp::math;

namespace {

// Distance in ulps between two finite values of the same type (monotone integer mapping).
int64_t ordered(float x) {
  const int32_t b = static_cast<int32_t>(pbp_test::float_bits(x));
  return b < 0 ? static_cast<int64_t>(INT32_MIN) - b : b;
}
int64_t ordered(double x) {
  const int64_t b = static_cast<int64_t>(pbp_test::double_bits(x));
  return b < 0 ? INT64_MIN - b : b;
}
template <typename T>
int64_t ulp_distance(T a, T b) {
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

float float_from_bits(uint32_t b) {
  return pbp::math::detail::from_bits<float>(b);
}
double double_from_bits(uint64_t b) {
  return pbp::math::detail::from_bits<double>(b);
}

using FloatFn = float (*)(float);
using DoubleFn = double (*)(double);

// Checks every reference row; returns the max ulp distance seen (float, double).
template <int N>
void check_table(const char* name, const PbpMathReference (&table)[N], FloatFn f, DoubleFn d,
                 int64_t tolerance) {
  int64_t worst_f = 0, worst_d = 0;
  for (int i = 0; i < N; ++i) {
    const float rf = float_from_bits(table[i].result_float_bits);
    const double rd = double_from_bits(table[i].result_double_bits);
    const float yf = f(table[i].x_float);
    const double yd = d(table[i].x_double);
    const int64_t ef = ulp_distance(yf, rf), ed = ulp_distance(yd, rd);
    if (ef > tolerance)
      printf("  %s(float %.9g) = %.9g, expected %.9g (%lld ulp)\n", name,
             static_cast<double>(table[i].x_float), static_cast<double>(yf),
             static_cast<double>(rf), static_cast<long long>(ef));
    if (ed > tolerance)
      printf("  %s(double %.17g) = %.17g, expected %.17g (%lld ulp)\n", name, table[i].x_double, yd,
             rd, static_cast<long long>(ed));
    PBP_CHECK(ef <= tolerance);
    PBP_CHECK(ed <= tolerance);
    worst_f = ef > worst_f ? ef : worst_f;
    worst_d = ed > worst_d ? ed : worst_d;
  }
  pbp_test::note("%s: max %lld ulp (float), %lld ulp (double) over %d references", name,
                 static_cast<long long>(worst_f), static_cast<long long>(worst_d), N);
}

template <typename T>
T inf() {
  return pm::infinity<T>();
}
template <typename T>
T nan() {
  return pm::quiet_nan<T>();
}

uint64_t g_rng = 0x9e3779b97f4a7c15ull;
[[maybe_unused]] uint64_t next_random() {  // xorshift64*
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return g_rng * 0x2545f4914f6cdd1dull;
}

}  // namespace

PBP_TEST(classification_and_special_values) {
  PBP_CHECK(pm::is_nan(nan<float>()) && pm::is_nan(nan<double>()));
  PBP_CHECK(!pm::is_nan(inf<float>()) && !pm::is_nan(-inf<double>()));
  PBP_CHECK(!pm::is_finite(inf<float>()) && !pm::is_finite(nan<double>()));
  PBP_CHECK(pm::is_finite(1e-45f) && pm::is_finite(-5e-324) && pm::is_finite(3.4e38f));
  PBP_CHECK(!pm::is_nan(0.0f) && !pm::is_nan(-0.0));
  PBP_CHECK(pbp_test::float_bits(inf<float>()) == 0x7f800000u);
  PBP_CHECK(pbp_test::double_bits(nan<double>()) == 0x7ff8000000000000ull);
  PBP_CHECK(pm::is_nan(float_from_bits(0xffc00001u)));  // negative NaN with payload
}

template <typename T>
void special_values() {
  const T zero = 0, one = 1;
  // exp
  PBP_CHECK(pm::exp(zero) == one);
  PBP_CHECK(pm::exp(inf<T>()) == inf<T>());
  PBP_CHECK(pm::exp(-inf<T>()) == zero);
  PBP_CHECK(pm::exp(static_cast<T>(1000)) == inf<T>());
  PBP_CHECK(pm::exp(static_cast<T>(-1000)) == zero);
  PBP_CHECK(pm::is_nan(pm::exp(nan<T>())));
  PBP_CHECK(pm::exp(static_cast<T>(-745)) >= zero);
  // log
  PBP_CHECK(pm::log(one) == zero);
  PBP_CHECK(pm::log(zero) == -inf<T>());
  PBP_CHECK(pm::log(-zero) == -inf<T>());
  PBP_CHECK(pm::is_nan(pm::log(-one)));
  PBP_CHECK(pm::log(inf<T>()) == inf<T>());
  PBP_CHECK(pm::is_nan(pm::log(nan<T>())));
  const T tiny =
      sizeof(T) == 4 ? static_cast<T>(1.40129846e-45f) : static_cast<T>(4.9406564584124654e-324);
  const T log_tiny = sizeof(T) == 4 ? static_cast<T>(-103.278929903431851103)
                                    : static_cast<T>(-744.440071921381262315);
  PBP_CHECK(ulp_distance(pm::log(tiny), log_tiny) <= 1);  // smallest subnormal
  // sqrt
  PBP_CHECK(pm::sqrt(static_cast<T>(4)) == static_cast<T>(2));
  PBP_CHECK(pm::sqrt(inf<T>()) == inf<T>());
  PBP_CHECK(pm::is_nan(pm::sqrt(-one)) && pm::is_nan(pm::sqrt(nan<T>())));
  PBP_CHECK(pm::sqrt(-zero) == zero);
  // erfcx
  PBP_CHECK(pm::erfcx(zero) == one);
  PBP_CHECK(pm::erfcx(inf<T>()) == zero);
  PBP_CHECK(pm::erfcx(-inf<T>()) == inf<T>());
  PBP_CHECK(pm::erfcx(static_cast<T>(-30)) == inf<T>());
  PBP_CHECK(pm::is_nan(pm::erfcx(nan<T>())));
  const T big = sizeof(T) == 4 ? static_cast<T>(1e30f) : static_cast<T>(1e300);
  PBP_CHECK(pm::erfcx(big) > zero && pm::erfcx(big) < one / big);
  // normal
  PBP_CHECK(pm::normal_pdf(inf<T>()) == zero && pm::normal_pdf(-inf<T>()) == zero);
  PBP_CHECK(pm::is_nan(pm::normal_pdf(nan<T>())));
  PBP_CHECK(pm::normal_cdf(zero) == static_cast<T>(0.5));
  PBP_CHECK(pm::normal_cdf(-inf<T>()) == zero && pm::normal_cdf(inf<T>()) == one);
  PBP_CHECK(pm::normal_cdf(static_cast<T>(-1e6)) == zero &&
            pm::normal_cdf(static_cast<T>(1e6)) == one);
  PBP_CHECK(pm::is_nan(pm::normal_cdf(nan<T>())));
  PBP_CHECK(pm::normal_pdf_over_cdf(-inf<T>()) == inf<T>());
  PBP_CHECK(pm::normal_pdf_over_cdf(inf<T>()) == zero);
  PBP_CHECK(pm::is_nan(pm::normal_pdf_over_cdf(nan<T>())));
  PBP_CHECK(pm::log_normal_cdf(-inf<T>()) == -inf<T>());
  PBP_CHECK(pm::log_normal_cdf(inf<T>()) == zero);
  PBP_CHECK(pm::is_nan(pm::log_normal_cdf(nan<T>())));
  PBP_CHECK(pm::normal_quantile(zero) == -inf<T>() && pm::normal_quantile(one) == inf<T>());
  PBP_CHECK(pm::normal_quantile(static_cast<T>(0.5)) == zero);
  PBP_CHECK(pm::is_nan(pm::normal_quantile(-one)) &&
            pm::is_nan(pm::normal_quantile(static_cast<T>(2))));
  PBP_CHECK(pm::is_nan(pm::normal_quantile(nan<T>())));
}

PBP_TEST(special_values_float) {
  special_values<float>();
}
PBP_TEST(special_values_double) {
  special_values<double>();
}

template <typename T>
void extremes() {
  // The ReLU moment ratio and log Phi deep in the lower tail: finite, ~ -x and ~ -x^2/2.
  const T xs[] = {static_cast<T>(-1e4), static_cast<T>(-3000), static_cast<T>(-100),
                  static_cast<T>(-40), static_cast<T>(-38.5)};
  for (T x : xs) {
    const T g = pm::normal_pdf_over_cdf(x);
    PBP_CHECK(pm::is_finite(g) && g >= -x && g < -x * static_cast<T>(1.001) + static_cast<T>(0.1));
    const T l = pm::log_normal_cdf(x);
    PBP_CHECK(pm::is_finite(l) && l < static_cast<T>(-0.5) * x * x);
  }
  // gamma(-1e4) = 10000.0001 (x + 1/x correction), log Phi(-1e4) = -50000013.134...
  PBP_CHECK(ulp_distance(pm::normal_pdf_over_cdf(static_cast<T>(-1e4)),
                         static_cast<T>(10000.000099999998)) <= 2);
  PBP_CHECK(ulp_distance(pm::log_normal_cdf(static_cast<T>(-1e4)),
                         static_cast<T>(-50000010.1292789)) <= 2);
  // Upper side: no -inf, no NaN, tends to 0 from below.
  const T ys[] = {static_cast<T>(8), static_cast<T>(20), static_cast<T>(37), static_cast<T>(40),
                  static_cast<T>(1e10)};
  for (T y : ys) {
    const T l = pm::log_normal_cdf(y);
    PBP_CHECK(pm::is_finite(l) && l <= static_cast<T>(0));
    const T g = pm::normal_pdf_over_cdf(y);
    PBP_CHECK(pm::is_finite(g) && g >= static_cast<T>(0));
  }
  // Subnormal arguments behave like zero where they should.
  const T sub = sizeof(T) == 4 ? static_cast<T>(1e-40f) : static_cast<T>(1e-310);
  PBP_CHECK(pm::exp(sub) == static_cast<T>(1) && pm::exp(-sub) == static_cast<T>(1));
  PBP_CHECK(pm::erfcx(sub) == static_cast<T>(1));
  PBP_CHECK(pm::normal_cdf(sub) == static_cast<T>(0.5));
  PBP_CHECK(pm::normal_quantile(sub) < static_cast<T>(-12));
  PBP_CHECK(pm::is_finite(pm::log(sub)));
  // Results in the subnormal range are still produced (exp, normal_cdf).
  PBP_CHECK(pm::exp(static_cast<T>(sizeof(T) == 4 ? -100 : -740)) > static_cast<T>(0));
  PBP_CHECK(pm::normal_cdf(static_cast<T>(sizeof(T) == 4 ? -13.5 : -38)) > static_cast<T>(0));
}

PBP_TEST(extremes_float) {
  extremes<float>();
}
PBP_TEST(extremes_double) {
  extremes<double>();
}

template <typename T>
void monotonicity() {
  T prev_cdf = 0, prev_log = -inf<T>(), prev_ratio = inf<T>(), prev_pdf = 0;
  int bad = 0;
  for (int i = -4000; i <= 1000; ++i) {
    const T x = static_cast<T>(i) * static_cast<T>(0.01);
    const T c = pm::normal_cdf(x), l = pm::log_normal_cdf(x), r = pm::normal_pdf_over_cdf(x);
    bad += c < prev_cdf || l < prev_log || r > prev_ratio;
    if (x <= 0) bad += pm::normal_pdf(x) < prev_pdf;
    prev_cdf = c;
    prev_log = l;
    prev_ratio = r;
    prev_pdf = pm::normal_pdf(x);
  }
  PBP_CHECK(bad == 0);
  T prev_q = -inf<T>();
  bad = 0;
  for (int i = 1; i < 1000; ++i) {
    const T q = pm::normal_quantile(static_cast<T>(i) * static_cast<T>(0.001));
    bad += q < prev_q;
    prev_q = q;
  }
  PBP_CHECK(bad == 0);
  // Round trips: Phi^-1(Phi(x)) ~ x away from the flat upper region.
  int64_t worst = 0;
  const int lowest = sizeof(T) == 4 ? -125 : -370;  // Phi(x) still a normal number
  for (int i = lowest; i <= 0; ++i) {
    const T x = static_cast<T>(i) * static_cast<T>(0.1);
    if (x == 0) continue;
    const int64_t d = ulp_distance(pm::normal_quantile(pm::normal_cdf(x)), x);
    worst = d > worst ? d : worst;
  }
  pbp_test::note("%s: quantile(cdf(x)) round trip on [%.1f, 0): max %lld ulp",
                 sizeof(T) == 4 ? "float" : "double", lowest * 0.1, static_cast<long long>(worst));
  PBP_CHECK(worst <= (sizeof(T) == 4 ? 64 : 64));  // cdf rounding is amplified by 1/(x gamma)
}

PBP_TEST(monotonicity_float) {
  monotonicity<float>();
}
PBP_TEST(monotonicity_double) {
  monotonicity<double>();
}

__attribute__((noinline)) float ref_exp_f(float x) {
  return pm::exp(x);
}
__attribute__((noinline)) double ref_exp_d(double x) {
  return pm::exp(x);
}
// Out-of-line wrappers: keep each function in its own frame (the Cortex-M0 board has a 4 KiB
// stack, and everything inlined into one test function would not fit).
__attribute__((noinline)) float sqrt_f(float x) {
  return pm::sqrt(x);
}
__attribute__((noinline)) double sqrt_d(double x) {
  return pm::sqrt(x);
}
__attribute__((noinline)) float ref_log_f(float x) {
  return pm::log(x);
}
__attribute__((noinline)) double ref_log_d(double x) {
  return pm::log(x);
}
__attribute__((noinline)) float erfcx_f(float x) {
  return pm::erfcx(x);
}
__attribute__((noinline)) double erfcx_d(double x) {
  return pm::erfcx(x);
}
__attribute__((noinline)) float pdf_f(float x) {
  return pm::normal_pdf(x);
}
__attribute__((noinline)) double pdf_d(double x) {
  return pm::normal_pdf(x);
}
__attribute__((noinline)) float cdf_f(float x) {
  return pm::normal_cdf(x);
}
__attribute__((noinline)) double cdf_d(double x) {
  return pm::normal_cdf(x);
}
__attribute__((noinline)) float ratio_f(float x) {
  return pm::normal_pdf_over_cdf(x);
}
__attribute__((noinline)) double ratio_d(double x) {
  return pm::normal_pdf_over_cdf(x);
}
__attribute__((noinline)) float logcdf_f(float x) {
  return pm::log_normal_cdf(x);
}
__attribute__((noinline)) double logcdf_d(double x) {
  return pm::log_normal_cdf(x);
}
__attribute__((noinline)) float quantile_f(float x) {
  return pm::normal_quantile(x);
}
__attribute__((noinline)) double quantile_d(double x) {
  return pm::normal_quantile(x);
}

PBP_TEST(reference_values) {
  check_table("exp", kReference_exp, ref_exp_f, ref_exp_d, 1);
  check_table("log", kReference_log, ref_log_f, ref_log_d, 1);
  check_table("erfcx", kReference_erfcx, erfcx_f, erfcx_d, 2);
  check_table("normal_pdf", kReference_normal_pdf, pdf_f, pdf_d, 1);
  check_table("normal_cdf", kReference_normal_cdf, cdf_f, cdf_d, 2);
  check_table("normal_pdf_over_cdf", kReference_normal_pdf_over_cdf, ratio_f, ratio_d, 3);
  check_table("log_normal_cdf", kReference_log_normal_cdf, logcdf_f, logcdf_d, 3);
  check_table("normal_quantile", kReference_normal_quantile, quantile_f, quantile_d, 4);
}

PBP_TEST(sqrt_integer_path) {
  // Exact squares and a few correctly rounded values, on every target.
  int bad = 0;
  for (uint32_t k = 1; k < 3000; k += 7) {
    const float kf = static_cast<float>(k);
    const double kd = static_cast<double>(k) * 1048577.0;
    bad += pm::detail::sqrt_integer(kf * kf) != kf;
    bad += pm::detail::sqrt_integer(kd * kd) != kd;
  }
  PBP_CHECK(bad == 0);
  PBP_CHECK(pbp_test::double_bits(pm::detail::sqrt_integer(2.0)) == 0x3ff6a09e667f3bcdull);
  PBP_CHECK(pbp_test::float_bits(pm::detail::sqrt_integer(2.0f)) == 0x3fb504f3u);
  PBP_CHECK(pbp_test::double_bits(pm::detail::sqrt_integer(5e-324)) == 0x1e60000000000000ull);
  PBP_CHECK(pbp_test::float_bits(pm::detail::sqrt_integer(1e-45f)) == 0x1a3504f3u);
  PBP_CHECK(pm::is_nan(pm::detail::sqrt_integer(-1.0)) &&
            pm::is_nan(pm::detail::sqrt_integer(nan<float>())));
  PBP_CHECK(pm::detail::sqrt_integer(inf<double>()) == inf<double>());
  PBP_CHECK(pbp_test::float_bits(pm::detail::sqrt_integer(-0.0f)) == 0x80000000u);
#if PBP_MATH_HW_SQRT_FLOAT || PBP_MATH_HW_SQRT_DOUBLE
  // Against the hardware instruction: random bit patterns (all classes) + near-subnormal range.
  int mismatches = 0;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t b = next_random();
#if PBP_MATH_HW_SQRT_FLOAT
    const float xf = float_from_bits(static_cast<uint32_t>(b >> 32));
    const float hf = __builtin_sqrtf(xf), sf = pm::detail::sqrt_integer(xf);
    mismatches +=
        pm::is_nan(hf) ? !pm::is_nan(sf) : pbp_test::float_bits(hf) != pbp_test::float_bits(sf);
    const float sub = float_from_bits(static_cast<uint32_t>(b) & 0x00ffffffu);
    mismatches += pbp_test::float_bits(__builtin_sqrtf(sub)) !=
                  pbp_test::float_bits(pm::detail::sqrt_integer(sub));
#endif
#if PBP_MATH_HW_SQRT_DOUBLE
    const double xd = double_from_bits(b);
    const double hd = __builtin_sqrt(xd), sd = pm::detail::sqrt_integer(xd);
    mismatches +=
        pm::is_nan(hd) ? !pm::is_nan(sd) : pbp_test::double_bits(hd) != pbp_test::double_bits(sd);
    const double dsub = double_from_bits(b & 0x001fffffffffffffull);
    mismatches += pbp_test::double_bits(__builtin_sqrt(dsub)) !=
                  pbp_test::double_bits(pm::detail::sqrt_integer(dsub));
#endif
  }
  pbp_test::note("sqrt integer path vs hardware: %d mismatches in 20000 x 4 inputs", mismatches);
  PBP_CHECK(mismatches == 0);
#else
  pbp_test::note("no hardware sqrt on this target: pbp::math::sqrt is the integer path");
#endif
}

namespace {

// FNV-1a over the result bits of every function on a fixed input set: the same on every
// target by design (no FMA contraction, own math only). When results change on purpose,
// update kExpectedBits from the printed value.
struct BitsHash {
  uint64_t h = 1469598103934665603ull;
  void add(uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) {
      h ^= (v >> (8 * i)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  void add(float v) { add(pbp_test::float_bits(v), 4); }
  void add(double v) { add(pbp_test::double_bits(v), 8); }
};

template <typename T>
struct Functions;
template <>
struct Functions<float> {
  static constexpr FloatFn kAll[9] = {ref_exp_f, sqrt_f,   erfcx_f,    pdf_f,    cdf_f,
                                      ratio_f,   logcdf_f, quantile_f, ref_log_f};
};
template <>
struct Functions<double> {
  static constexpr DoubleFn kAll[9] = {ref_exp_d, sqrt_d,   erfcx_d,    pdf_d,    cdf_d,
                                       ratio_d,   logcdf_d, quantile_d, ref_log_d};
};

template <typename T>
uint64_t bits_hash(int points) {
  BitsHash hash;
  uint64_t s = 12345;
  for (int i = 0; i < points; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const T u = static_cast<T>(static_cast<double>(s >> 11) * 0x1p-53);  // [0, 1)
    const T x = (u - static_cast<T>(0.5)) * static_cast<T>(80);
    for (int f = 0; f < 7; ++f) hash.add(Functions<T>::kAll[f](x));
    hash.add(Functions<T>::kAll[7](u));                       // quantile
    hash.add(Functions<T>::kAll[8](x + static_cast<T>(41)));  // log
  }
  return hash.h;
}

}  // namespace

PBP_TEST(same_bits_on_every_target) {
  const uint64_t hf = bits_hash<float>(2000), hd = bits_hash<double>(2000);
  pbp_test::note("result-bit hashes: float 0x%016llx, double 0x%016llx",
                 static_cast<unsigned long long>(hf), static_cast<unsigned long long>(hd));
  const uint64_t kExpectedFloat = 0xe867b6e9bc148b83ull, kExpectedDouble = 0x73375aec19a29fe9ull;
  PBP_CHECK(hf == kExpectedFloat);
  PBP_CHECK(hd == kExpectedDouble);
}

// pbp_predict's interval half-width against the accurate normal_quantile, over q from the float
// subnormals to 1/2 (interval probabilities from ~1 down to 0).
PBP_TEST(interval_half_width_fast_matches_normal_quantile) {
  float worst = 0.0f;
  for (float q = 1.2e-38f; q < 0.5f; q *= 1.37f) {
    const float fast = pbp::math::detail::interval_half_width_fast(q);
    const float exact = -pbp::math::normal_quantile(q);
    const float error = fast > exact ? fast - exact : exact - fast;
    const float scaled = error / (exact > 1.0f ? exact : 1.0f);
    if (scaled > worst) worst = scaled;
  }
  const float half = pbp::math::detail::interval_half_width_fast(0.5f);
  PBP_CHECK(half >= 0.0f && half < 1e-6f);
  pbp_test::note("worst relative error %.3g", static_cast<double>(worst));
  PBP_CHECK(worst < 2e-6f);
}
