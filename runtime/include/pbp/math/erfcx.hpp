// pbp::math::erfcx, the scaled complementary error function exp(x^2) erfc(x).
#pragma once
#include "bits.hpp"
#include "coefficients.hpp"
#include "exp_log.hpp"

namespace pbp {
namespace math {
namespace detail {

template <typename T>
struct ErfcxConstants;

template <>
struct ErfcxConstants<float> {
  static constexpr float kK = 3.75f;
  static constexpr float kBig = 0x1p+13f;  // beyond: erfcx(x) = 1/(x sqrt(pi)) to < 0.5 ulp
  static constexpr float kInvSqrtPi = 0x1.20dd76p-1f;
};

template <>
struct ErfcxConstants<double> {
  static constexpr double kK = 3.75;
  static constexpr double kBig = 0x1p+27;
  static constexpr double kInvSqrtPi = 0x1.20dd750429b6dp-1;
};

// erfcx(a) for a >= 0 (or NaN -> NaN). With s = 2a / (a + K) = t + 1, t = (a - K) / (a + K),
// (1 + 2a) erfcx(a) = 1 + s R(t), R fitted by tools/scripts/gen_math_coefficients.py. Near
// a = 0 the result is formed as 1 + (s R - 2a) / (1 + 2a) so that the leading 1 is exact.
// Branch-free: two divisions and one polynomial.
template <typename T>
inline T erfcx_nonnegative(T a) {
  using C = ErfcxConstants<T>;
  const T ac = a < C::kBig ? a : C::kBig;
  const T s = (ac + ac) / (ac + C::kK);
  const T t = s - static_cast<T>(1);
  const T sr = s * horner(t, Coefficients<T>::erfcx_r);
  const bool small = ac < static_cast<T>(0.25);
  const T num = small ? sr - (ac + ac) : static_cast<T>(1) + sr;
  const T q = num / (static_cast<T>(1) + (ac + ac));
  const T res = small ? static_cast<T>(1) + q : q;
  const T asym = C::kInvSqrtPi / a;
  const T r = a < C::kBig ? res : asym;
  return a != a ? a : r;
}

}  // namespace detail

/// Scaled complementary error function erfcx(x) = exp(x^2) erfc(x) for T in {float, double}.
/// All x: erfcx(+inf) = 0, erfcx(x) ~ 1/(x sqrt(pi)) for large x (down to subnormals),
/// erfcx(x) = 2 exp(x^2) - erfcx(-x) for x < 0, overflowing to +inf below ~-9.3 (float) /
/// ~-26.6 (double); NaN -> NaN. x >= 0 is branch-free (one division, one polynomial). Measured
/// max error: see tests/host/math_accuracy (x >= 0: <= 2 ulp; x < 0: <= 3 ulp near -0.5).
template <typename T>
inline T erfcx(T x) {
  if (x < static_cast<T>(0)) {
    const T xc = x > static_cast<T>(-1e5) ? x : static_cast<T>(-1e5);
    T hi, lo;
    detail::exact_square(xc, hi, lo);
    return detail::exp_scaled(hi, lo, 1) - detail::erfcx_nonnegative(-x);
  }
  return detail::erfcx_nonnegative(x);
}

}  // namespace math
}  // namespace pbp
