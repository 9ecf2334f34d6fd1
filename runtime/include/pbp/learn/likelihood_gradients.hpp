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

// Z1/Z and Z2/Z1 of eqs. 9-10 for eq. 12's Gaussian evidence Z = N(y | m, v + s) with the noise
// variance s = b/(a-1) (Z), b/a (Z1) and b/(a+1) (Z2). With s_i the three total variances and
// d = s_i - s_{i+1} (b/(a(a-1)) and b/(a(a+1)), no cancellation):
//   N(y | m, s_{i+1}) / N(y | m, s_i) = sqrt(s_i / s_{i+1}) exp(-r^2 d / (2 s_i s_{i+1})),
// a square root and an exp each, no log.
template <class T>
struct EvidenceRatios {
  T z1_over_z;
  T z2_over_z1;
};

template <class T>
inline EvidenceRatios<T> gaussian_evidence_ratios(T y, T m, T v, T noise_a, T noise_b) {
  const T one = T(1);
  const T s0 = v + noise_b / (noise_a - one);
  const T s1 = v + noise_b / noise_a;
  const T s2 = v + noise_b / (noise_a + one);
  const T d01 = noise_b / (noise_a * (noise_a - one));
  const T d12 = noise_b / (noise_a * (noise_a + one));
  const T r = y - m;
  const T half_r2 = T(0.5) * (r * r);
  return {math::sqrt(s0 / s1) * math::exp(-(half_r2 * d01 / (s0 * s1))),
          math::sqrt(s1 / s2) * math::exp(-(half_r2 * d12 / (s1 * s2)))};
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
