// SPDX-License-Identifier: Apache-2.0
// log Z of one data point under the network output's Gaussian N(z | m, v), and its gradients with
// respect to m and v: what the backward pass of a PBP update starts from. The one copy of these
// formulas: double in the trainer's likelihoods, float in the runtime's learner. No libm.
#pragma once

#include "pbp/math.hpp"

namespace pbp::learn {

template <class T>
struct LogZ {
  T value;
  T d_mean;
  T d_variance;
};

// log N(y | m, v) and its derivatives: eq. 12's Gaussian evidence (v includes the noise).
template <class T>
inline LogZ<T> gaussian_log_z(T y, T m, T v) {
  const T two_pi = static_cast<T>(6.283185307179586476925286766559005768);
  const T r = y - m;
  const T r2_over_v = r * r / v;
  return {T(-0.5) * (math::log(two_pi * v) + r2_over_v), r / v, T(0.5) * (r2_over_v - T(1)) / v};
}

namespace detail {
// log(1 + u) and exp(t) - 1 from the runtime's log and exp, accurate to a few ulp for small
// arguments too (Goldberg's and Kahan's corrections: the rounding of 1 + u, or of exp(t), is
// divided out).
template <class T>
inline T log1p(T u) {
  const T w = T(1) + u;
  const T d = w - T(1);
  return d == T(0) ? u : math::log(w) * (u / d);
}
template <class T>
inline T expm1(T t) {
  const T w = math::exp(t);
  const T d = w - T(1);
  if (d == T(0) || !math::is_finite(w)) return d == T(0) ? t : d;
  if (w == T(0)) return T(-1);
  return d * (t / math::log(w));
}
}  // namespace detail

// What eqs. 9-10 need of eq. 12's Gaussian evidence Z = N(y | m, v + s) with the noise variance
// s = b/(a-1) (Z), b/a (Z1) and b/(a+1) (Z2): Z1/Z and rho - 1, rho = Z2 Z / Z1^2. With s_i the
// three total variances, d01 = s0 - s1 = b/(a(a-1)), d12 = s1 - s2 = b/(a(a+1)) and h = r^2/2:
//   Z1/Z = sqrt(s0 / s1) exp(-h d01 / (s0 s1)),
//   log rho = -log(s0 s2 / s1^2) / 2 - h (1/s0 + 1/s2 - 2/s1)
//           = -log1p(b (2v + b/a) / (a (a^2-1) s1^2)) / 2 + h 2 b v / (a (a^2-1) s0 s1 s2),
// both differences worked out in closed form: rho - 1 is O(1/a^2), and computed as Z2/Z1 over
// Z1/Z it would keep only float's rounding over it (relative error eps a^2).
template <class T>
struct EvidenceRatios {
  T z1_over_z;
  T rho_minus_one;
};

template <class T>
inline EvidenceRatios<T> gaussian_evidence_ratios(T y, T m, T v, T noise_a, T noise_b) {
  const T one = T(1);
  const T a = noise_a, b = noise_b;
  const T s0 = v + b / (a - one);
  const T s1 = v + b / a;
  const T s2 = v + b / (a + one);
  const T d01 = b / (a * (a - one));
  const T r = y - m;
  const T h = T(0.5) * (r * r);
  const T c = b / (a * ((a - one) * (a + one)));  // b / (a (a^2 - 1))
  const T log_rho = T(-0.5) * detail::log1p(c * (T(2) * v + b / a) / (s1 * s1)) +
                    h * (T(2) * c * v) / (s0 * s1 * s2);
  return {math::sqrt(s0 / s1) * math::exp(-(h * d01 / (s0 * s1))), detail::expm1(log_rho)};
}

// Binary probit: log Phi(x) with x = y m / sqrt(1 + v), y = +1 for label 1, -1 for label 0;
// d/dm = phi/Phi(x) y / sqrt(1 + v), d/dv = -phi/Phi(x) x / (2 (1 + v)). phi/Phi and log Phi
// are the stable kernels, so neither tail gives 0/0, -inf or NaN.
template <class T>
inline LogZ<T> probit_log_z(bool positive, T m, T v) {
  const T sign = positive ? T(1) : T(-1);
  const T spread = T(1) + v;
  const T inv_scale = T(1) / math::sqrt(spread);
  const T x = sign * m * inv_scale;
  const T ratio = math::normal_pdf_over_cdf(x);
  return {math::log_normal_cdf(x), ratio * sign * inv_scale, T(-0.5) * ratio * x / spread};
}

}  // namespace pbp::learn
