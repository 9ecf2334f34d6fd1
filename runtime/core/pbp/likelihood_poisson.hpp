// SPDX-License-Identifier: Apache-2.0
// The count task's predictive, the Poisson likelihood's (Ghosh, Delle Fave & Yedidia 2016) from the
// output moments z ~ N(nu, psi) of one forward pass, and its traits for the likelihood table
// (likelihoods.hpp, runtime/ADDING.md). The one copy: the runtime runs it in float, the trainer in
// double. No libm, no heap.
#pragma once
#include <stdint.h>

#include "pbp/math.hpp"
#include "pbp/pbp.h"

namespace pbp {
namespace outputs {

// Count: Poisson likelihood with rate e^z. The paper approximates the log-normal rate by a Gamma,
// which makes the predictive a negative binomial NB(mean mu = e^nu, scale psi) (its eqs. 21-22):
// r = 1 / psi, p = psi mu / (1 + psi mu), pmf(k) = Gamma(k + r) / (Gamma(r) k!) (1 - p)^r p^k,
// mean mu, variance mu (1 + psi mu), mode floor((1 - psi) mu) if psi < 1 else 0. psi -> 0 is
// the Poisson(mu) limit, which every formula below reaches without dividing by psi.

namespace detail {

// floor(x) for x >= 0 (+inf included) without libm: x >= 2^mantissa is already an integer.
template <class T>
inline T floor_nonnegative(T x) {
  const T big = math::detail::pow2<T>(math::detail::Traits<T>::kMantissaBits);
  if (!(x < big)) return x;
  const T rounded = (x + big) - big;  // round to nearest
  return rounded > x ? rounded - T(1) : rounded;
}

// log(1 + x) / x for x >= 0, 1 at x = 0: log(u) / (u - 1) with u = 1 + x rounded, whose
// rounding error cancels between numerator and denominator (Goldberg 1991, thm. 4).
template <class T>
inline T log1p_over_x(T x) {
  const T u = T(1) + x;
  return u == T(1) ? T(1) : math::log(u) / (u - T(1));
}

}  // namespace detail

template <class T>
struct CountMoments {
  T mean;      // mu = e^nu
  T variance;  // mu (1 + psi mu)
  T mode;      // floor((1 - psi) mu) if psi < 1, else 0
};

// Overflows to +inf for nu > ~88.7 (float) and the variance for mu psi mu > ~3.4e38: the caller
// checks finiteness.
template <class T>
inline CountMoments<T> count_moments(T nu, T psi) {
  const T mean = math::exp(nu);
  const T mode = psi < T(1) ? detail::floor_nonnegative((T(1) - psi) * mean) : T(0);
  return {mean, mean * (T(1) + psi * mean), mode};
}

template <class T>
struct CountInterval {
  T lower;         // smallest k with CDF(k) >= (1 - probability) / 2
  T upper;         // smallest k with CDF(k) >= (1 + probability) / 2
  uint32_t terms;  // pmf terms summed
  bool complete;   // false: max_terms were not enough (lower and upper then meaningless)
};

// The central interval of NB(mean, psi) holding `probability` in (0, 1), from the CDF summed
// term by term from k = 0 with pmf(k + 1) = pmf(k) (k + r) / (k + 1) p, written
// pmf(k) (1 + k psi) / (k + 1) * mean / (1 + psi mean) (no 1/psi), from
// pmf(0) = (1 - p)^r = exp(-mean log(1 + psi mean) / (psi mean)) (-> e^-mean as psi -> 0).
// For large means pmf(0) underflows (float: mean > ~87), so the walk carries pmf(k) = w 2^e with
// an integer exponent e <= 0, rescaled by exact powers of two, and compares against the
// thresholds scaled the same way. Sums are compensated (Kahan). Sums to at most max_terms terms:
// the cost is upper + 1 terms. If rounding leaves the summed CDF short of the upper threshold,
// the walk stops once the remaining tail is provably below 2^-(mantissa - 3) of the sum
// (tail <= pmf(k) rho / (1 - rho), rho bounding the later pmf ratios). Accuracy: the CDF carries
// a relative error of a few (k + |log pmf(0)|) ulp, so a bound can be off by one where the CDF
// is that close to a threshold. Valid for finite mean >= 0, finite psi >= 0.
template <class T>
inline CountInterval<T> count_interval(T mean, T psi, T probability, uint32_t max_terms) {
  using Traits = math::detail::Traits<T>;
  constexpr int kRescaleBits = 32;
  const T kRescaleUp = math::detail::pow2<T>(kRescaleBits);
  const T kRescaleDown = math::detail::pow2<T>(-kRescaleBits);
  const T kTailTolerance = math::detail::pow2<T>(-(Traits::kMantissaBits - 3));
  const T kLn2 = T(0.69314718055994530942);
  const int kMaxScaleBits = Traits::kExponentBias - 1;  // 2^kMaxScaleBits is finite

  CountInterval<T> out{T(0), T(0), 0u, false};
  const T a = psi * mean;
  const T ratio = mean / (T(1) + a);  // f(k) = ratio (1 + k psi) / (k + 1)
  const T p = psi * ratio;            // psi mean / (1 + psi mean): lim f(k) for psi > 0
  const T log_pmf0 = -mean * detail::log1p_over_x(a);  // r log(1 - p)
  // Split pmf(0) = w 2^e with w in (1/2, 1]; beyond -2^30 nothing is reachable in max_terms.
  if (!(log_pmf0 > T(-1073741824))) return out;
  int e = static_cast<int>(log_pmf0 / kLn2);  // truncates towards 0, so e <= 0
  T w = math::exp(log_pmf0 - static_cast<T>(e) * kLn2);

  const T tail = (T(1) - probability) * T(0.5);
  const T targets[2] = {tail, T(1) - tail};
  T scaled[2];  // targets * 2^-e, +inf when that is not representable
  auto rescale_targets = [&]() {
    for (int i = 0; i < 2; ++i) {
      scaled[i] = -e > kMaxScaleBits ? math::infinity<T>() : targets[i] * math::detail::pow2<T>(-e);
    }
  };
  rescale_targets();

  T cdf = T(0);
  T compensation = T(0);
  bool have_lower = false;
  for (uint32_t k = 0; k < max_terms; ++k) {
    const T y = w - compensation;
    const T t = cdf + y;
    compensation = (t - cdf) - y;
    cdf = t;
    const T kf = static_cast<T>(k);
    const T next_ratio = ratio * (T(1) + kf * psi) / (kf + T(1));
    // A bound on every later pmf ratio: f decreases towards p when psi < 1, increases when > 1.
    const T rho = psi < T(1) ? next_ratio : p;
    if (!have_lower && cdf >= scaled[0]) {
      have_lower = true;
      out.lower = kf;
    }
    // Only once the lower bound is found: before it, a negligible tail would mean the sum went
    // badly wrong (w underflowed), and the walk goes on to max_terms instead.
    const bool tail_negligible =
        have_lower && rho < T(1) && w * rho <= kTailTolerance * cdf * (T(1) - rho);
    if (cdf >= scaled[1] || tail_negligible) {
      out.upper = kf;
      out.terms = k + 1;
      out.complete = true;
      return out;
    }
    w *= next_ratio;
    if (w >= kRescaleUp && e <= -kRescaleBits) {
      w *= kRescaleDown;
      cdf *= kRescaleDown;
      compensation *= kRescaleDown;
      e += kRescaleBits;
      rescale_targets();
    }
  }
  out.terms = max_terms;
  return out;
}

}  // namespace outputs

// The blob's Poisson likelihood: pbp_predict_count reads count_moments and count_interval.
struct PoissonLikelihood {
  static constexpr uint32_t kId = PBP_LIKELIHOOD_POISSON;
  static constexpr uint32_t kTask = PBP_TASK_COUNT_DATA;
  static constexpr uint32_t kOutputs = 1;
  static constexpr bool kEpistemicScale = false;
};

}  // namespace pbp
